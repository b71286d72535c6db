"""docs/data-dictionary.md gives every published field its origin and its checks, and lists every
relation checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from builder.relations import GENERATION_ORDERS, GENERATION_RELATIONS, LLM_ORDERS, LLM_RELATIONS
from builder.upstream import OWN_NAMES

REPO = Path(__file__).resolve().parent.parent
TEXT = (REPO / "docs" / "data-dictionary.md").read_text(encoding="utf-8")
CHECKS = set("URMSXCDHG")  # the letters the section defines


def section(heading: str) -> str:
    start = TEXT.index(f"\n## {heading}\n")
    end = TEXT.find("\n## ", start + 1)
    return TEXT[start : end if end > 0 else len(TEXT)]


def table_rows(text: str) -> list[list[str]]:
    """The cells of each body row of the Markdown tables in `text`."""
    rows = [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in text.splitlines()
        if line.startswith("| ")
    ]
    return [
        row for row in rows if not set(row[0]) <= {"-", " "} and row[0] not in ("field", "relation")
    ]


def published_fields() -> set[str]:
    """Every property of every data document's schema, and every column of every CSV table in
    datapackage.json."""
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            found.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in (REPO / "schemas").glob("*.schema.json"):
        # the descriptor's keys are the Data Package standard's
        if path.name != "datapackage.schema.json":
            walk(json.loads(path.read_bytes()))
    descriptor = json.loads((REPO / "datapackage.json").read_bytes())
    for resource in descriptor["resources"]:
        if str(resource["path"]).endswith(".csv"):
            found.update(field["name"] for field in resource["schema"]["fields"])
    return found


def test_every_published_field_has_an_origin_and_its_checks() -> None:
    entries: dict[str, tuple[str, str]] = {}
    for field, origin, checks in table_rows(
        section("Where each value comes from, and what checks it")
    ):
        for name in re.findall(r"`([^`]+)`", field):
            entries[name] = (origin, checks)
    fields = published_fields()
    assert len(fields) > 90  # the schemas were read
    assert sorted(fields - entries.keys()) == []
    for name in fields:
        origin, checks = entries[name]
        letters = set(re.findall(r"\b([A-Z])\b", checks))
        assert origin, name
        assert letters, name
        assert letters <= CHECKS, (name, checks)


def test_every_relation_checked_is_listed() -> None:
    """Each relation and order the upstream check applies names its fields in the relations
    table, upstream side."""
    upstream = " ".join(row[1] for row in table_rows(section("Relations between the numbers")))
    names = [(r.target, *r.inputs) for r in LLM_RELATIONS] + [
        (o.low, o.high) for o in (*LLM_ORDERS, *GENERATION_ORDERS)
    ]
    for kind in ("image", "video"):
        own = {neutral: pattern.format(kind) for neutral, pattern in OWN_NAMES.items()}
        names += [tuple(own.get(n, n) for n in (r.target, *r.inputs)) for r in GENERATION_RELATIONS]
    missing = [fields for fields in names if not all(f"`{name}`" in upstream for name in fields)]
    assert missing == []
