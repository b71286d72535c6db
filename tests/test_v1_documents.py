"""docs/v1-documents.md names every key the frontier schemas have in its frontier section."""

from __future__ import annotations

import json
import re

from helpers import REPO

SCHEMAS = ("frontier.schema.json", "generation-frontier.schema.json")


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def keys(node: object) -> set[str]:
    """Every property name anywhere in a schema."""
    if isinstance(node, dict):
        own = set(node.get("properties", {}))
        return own.union(*(keys(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(keys(value) for value in node))
    return set()


def test_the_frontier_section_names_every_key_of_the_frontier_schemas() -> None:
    text = (REPO / "docs" / "v1-documents.md").read_text(encoding="utf-8")
    named = set(
        re.findall(
            r"[a-z0-9_]+",
            " ".join(
                re.findall(r"`([^`]+)`", section(text, "Energy-latency frontier (`frontier.json`)"))
            ),
        )
    )
    found = set().union(*(keys(json.loads((REPO / "schemas" / n).read_bytes())) for n in SCHEMAS))
    assert len(found) > 30  # the schemas were read
    assert sorted(found - named) == []
