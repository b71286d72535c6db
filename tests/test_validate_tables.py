"""Frictionless in process on the descriptor, every file's size and hash, and the CSV tables: each
fault at its place in the descriptor or a CSV row, in one line, and only once the resources are the
generated ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.validate.descriptor import check_package, check_tables
from builder.validate.tree import load_tree
from edits import edit
from helpers import slow_after


def csv(rel: str, old: str, new: str) -> Callable[[Path], None]:
    """Replace the first `old` in a CSV by `new`."""
    return lambda data: (data / rel).write_text((data / rel).read_text().replace(old, new, 1))


def table_problems(root: Path) -> list[str]:
    """What frictionless reports on the package the descriptor check hands it."""
    tree = load_tree(root / "data")
    descriptor_problems, package = check_package(tree, {}, None)
    assert descriptor_problems == []
    # every file: frictionless checks each one's size and hash
    assert len(package["resources"]) == len(tree.raw)
    return [str(p) for p in check_tables(tree, package)]


CONF = "configurations.csv"
T2I = "workloads/text-to-image/configurations.csv"
FAULTS = [
    (
        "csv-not-a-number",
        csv(CONF, ",3854,", ",lots,"),
        f"data/{CONF}: row 2, column gpu_power_watts_total: type-error",
    ),
    ("csv-bad-enum", csv(CONF, ",BF16,", ",FP3,"), f"data/{CONF}: row "),
    (
        "csv-duplicate-key",
        lambda data: (data / CONF).write_text(
            (data / CONF).read_text() + (data / CONF).read_text().splitlines()[1] + "\n"
        ),
        f"data/{CONF}: row 840: primary-key",
    ),
    ("generation-csv-negative", csv(T2I, ",1,", ",-1,"), f"data/{T2I}: row "),
    (
        "document-edited",
        edit("models/qwen-3-8b.json", lambda doc: doc.update(params_b=9)),
        "datapackage.json: /resources/",
    ),
]


# Each case runs frictionless over the package: one in the fast tier, the other variants slow.
@pytest.mark.parametrize(
    ("apply", "expected"), slow_after([pytest.param(a, e, id=n) for n, a, e in FAULTS])
)
def test_a_table_fault_is_one_line_naming_file_place_and_rule(repo_copy, apply, expected) -> None:
    apply(repo_copy / "data")
    found = table_problems(repo_copy)
    assert any(line.startswith(expected) for line in found), found
    assert all(line.count("\n") == 0 for line in found)


# test_validate.py's committed validate runs the same table checks in the fast tier
@pytest.mark.slow
def test_the_committed_tables_are_valid(repo_copy) -> None:
    assert table_problems(repo_copy) == []


def test_a_stale_size_and_hash_are_frictionless_finds_said_at_their_place(repo_copy) -> None:
    """A document rewritten since the build: frictionless finds its size and hash stale, the
    builder says which."""
    rel = "models/qwen-3-8b.json"
    (repo_copy / "data" / rel).write_text(
        json.dumps(json.loads((repo_copy / "data" / rel).read_text()), indent=4)
    )
    found = table_problems(repo_copy)
    place = next(
        i
        for i, r in enumerate(json.loads((repo_copy / "datapackage.json").read_text())["resources"])
        if r["path"] == f"data/{rel}"
    )
    assert sorted(line.split(": expected")[0] for line in found) == [
        f"datapackage.json: /resources/{place}/bytes",
        f"datapackage.json: /resources/{place}/hash",
    ], found
    assert (
        f"/resources/{place}/bytes: expected {len((repo_copy / 'data' / rel).read_bytes())} for "
        f"data/{rel}, found" in "\n".join(found)
    )


def test_no_json_document_is_read_as_a_table(repo_copy) -> None:
    """frictionless v5 takes a JSON resource without a type as a whole file (bytes and hash),
    never as rows."""
    from frictionless import Package, system
    from frictionless.resources import TableResource

    tree = load_tree(repo_copy / "data")
    package = check_package(tree, {}, None)[1]
    with system.use_context(trusted=False):
        opened = Package(package, basepath=str(repo_copy))
    tables = sorted(r.path for r in opened.resources if isinstance(r, TableResource))
    assert tables == sorted(r["path"] for r in package["resources"] if r["format"] == "csv")
    # JSON Schema checks these
    assert all("jsonSchema" in r for r in package["resources"] if r["format"] == "json")


def descriptor(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = root / "datapackage.json"
    desc = json.loads(path.read_text())
    change(desc)
    path.write_text(json.dumps(desc, indent=2) + "\n")


def table(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda desc: change(next(r for r in desc["resources"] if r["name"] == name))


HAND_EDITS = [
    (
        "dialect-added",
        table("index-document", lambda r: r.update(dialect={"json": {"property": "rows"}})),
        "/resources/2/dialect",
    ),
    (
        "type-table",
        table("model-list-document", lambda r: r.update(type="table")),
        "/resources/3/type",
    ),
    (
        "format-csv",
        table("model-list-document", lambda r: r.update(format="csv")),
        "/resources/3/format",
    ),
    (
        "format-gsheets",
        table("configurations", lambda r: r.update(format="gsheets")),
        "/resources/0/format",
    ),
    (
        "field-type",
        table("configurations", lambda r: r["schema"]["fields"][0].update(type="integer")),
        "/resources/0/schema/fields/0/type",
    ),
    (
        "hash-not-sha256",
        table("configurations", lambda r: r.update(hash="md5:00")),
        "/resources/0/hash",
    ),
    (
        "path-outside",
        table("configurations", lambda r: r.update(path="../outside.csv")),
        "/resources/0/path",
    ),
]


@pytest.mark.parametrize(
    ("change", "where"), slow_after([pytest.param(c, w, id=n) for n, c, w in HAND_EDITS], fast=2)
)
def test_a_hand_edited_resource_is_reported_and_nothing_reaches_frictionless(
    repo_copy, change, where
) -> None:
    descriptor(repo_copy, change)
    problems, package = check_package(load_tree(repo_copy / "data"), {}, None)
    assert where in [p.where for p in problems], [str(p) for p in problems]
    assert package == {}
