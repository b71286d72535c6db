"""The schema-compatibility guard tells a widening (only additions) from a narrowing, CSV columns
included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from builder.release.compat import SchemaChange, is_widening, table_changes, verdict
from helpers import REPO

NEW_COLUMNS = [
    "joules_per_response",
    "wh_per_thousand_responses",
    "params_b",
    "active_params_b",
    "architecture",
]


def table(name: str, *columns: tuple[str, str]) -> dict:
    return {"name": name, "schema": {"fields": [{"name": n, "type": t} for n, t in columns]}}


def test_table_changes_name_each_kind() -> None:
    old = {
        "resources": [
            table("t", ("a", "string"), ("b", "number")),
            table("u", ("a", "string")),
            {"name": "d"},
        ]
    }
    new = {
        "resources": [
            table("t", ("a", "string"), ("b", "integer"), ("c", "number")),
            table("u"),
            {"name": "e"},
        ]
    }
    assert [str(c) for c in table_changes(json.dumps(old).encode(), json.dumps(new).encode())] == [
        "datapackage.json /resources/d: resource removed",
        "datapackage.json /resources/e: resource added",
        "datapackage.json /resources/t/c: column appended: number",
        "datapackage.json /resources/t/b: column retyped: number -> integer",
        "datapackage.json /resources/u/a: column removed: string",
    ]
    swapped = {"resources": [table("t", ("b", "number"), ("a", "string"))]}
    unswapped = {"resources": [old["resources"][0]]}
    assert [
        c.kind for c in table_changes(json.dumps(unswapped).encode(), json.dumps(swapped).encode())
    ] == ["columns reordered"]


def test_a_required_field_is_a_widening_only_when_the_field_is_new() -> None:
    added = SchemaChange("w.schema.json", "/x[]/f", "field added", "string")
    required = SchemaChange("w.schema.json", "/x[]", "required added", "f")
    assert is_widening(required, [added, required])
    assert not is_widening(required, [required])
    assert verdict([added, required]).startswith("Widening: ")
    assert (
        verdict([required])
        == "Narrowing: 1 change(s) remove or restrict what readers relied on: w.schema.json /x[]: "
        "required added: f"
    )


# appended by issue 21
WORKLOAD_COLUMNS = (
    "frontier_url",
    "kind",
    "unit",
    "latency_metric",
    "latency_limit",
)


def before_frontier(root: Path) -> Path:
    """The package's schemas and descriptor as they were before issue 21: no frontier, no new CSV
    columns, no workload kind or latency rule."""
    old = root / "old"
    shutil.copytree(REPO / "schemas", old / "schemas")
    (old / "schemas" / "frontier.schema.json").unlink()
    workloads = json.loads((old / "schemas" / "workload-list.schema.json").read_text())
    items = workloads["properties"]["workloads"]["items"]
    for key in WORKLOAD_COLUMNS:
        if key in items["required"]:
            items["required"].remove(key)
        del items["properties"][key]
    del items["if"], items["then"]
    (old / "schemas" / "workload-list.schema.json").write_text(json.dumps(workloads))
    desc = json.loads((REPO / "datapackage.json").read_text())
    desc["resources"] = [
        r for r in desc["resources"] if not r["name"].startswith("frontier-document")
    ]
    for res in desc["resources"]:
        if res["name"] == "configurations":
            res["schema"]["fields"] = [
                f for f in res["schema"]["fields"] if f["name"] not in NEW_COLUMNS
            ]
    (old / "datapackage.json").write_text(json.dumps(desc))
    return old


def test_schema_diff_records_the_frontier_and_the_columns_as_a_widening(
    tmp_path: Path, cli
) -> None:
    result = cli("schema-diff", str(before_frontier(tmp_path)), str(REPO))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    appended = [f"datapackage.json /resources/configurations/{c}" for c in sorted(NEW_COLUMNS)]
    assert [line.split(":")[0] for line in lines if "column appended" in line] == appended
    assert "datapackage.json /resources/frontier-document-video-chat: resource added" in lines
    assert "frontier.schema.json /: schema added" in lines
    assert "workload-list.schema.json /workloads[]/frontier_url: field added: string" in lines
    assert (
        lines[-1]
        == "Widening: every change adds (a schema, a field, an enum value, a resource or a column)."
    )
