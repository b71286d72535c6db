"""The negative corpus: one named hand edit per rule; each must fail `builder validate` by name.

Every case edits a scratch copy of the committed package the way a contributor might, then
asserts a non-zero exit and a message naming the file, the place and the rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.validate import run
from builder.validate.tree import load_tree
from edits import edit
from helpers import slow_after
from rules import rule_findings
from test_problem_codes import check_fields

Q8 = "models/qwen-3-8b.json"
Q30 = "models/qwen-3-30b-a3b-instruct.json"


def conf(i: int, **values: Any) -> Callable[[Any], None]:
    return lambda doc: doc["configurations"][i].update(values)


def text(rel: str, change: Callable[[str], str]) -> Callable[[Path], None]:
    def apply(data: Path) -> None:
        (data / rel).write_text(change((data / rel).read_text()))

    return apply


def swap_rows(doc: dict) -> None:
    doc["rows"][0], doc["rows"][1] = doc["rows"][1], doc["rows"][0]


def rename(old: str, new: str) -> Callable[[Path], None]:
    return lambda data: (data / old).rename(data / new)


def best_becomes(i: int) -> Callable[[Any], None]:
    return lambda doc: doc["best"].__setitem__("B200", dict(doc["configurations"][i]))


def index_wh(doc: dict) -> None:
    doc["rows"][1]["wh_per_million_output_tokens"] += 1


def drop_resource(rel: str) -> Callable[[Any], None]:
    return lambda desc: desc.update(
        resources=[r for r in desc["resources"] if r["path"] != f"data/{rel}"]
    )


SCHEMA = [
    (
        "missing-field",
        edit(Q8, lambda d: d.pop("architecture")),
        "/: expected required property 'architecture'",
    ),
    (
        "extra-field",
        edit(Q8, lambda d: d.update(notes="x")),
        "/: expected no properties beyond the schema's, found 'notes'",
    ),
    (
        "string-for-number",
        edit(Q8, conf(0, num_gpus="1")),
        '/configurations/0/num_gpus: expected type "integer"',
    ),
    (
        "float-for-integer",
        edit(Q8, conf(0, num_gpus=1.0)),
        '/configurations/0/num_gpus: expected type "integer"',
    ),
    (
        "zero-energy",
        edit(Q8, conf(0, joules_per_output_token=0)),
        "/configurations/0/joules_per_output_token: expected a value > 0",
    ),
    (
        "zero-parallel-degree",
        edit(Q8, conf(0, tensor_parallel=0)),
        "/configurations/0/tensor_parallel: expected a value >= 1",
    ),
    (
        "unknown-precision",
        edit(Q8, conf(0, precision="INT4")),
        '/configurations/0/precision: expected enum ["BF16", "FP8", "MXFP4"]',
    ),
    ("bad-slug", edit(Q8, lambda d: d.update(slug="Qwen 3 8B")), "/slug: expected pattern"),
    (
        "bad-row-id",
        edit(Q8, conf(0, row_id="qwen-3-8b/B200/1")),
        "/configurations/0/row_id: expected pattern",
    ),
    (
        "impossible-date",
        edit(Q8, lambda d: d.update(updated="2026-02-30", data_version="2026-02-30")),
        "/updated: expected format date",
    ),
    (
        "bad-url",
        edit("models.json", lambda d: d["models"][0].update(url="ftp://x")),
        "/models/0/url: expected pattern",
    ),
    (
        "wrong-version",
        edit("index.json", lambda d: d.update(version="2")),
        '/version: expected const "1"',
    ),
    (
        "nan",
        text(Q8, lambda t: re.sub(r'"p99_itl_ms": [0-9.]+', '"p99_itl_ms": NaN', t, count=1)),
        "found NaN",
    ),
    ("truncated-file", text(Q8, lambda t: t[: len(t) // 2]), "expected valid JSON"),
]

CONSISTENCY = [
    (
        "index-row-of-no-model",
        edit("index.json", lambda d: d["rows"][0].update(slug="no-such-model")),
        "data/index.json: /rows/0: expected a best configuration for ('no-such-model', 'B200'), "
        "found none",
    ),
    (
        "index-row-differs-from-best",
        edit("index.json", index_wh),
        "data/index.json: /rows/1/wh_per_million_output_tokens: expected",
    ),
    (
        "index-row-missing",
        edit("index.json", lambda d: d["rows"].pop(1)),
        "expected a row for models/qwen-3-8b.json best[B200]",
    ),
    (
        "index-row-twice",
        edit("index.json", lambda d: d["rows"].insert(1, d["rows"][1])),
        "expected one row per model and GPU",
    ),
    (
        "index-out-of-energy-order",
        edit("index.json", swap_rows),
        "data/index.json: /rows/1: expected rows in ascending joules_per_output_token",
    ),
    (
        "reference-row-names-none",
        edit("index.json", lambda d: d["reference_row"].update(num_gpus=3)),
        "/reference_row: expected exactly one row",
    ),
    (
        "model-list-entry-missing",
        edit("models.json", lambda d: d["models"].pop(0)),
        "data/models.json: /models: expected an entry for models/deepseek-v3-1.json",
    ),
    (
        "model-file-deleted",
        lambda data: (data / Q8).unlink(),
        "expected a file models/qwen-3-8b.json, found none",
    ),
    (
        "file-name-is-not-slug",
        rename(Q8, "models/qwen3-8b.json"),
        "data/models/qwen3-8b.json: /slug: expected the file name models/qwen-3-8b.json",
    ),
    (
        "model-list-name-differs",
        edit("models.json", lambda d: d["models"][0].update(name="DeepSeek")),
        '/models/0/name: expected "DeepSeek V3.1" as in models/deepseek-v3-1.json, found '
        '"DeepSeek"',
    ),
    (
        "model-list-gpus-differ",
        edit("models.json", lambda d: d["models"][1].update(gpus=["H100"])),
        '/models/1/gpus/0: expected "B200" as in models/gemma-3-12b.json, found "H100"',
    ),
    (
        "model-list-url-not-from-slug",
        edit(
            "models.json",
            lambda d: d["models"][0].update(url="https://leadgreen.ai/api/v1/models/other.json"),
        ),
        '/models/0/url: expected "https://leadgreen.ai/api/v1/models/deepseek-v3-1.json"',
    ),
    (
        "model-list-page-not-from-slug",
        edit(
            "models.json",
            lambda d: d["models"][0].update(page="https://leadgreen.ai/models/other/"),
        ),
        '/models/0/page: expected "https://leadgreen.ai/models/deepseek-v3-1/"',
    ),
    (
        "model-list-unsorted",
        edit("models.json", lambda d: d["models"].reverse()),
        "data/models.json: /models: expected entries sorted by slug",
    ),
    (
        "shared-header-differs",
        edit(Q8, lambda d: d.update(caveat="Different.")),
        'data/models/qwen-3-8b.json: /caveat: expected "GPU energy only, measured at steady state '
        "on a busy server (the most energy-efficient configuration under a latency limit). Host, "
        "network, cooling and idle time are not counted. Every figure is a ... as in "
        'data/index.json, found "Different."',
    ),
    (
        "source-differs",
        edit("models.json", lambda d: d["source"].update(retrieved="2026-01-01")),
        'data/models.json: /source/retrieved: expected "2026-09-26" as in data/index.json, found '
        '"2026-01-01"',
    ),
    (
        "updated-not-data-version",
        edit(Q8, lambda d: d.update(updated="2026-10-01")),
        "/updated: expected data_version 2026-09-27, found 2026-10-01",
    ),
    (
        "gpus-not-configuration-gpus",
        edit(Q8, lambda d: d.update(gpus=["B200"])),
        "/gpus: expected the configurations' GPUs ['B200', 'H100']",
    ),
    (
        "best-not-lowest",
        edit(Q8, best_becomes(0)),
        "/best/B200: expected the lowest-energy configuration under the deadline, "
        "qwen-3-8b/B200/1/1536",
    ),
    (
        "best-gpu-missing",
        edit(Q8, lambda d: d["best"].pop("H100")),
        "/best: expected GPUs ['B200', 'H100']",
    ),
    (
        "best-copy-differs",
        edit(Q8, lambda d: d["best"]["B200"].update(p99_itl_ms=999.0)),
        "/best/B200: expected a copy of configuration qwen-3-8b/B200/1/1536 repeat 1, found "
        "p99_itl_ms differing",
    ),
    (
        "row-id-disagrees",
        edit(Q8, conf(0, row_id="qwen-3-8b/B200/1/9")),
        "/configurations/0/row_id: expected qwen-3-8b/B200/1/8",
    ),
    (
        "repeat-gap",
        edit(Q30, conf(25, repeat=3)),
        "/configurations/25/repeat: expected 2 (repeats count 1, 2, ... per row_id), found 3",
    ),
    ("repeat-duplicated", edit(Q30, conf(25, repeat=1)), "/configurations/25/repeat: expected 2"),
    (
        "configurations-out-of-order",
        edit(Q8, lambda d: d["configurations"].reverse()),
        "expected configurations ordered by (gpu, num_gpus, max_num_seqs)",
    ),
    (
        "csv-disagrees",
        text("configurations.csv", lambda t: t.replace(",3854,", ",3855,", 1)),
        "data/configurations.csv: line 2: expected",
    ),
    (
        "csv-row-missing",
        text("configurations.csv", lambda t: t[: t.rindex("\n", 0, -1) + 1]),
        "data/configurations.csv: line",
    ),
    (
        "stray-file",
        lambda data: (data / "notes.txt").write_text("hi\n"),
        "data/notes.txt: /: expected only published files, found a stray file",
    ),
    (
        "stray-model-file",
        lambda data: (data / "models" / "old.json.bak").write_text("{}\n"),
        "data/models/old.json.bak: /: expected only published files",
    ),
    (
        "dotfile-model-document",
        lambda data: (data / "models" / ".qwen-3-8b.json").write_bytes(
            (data / "models" / "qwen-3-8b.json").read_bytes()
        ),
        "data/models/.qwen-3-8b.json: /: expected only published files, found a stray file",
    ),
    (
        "editor-backup-and-swap-file",
        lambda data: [
            (data / "models" / name).write_text("{}\n")
            for name in ("qwen-3-8b.json~", ".qwen-3-8b.json.swp")
        ],
        "data/models/qwen-3-8b.json~: /: expected only published files, found a stray file",
    ),
    (
        "index-deleted",
        lambda data: (data / "index.json").unlink(),
        "data/index.json: /: expected this file, found it missing",
    ),
]

PHYSICS = [
    (
        "wh-not-from-joules",
        edit(Q8, conf(3, wh_per_million_output_tokens=99.0)),
        "/configurations/3/wh_per_million_output_tokens: expected J x 10^6 / 3600",
    ),
    (
        "joules-not-power-over-rate",
        edit(Q8, conf(3, gpu_power_watts_total=900)),
        "/configurations/3/joules_per_output_token: expected power / tokens per second",
    ),
    (
        "percentiles-out-of-order",
        edit(Q8, conf(3, p95_itl_ms=1.0)),
        "/configurations/3/p90_itl_ms: expected median <= p90 <= p95 <= p99",
    ),
    (
        "more-in-flight-than-seqs",
        edit(Q8, conf(0, avg_requests_in_flight=9.0, avg_running_batch=9.0)),
        "/configurations/0/avg_requests_in_flight: expected at most max_num_seqs = 8",
    ),
    (
        "deadline-flag-wrong",
        edit(Q8, conf(0, under_itl_deadline=False)),
        "/configurations/0/under_itl_deadline: expected true",
    ),
    (
        "num-gpus-not-layout",
        edit(Q8, conf(0, num_gpus=2, row_id="qwen-3-8b/B200/2/8")),
        "/configurations/0/num_gpus: expected max(tensor_parallel x data_parallel, "
        "expert_parallel) = 1",
    ),
]

DESCRIPTOR = [
    (
        "descriptor-lists-a-missing-file",
        lambda data: _descriptor(
            data,
            lambda d: d["resources"].append(
                {**d["resources"][-1], "name": "gone", "path": "data/models/gone.json"}
            ),
        ),
        "datapackage.json: /resources/",
    ),
    (
        "descriptor-misses-a-file",
        lambda data: _descriptor(data, drop_resource(Q8)),
        'datapackage.json: /resources: expected a resource "model-qwen-3-8b" for '
        "data/models/qwen-3-8b.json, found none",
    ),
    (  # frictionless takes a size of 0 as none listed: validate compares it with the file's
        "descriptor-size-zero",
        lambda data: _descriptor(data, lambda d: d["resources"][3].update(bytes=0)),
        "datapackage.json: /resources/3/bytes: expected ",
    ),
    (  # and a hash without digits as none listed
        "descriptor-hash-without-digits",
        lambda data: _descriptor(data, lambda d: d["resources"][0].update(hash="sha256:")),
        'datapackage.json: /resources/0/hash: expected "sha256:',
    ),
    (
        "descriptor-document-as-table",
        lambda data: _descriptor(data, lambda d: d["resources"][2].update(type="table")),
        'datapackage.json: /resources/2/type: expected no such key, found "table"',
    ),
]

TABLES = [
    (
        "hash-stale",
        text(Q8, lambda t: json.dumps(json.loads(t), indent=4) + "\n"),
        "/hash: expected sha256:",
    ),
    (
        "csv-duplicate-key",
        text("configurations.csv", lambda t: t + t.splitlines()[1] + "\n"),
        "data/configurations.csv: row 840: primary-key",
    ),
    (
        "csv-not-a-number",
        text("configurations.csv", lambda t: t.replace(",3854,", ",lots,", 1)),
        "data/configurations.csv: row 2, column gpu_power_watts_total: type-error",
    ),
]


def _descriptor(data: Path, change: Callable[[Any], Any]) -> None:
    path = data.parent / "datapackage.json"
    desc = json.loads(path.read_text())
    change(desc)
    path.write_text(json.dumps(desc, indent=2) + "\n")


CLASSES = (
    ("schema", SCHEMA),
    ("consistency", CONSISTENCY),
    ("physics", PHYSICS),
    ("descriptor", DESCRIPTOR),
    ("tables", TABLES),
)
CASES = [
    pytest.param(apply, expected, id=f"{group}-{name}")
    for group, cases in CLASSES
    for name, apply, expected in cases
]
# Every case by rule in the fast tier (jsonschema on the edited documents alone: tests/rules.py),
# but the table cases, which run frictionless over the whole package (about 1.5 s): the first fast,
# the others slow.
RULE_CASES = [c for c in CASES if not c.id.startswith("tables-")] + slow_after(
    [c for c in CASES if c.id.startswith("tables-")]
)


@pytest.mark.parametrize(("apply", "expected"), RULE_CASES)
def test_hand_edit_is_rejected_by_rule(request, reused_copy, apply, expected) -> None:
    """Each case through the checks themselves (frictionless for the table cases alone), one line
    a problem; each problem of a rule's case has its listed code and both sides (check_fields)."""
    apply(reused_copy / "data")
    tables = request.node.callspec.id.startswith("tables-")
    findings = rule_findings(reused_copy / "data", with_tables=tables)
    found = [str(p) for p in findings]
    assert any(expected in line for line in found), found
    assert all(
        line.startswith(("data/", "datapackage.json")) and "\n" not in line for line in found
    ), found
    if not tables:
        check_fields(findings)


