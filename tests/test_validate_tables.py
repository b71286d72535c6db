# ruff: noqa: E501  (tables of cases, one per line: name, edit, expected line)
"""Frictionless on the generated tables, in process: each fault at a JSON pointer or a CSV row, in one
line, and only once the descriptor's resources are the generated ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.validate.descriptor import STALE, check_package, check_tables
from builder.validate.tree import load_tree
from conftest import slow_after
from edits import edit

PS = "workloads/problem-solving"


def rows(rel: str, change: Callable[[list[dict[str, Any]]], None]) -> Callable[[Path], None]:
    key = "models" if rel.endswith("models.json") else "workloads" if rel == "workloads.json" else "rows"
    return edit(rel, lambda doc: change(doc[key]))


def set_cell(index: int, **cells: Any) -> Callable[[list[dict[str, Any]]], None]:
    return lambda items: items[index].update(cells)


def table_problems(root: Path) -> list[str]:
    """What frictionless reports on the tables the descriptor check hands it."""
    tree = load_tree(root / "data")
    descriptor_problems, tables = check_package(tree, {}, None)
    assert [p for p in descriptor_problems if not STALE.fullmatch(p.where)] == []  # an edited file's size and hash
    assert len(tables) == 18  # per workload its index rows and model list (14), the workload list, three CSVs
    return [str(p) for p in check_tables(tree.root, tables)]


FAULTS = [
    ("number-as-text", rows("index.json", set_cell(0, wh_per_million_output_tokens="lots")), "data/index.json: /rows/0/wh_per_million_output_tokens: type-error"),
    ("number-with-fraction-digits", rows("index.json", set_cell(1, num_gpus=2.50)), "data/index.json: /rows/1/num_gpus: type-error"),
    ("negative-energy", rows("index.json", set_cell(3, joules_per_output_token=-1.25)), "data/index.json: /rows/3/joules_per_output_token: constraint-error"),
    ("exponent", rows("index.json", set_cell(4, median_itl_ms=-1e-30)), "data/index.json: /rows/4/median_itl_ms: constraint-error"),
    ("missing-cell", rows("index.json", lambda items: items[5].pop("gpu")), "data/index.json: /rows/5/gpu: constraint-error"),
    ("bad-enum", rows("index.json", set_cell(8, precision="FP3")), "data/index.json: /rows/8/precision: constraint-error"),
    ("duplicate-row", rows("index.json", lambda items: items.append(dict(items[0]))), "data/index.json: /rows/"),
    ("foreign-key", rows("index.json", set_cell(0, slug="no-such-model")), "data/index.json: /rows/0: foreign-key"),
    ("model-list-duplicate", rows("models.json", lambda items: items.append(dict(items[0]))), "data/models.json: /models/"),
    ("workload-count", rows("workloads.json", set_cell(1, model_count=-3)), "data/workloads.json: /workloads/1/model_count: constraint-error"),
    ("other-workload-fk", rows(f"{PS}/index.json", set_cell(0, slug="qwen-3-8b-no")), f"data/{PS}/index.json: /rows/0: foreign-key"),
    ("list-in-cell", rows(f"{PS}/index.json", set_cell(1, gpu=["H100"])), f"data/{PS}/index.json: /rows/1/gpu: type-error"),
    ("no-rows-property", edit("index.json", lambda doc: doc.pop("rows")), "data/index.json: /: source-error"),
    ("row-not-an-object", rows("index.json", lambda items: items.insert(3, [1, 2])), "data/index.json: "),
    ("not-json", lambda data: (data / "models.json").write_text("{not json"), "data/models.json: /: "),
    ("csv-not-a-number", lambda data: (data / "configurations.csv").write_text((data / "configurations.csv").read_text().replace(",3854,", ",lots,", 1)), "data/configurations.csv: row 2, column gpu_power_watts_total: type-error"),
]  # fmt: skip


# Each case runs frictionless over the package: one in the fast tier, the other variants slow
# (number-with-fraction-digits is the same type-error as number-as-text).
@pytest.mark.parametrize(("apply", "expected"), slow_after([pytest.param(a, e, id=n) for n, a, e in FAULTS]))
def test_a_table_fault_is_one_line_naming_file_place_and_rule(repo_copy, apply, expected) -> None:
    apply(repo_copy / "data")
    found = table_problems(repo_copy)
    assert any(line.startswith(expected) for line in found), found
    assert all(line.count("\n") == 0 for line in found)


@pytest.mark.slow  # test_validate.py's committed validate runs the same table checks in the fast tier
def test_the_committed_tables_are_valid(repo_copy) -> None:
    assert table_problems(repo_copy) == []


def test_what_frictionless_accepts_is_accepted(repo_copy) -> None:
    """An integral float is an integer to frictionless; an extra key or another key order is no fault."""
    rows("index.json", set_cell(2, max_num_seqs=2.0))(repo_copy / "data")
    rows("index.json", set_cell(6, colour="green"))(repo_copy / "data")
    rows("models.json", lambda items: items.__setitem__(0, dict(reversed(items[0].items()))))(repo_copy / "data")
    assert table_problems(repo_copy) == []


def descriptor(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = root / "datapackage.json"
    desc = json.loads(path.read_text())
    change(desc)
    path.write_text(json.dumps(desc, indent=2) + "\n")


def table(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda desc: change(next(r for r in desc["resources"] if r["name"] == name))


HAND_EDITS = [
    ("keys-missing-one", table("index-rows", lambda r: r["dialect"]["json"]["keys"].pop(3)), "/resources/0/dialect/json/keys"),
    ("wrong-property", table("index-rows", lambda r: r["dialect"]["json"].update(property="row")), "/resources/0/dialect/json/property"),
    ("format-csv", table("model-list", lambda r: r.update(format="csv")), "/resources/1/format"),
    ("format-gsheets", table("configurations", lambda r: r.update(format="gsheets")), "/resources/11/format"),
    ("field-type", table("index-rows", lambda r: r["schema"]["fields"][8].update(type="integer")), "/resources/0/schema/fields/8/type"),
    ("fk-to-nothing", table("index-rows", lambda r: r["schema"]["foreignKeys"][0]["reference"].update(resource="nothing")), "/resources/0/schema/foreignKeys/0/reference/resource"),
    ("path-outside", table("configurations", lambda r: r.update(path="../outside.csv")), "/resources/11/path"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "where"), slow_after([pytest.param(c, w, id=n) for n, c, w in HAND_EDITS], fast=2))
def test_a_hand_edited_table_resource_is_reported_and_no_table_reaches_frictionless(repo_copy, change, where) -> None:
    descriptor(repo_copy, change)
    problems, tables = check_package(load_tree(repo_copy / "data"), {}, None)
    assert where in [p.where for p in problems], [str(p) for p in problems]
    assert tables == []
