"""JSON tables reach frictionless as the rows the tree read (tables.as_rows), not as files to re-read.

Frictionless must find the same faults, at the same rows and fields, in the same words, as when
it reads each table from its file as the descriptor declares. The only lines the file route adds
are its own byte and hash counts of an edited file, which crossfile reports for every file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.validate import tables
from builder.validate.tree import load_tree
from edits import edit

FILE_ONLY = ("byte-count", "hash-count")  # what only a file has; crossfile.check_descriptor checks both


def rows(rel: str, change: Callable[[list[dict[str, Any]]], None]) -> Callable[[Path], None]:
    key = "models" if rel.endswith("models.json") else "workloads" if rel == "workloads.json" else "rows"
    return edit(rel, lambda doc: change(doc[key]))


def set_cell(index: int, **cells: Any) -> Callable[[list[dict[str, Any]]], None]:
    return lambda items: items[index].update(cells)


def drop_key(index: int, key: str) -> Callable[[list[dict[str, Any]]], None]:
    return lambda items: items[index].pop(key)


PS = "workloads/problem-solving"

FAULTS = [
    ("number-as-text", rows("index.json", set_cell(0, wh_per_million_output_tokens="lots"))),
    ("number-with-fraction-digits", rows("index.json", set_cell(1, num_gpus=2.50))),
    ("negative-energy", rows("index.json", set_cell(3, joules_per_output_token=-1.25))),
    ("exponent", rows("index.json", set_cell(4, median_itl_ms=-1e-30))),
    ("missing-cell", rows("index.json", drop_key(5, "gpu"))),
    ("null-cell", rows("index.json", set_cell(7, precision=None))),
    ("bad-enum", rows("index.json", set_cell(8, precision="FP3"))),
    ("duplicate-row-id", rows("index.json", lambda items: items.append(dict(items[0])))),
    ("foreign-key", rows("index.json", set_cell(0, slug="no-such-model"))),
    ("model-list-duplicate", rows("models.json", lambda items: items.append(dict(items[0])))),
    ("model-list-bad-url", rows("models.json", set_cell(0, url="not a url", params_b="x"))),
    ("workload-count", rows("workloads.json", set_cell(1, model_count=-3))),
    ("other-workload-fk", rows(f"{PS}/index.json", set_cell(0, slug="qwen-3-8b-no"))),
    ("object-in-cell", rows(f"{PS}/models.json", set_cell(0, name={"a": 1}))),
    ("list-in-cell", rows(f"{PS}/index.json", set_cell(1, gpu=["H100"]))),
    # shapes frictionless reads from the file, in its own words
    ("no-rows-property", edit("index.json", lambda doc: doc.pop("rows"))),
    ("empty-rows", edit("index.json", lambda doc: doc.update(rows=[]))),
    ("rows-not-a-list", edit("models.json", lambda doc: doc.update(models={"a": 1}))),
    ("row-not-an-object", rows("index.json", lambda items: items.insert(3, [1, 2]))),
    ("row-a-string", rows(f"{PS}/models.json", lambda items: items.append("model"))),
    ("not-json", lambda data: (data / "models.json").write_text("{not json")),
    # frictionless finds the rows by the dotted path `models.item`, which this key's value also has
    ("dotted-top-level-key", edit("models.json", lambda doc: doc.update({"models.item": {"slug": "x"}}))),
]  # fmt: skip


# Not faults to frictionless (an integral float is an integer to it): both routes must accept them.
ACCEPTED = [
    ("integer-as-float", rows("index.json", set_cell(2, max_num_seqs=2.0))),
    ("tiny-exponent", rows("index.json", set_cell(4, median_itl_ms=1e-30))),
    ("extra-key", rows("index.json", set_cell(6, colour="green"))),
    ("unicode", rows(f"{PS}/models.json", set_cell(1, name="Q\u00e9n \u2603"))),
    ("key-order", rows("models.json", lambda items: items.__setitem__(0, dict(reversed(items[0].items()))))),
]  # fmt: skip


def descriptor(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = root / "datapackage.json"
    desc = json.loads(path.read_text())
    change(desc)
    path.write_text(json.dumps(desc, indent=2) + "\n")


def table(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda desc: change(next(r for r in desc["resources"] if r["name"] == name))


def referenced(resource: dict[str, Any]) -> dict[str, Any]:
    return resource["schema"]["foreignKeys"][0]["reference"]


DESCRIPTOR_FAULTS = [
    ("keys-missing-one", table("index-rows", lambda r: r["dialect"]["json"]["keys"].pop(3))),
    ("keys-none", table("model-list", lambda r: r["dialect"]["json"].pop("keys"))),
    ("keys-not-a-list", table("model-list", lambda r: r["dialect"]["json"].update(keys="slug"))),
    ("wrong-property", table("index-rows", lambda r: r["dialect"]["json"].update(property="row"))),
    ("header-false", table("index-rows", lambda r: r["dialect"].update(header=False))),
    ("format-csv", table("model-list", lambda r: r.update(format="csv"))),
    ("field-type", table("index-rows", lambda r: r["schema"]["fields"][8].update(type="integer"))),
    ("primary-key-gone", table("index-rows", lambda r: r["schema"].pop("primaryKey"))),
    ("fk-to-other-workload", table("index-rows", lambda r: referenced(r).update(resource="model-list-image-chat"))),
    ("fk-to-nothing", table("index-rows", lambda r: referenced(r).update(resource="nothing"))),
    # a dialect whose json control is not an object: frictionless reads the table without one
    ("json-control-null", table("model-list", lambda r: r["dialect"].update(json=None))),
    ("json-control-a-string", table("index-rows", lambda r: r["dialect"].update(json="rows"))),
    ("keys-null", table("model-list", lambda r: r["dialect"]["json"].update(keys=None))),
]  # fmt: skip


def moved_rows(key: str) -> Callable[[Path], None]:
    """The model list's rows also under `key` (a faulty copy), and its dialect's property naming it."""

    def apply(root: Path) -> None:
        def change(doc: dict[str, Any]) -> None:
            doc[key] = [dict(row, params_b="x") for row in doc["models"]]
            if "." in key:  # the dotted path frictionless follows leads to the good rows
                outer, inner = key.split(".", 1)
                doc[outer] = {inner: doc["models"]}

        edit("models.json", change)(root / "data")
        descriptor(root, table("model-list", lambda r: r["dialect"]["json"].update(property=key)))

    return apply


# Properties that are not one key of the document to frictionless's JSON reader.
MOVED = [("empty-property", moved_rows("")), ("dotted-property", moved_rows("m.x"))]


@pytest.mark.parametrize("apply", [pytest.param(a, id=n) for n, a in MOVED])
def test_a_property_is_read_as_the_file_reader_reads_it(repo_copy, apply) -> None:
    apply(repo_copy)
    inline, from_files = both_routes(repo_copy)
    assert inline == without_file_counts(from_files)


def both_routes(root: Path) -> tuple[list[str], list[str]]:
    """The problems with the rows inline, and with every table read from its file."""
    tree = load_tree(root / "data")
    inline = [str(p) for p in tables.check_tables(tree)]
    real = tables.as_rows
    tables.as_rows = lambda tree, table: table
    try:
        from_files = [str(p) for p in tables.check_tables(tree)]
    finally:
        tables.as_rows = real
    return inline, from_files


def without_file_counts(problems: list[str]) -> list[str]:
    return [p for p in problems if not any(f": {kind}:" in p for kind in FILE_ONLY)]


def test_the_package_reads_the_same_both_ways(repo_copy) -> None:
    inline, from_files = both_routes(repo_copy)
    assert inline == from_files == []


@pytest.mark.parametrize("apply", [pytest.param(a, id=n) for n, a in FAULTS])
def test_a_row_fault_is_found_as_the_file_reader_finds_it(repo_copy, apply) -> None:
    apply(repo_copy / "data")
    inline, from_files = both_routes(repo_copy)
    assert inline, "the edit is a fault frictionless must report"
    assert inline == without_file_counts(from_files)
    assert not [p for p in inline if any(f": {kind}:" in p for kind in FILE_ONLY)]


@pytest.mark.parametrize("apply", [pytest.param(a, id=n) for n, a in ACCEPTED])
def test_what_the_file_reader_accepts_is_accepted(repo_copy, apply) -> None:
    apply(repo_copy / "data")
    inline, from_files = both_routes(repo_copy)
    assert inline == []
    assert without_file_counts(from_files) == []


@pytest.mark.parametrize("change", [pytest.param(c, id=n) for n, c in DESCRIPTOR_FAULTS])
def test_a_descriptor_fault_is_found_as_the_file_reader_finds_it(repo_copy, change) -> None:
    descriptor(repo_copy, change)
    inline, from_files = both_routes(repo_copy)
    assert inline == without_file_counts(from_files)


def test_numbers_reach_frictionless_as_its_json_reader_gives_them(repo_copy) -> None:
    """A fraction or exponent is a Decimal (as ijson gives it), an integer an int; the bytes decide, not floats."""
    rows(f"{PS}/index.json", set_cell(0, joules_per_output_token=-0.10))(repo_copy / "data")
    raw = (repo_copy / "data" / PS / "index.json").read_text().replace("-0.1,", "-0.10,", 1)
    (repo_copy / "data" / PS / "index.json").write_text(raw)
    tree = load_tree(repo_copy / "data")
    res = next(r for r in tree.descriptor["resources"] if r["name"] == "index-rows-problem-solving")
    data = tables.as_rows(tree, res)["data"]
    at = data[0].index("joules_per_output_token")
    assert repr(data[1][at]) == "Decimal('-0.10')"
    assert type(data[1][data[0].index("num_gpus")]) is int
    (problem,) = [str(p) for p in tables.check_tables(tree)]
    assert problem.startswith(f"data/{PS}/index.json: /rows/0/joules_per_output_token: constraint-error")