# One case per class through `builder validate` (about 2 s each), all slow: every variant of the
# non-table classes runs by rule in the fast tier, and the table class's CLI case was slow already.
ONE_PER_CLASS = slow_after(
    [
        next(c for c in CASES if c.id.startswith(f"{group}-"))
        for group in ("schema", "consistency", "physics", "descriptor", "tables")
    ],
    fast=0,
)


@pytest.mark.parametrize(("apply", "expected"), ONE_PER_CLASS)
def test_hand_edit_is_rejected_by_the_cli(repo_copy, cli, apply, expected) -> None:
    apply(repo_copy / "data")
    result = cli("validate")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[-1].startswith("error: data: ")
    assert all(": " in line for line in lines)
    assert any(expected in line for line in lines), result.output


def test_schema_problems_keep_the_documents_order(repo_copy) -> None:
    """Faults in two documents: one line each, in the tree's order, and neither passes on."""
    data = repo_copy / "data"
    edit("index.json", lambda d: d.update(version="2"))(data)
    last = sorted((data / "models").glob("*.json"))[-1].relative_to(data).as_posix()
    edit(last, conf(0, tensor_parallel=0))(data)
    tree = load_tree(data)
    # jsonschema on four documents, in the tree's order
    kept = (
        "index.json",
        "models.json",
        Q30,
        last,
    )
    tree.docs = {rel: doc for rel, doc in tree.docs.items() if rel in kept}
    problems, passed = run.check_schemas(tree)
    assert [p.path for p in problems] == ["data/index.json", f"data/{last}"]
    assert passed == {rel for rel in tree.docs if rel not in ("index.json", last)} != set()
