"""The negative corpus of the workloads: one named hand edit per rule, inside the new workloads'
documents, the workload list, the CSV and across workloads; each must fail `builder validate`,
naming the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.errors import UpstreamError
from builder.metadata import load_metadata
from builder.upstream import parse_all
from helpers import slow_after
from hostile import assert_refused, run_cli, tree_digest
from rules import rule_problems
from test_validate_corpus import _descriptor, conf, edit, text

IC = "workloads/image-chat"
VC = "workloads/video-chat"
PS = "workloads/problem-solving"
CC = "workloads/code-completion"
GEMMA_IC = f"{IC}/models/gemma-3-12b.json"


def every_document(workload: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    """The same hand edit in every JSON document of one workload but its frontier and output
    lengths, which have no header (so its own documents still agree)."""

    def apply(data: Path) -> None:
        for path in sorted(
            p
            for p in (data / workload).rglob("*.json")
            if p.name not in ("frontier.json", "output-lengths.json")
        ):
            edit(path.relative_to(data).as_posix(), change)(data)

    return apply


def entry(i: int, **values: Any) -> Callable[[Any], None]:
    return lambda doc: doc["workloads"][i].update(values)


def model_entry(slug: str, **values: Any) -> Callable[[Any], None]:
    return lambda doc: next(m for m in doc["models"] if m["slug"] == slug).update(values)


def swap_first_two(doc: dict) -> None:
    doc["workloads"][0], doc["workloads"][1] = doc["workloads"][1], doc["workloads"][0]


def csv_line(workload: str, change: Callable[[str], str]) -> Callable[[str], str]:
    """Change the first CSV row of a workload."""

    def apply(t: str) -> str:
        lines = t.split("\n")
        i = next(i for i, line in enumerate(lines) if line.startswith(f"{workload},"))
        lines[i] = change(lines[i])
        return "\n".join(lines)

    return apply


INDEX = [
    (
        "row-of-no-model",
        edit(f"{IC}/index.json", lambda d: d["rows"][0].update(slug="no-such-model")),
        "data/workloads/image-chat/index.json: /rows/0: expected a best configuration for "
        "('no-such-model', 'B200'), found none",
    ),
    (
        "index-row-differs-from-best",
        edit(f"{IC}/index.json", lambda d: d["rows"][0].update(wh_per_million_output_tokens=30.2)),
        "data/workloads/image-chat/index.json: /rows/0/wh_per_million_output_tokens: expected "
        "29.2 as in workloads/image-chat/models/qwen-3-vl-30b-a3b-instruct.json best[B200], found "
        "30.2",
    ),
    (
        "index-row-missing",
        edit(f"{PS}/index.json", lambda d: d["rows"].pop(0)),
        "data/workloads/problem-solving/index.json: /rows: expected a row for "
        "workloads/problem-solving/models/gpt-oss-20b.json best[B200], found none",
    ),
    (
        "index-row-of-a-model-of-another-workload",
        edit(f"{CC}/index.json", lambda d: d["rows"][0].update(slug="qwen-3-8b")),
        "data/workloads/code-completion/index.json: /rows/0: expected a best configuration for "
        "('qwen-3-8b', 'B200'), found none",
    ),
    (
        "best-not-lowest",
        edit(
            f"{VC}/models/qwen-3-vl-32b-instruct.json",
            lambda d: d["best"].__setitem__("B200", dict(d["configurations"][0])),
        ),
        "data/workloads/video-chat/models/qwen-3-vl-32b-instruct.json: /best/B200: expected the "
        "lowest-energy configuration under the deadline",
    ),
    (
        "reference-row-names-none",
        edit(f"{VC}/index.json", lambda d: d["reference_row"].update(num_gpus=4)),
        "data/workloads/video-chat/index.json: /reference_row: expected exactly one row with "
        "model 'Qwen 3 VL 32B Instruct', gpu H100, num_gpus 4, found 0",
    ),
    (
        "index-names-another-workload",
        edit(f"{VC}/index.json", lambda d: d.update(workload="image-chat")),
        "data/workloads/video-chat/index.json: /workload: expected 'video-chat' (its folder), "
        "found 'image-chat'",
    ),
    (
        "repeat-gap",
        edit(
            f"{PS}/models/gpt-oss-20b.json",
            lambda d: next(c for c in d["configurations"] if c["repeat"] == 2).update(repeat=3),
        ),
        "data/workloads/problem-solving/models/gpt-oss-20b.json: /configurations/",
    ),
    (
        "unknown-precision",
        edit(f"{PS}/models/gpt-oss-20b.json", conf(0, precision="MXFP8")),
        "data/workloads/problem-solving/models/gpt-oss-20b.json: /configurations/0/precision: "
        'expected enum ["BF16", "FP8", "MXFP4"], found "MXFP8"',
    ),
]

MODEL_LIST = [
    (
        "model-list-entry-missing",
        edit(f"{IC}/models.json", lambda d: d["models"].pop(0)),
        "data/workloads/image-chat/models.json: /models: expected an entry for "
        "workloads/image-chat/models/gemma-3-12b.json, found none",
    ),
    (
        "model-file-deleted",
        lambda data: (data / GEMMA_IC).unlink(),
        "data/workloads/image-chat/models.json: /models/0/slug: expected a file "
        "workloads/image-chat/models/gemma-3-12b.json, found none",
    ),
    (
        "model-list-url-of-text-conversation",
        edit(
            f"{IC}/models.json",
            model_entry("gemma-3-12b", url="https://leadgreen.ai/api/v1/models/gemma-3-12b.json"),
        ),
        "data/workloads/image-chat/models.json: /models/0/url: expected "
        '"https://leadgreen.ai/api/v1/workloads/image-chat/models/gemma-3-12b.json", found '
        '"https://leadgreen.ai/api/v1/models/gemma-3-12b.json"',
    ),
    (
        "model-list-page-of-text-conversation",
        edit(
            f"{IC}/models.json",
            model_entry("gemma-3-12b", page="https://leadgreen.ai/models/gemma-3-12b/"),
        ),
        "data/workloads/image-chat/models.json: /models/0/page: expected "
        '"https://leadgreen.ai/workloads/image-chat/models/gemma-3-12b/"',
    ),
    (
        "model-file-moved-to-another-workload",
        lambda data: (data / GEMMA_IC).rename(data / VC / "models" / "gemma-3-12b.json"),
        "data/workloads/video-chat/models.json: /models: expected an entry for "
        "workloads/video-chat/models/gemma-3-12b.json, found none",
    ),
    (
        "source-of-another-workload",
        edit(
            GEMMA_IC,
            lambda d: d.update(
                source=json.loads(
                    (Path(__file__).parent.parent / "data" / "index.json").read_text()
                )["source"]
            ),
        ),
        'data/workloads/image-chat/models/gemma-3-12b.json: /source/workload: expected "Image '
        'Chat (image-chat)" as in data/workloads/image-chat/index.json, found "Text Conversation '
        '(lm-arena-chat)"',
    ),
]

ACROSS = [
    (
        "parameters-disagree-across-workloads",
        edit(GEMMA_IC, lambda d: d.update(params_b=13.0)),
        "data/workloads/image-chat/models/gemma-3-12b.json: /params_b: expected 12.0 as in "
        "data/models/gemma-3-12b.json (the same model in another workload), found 13.0",
    ),
    (
        "architecture-disagrees-across-workloads",
        edit(f"{VC}/models/qwen-3-vl-8b-instruct.json", lambda d: d.update(architecture="Dense")),
        "data/workloads/video-chat/models/qwen-3-vl-8b-instruct.json: /architecture: expected "
        '"Dense Transformer" as in data/workloads/image-chat/models/qwen-3-vl-8b-instruct.json '
        '(the same model in another workload), found "Dense"',
    ),
    (
        "model-id-disagrees-across-workloads",
        edit(f"{PS}/models/qwen-3-8b.json", lambda d: d.update(model_id="Qwen/Qwen3-8B-Thinking")),
        "data/workloads/problem-solving/models/qwen-3-8b.json: /model_id: expected "
        '"Qwen/Qwen3-8B" as in data/models/qwen-3-8b.json (the same model in another workload)',
    ),
    (
        "one-model-id-two-slugs",
        edit(
            f"{CC}/models/qwen-3-coder-30b-a3b.json",
            lambda d: d.update(model_id="Qwen/Qwen3-Coder-480B-A35B-Instruct"),
        ),
        "data/workloads/code-completion/models/qwen-3-coder-480b-a35b.json: /model_id: expected "
        "one slug per model_id, found Qwen/Qwen3-Coder-480B-A35B-Instruct also as "
        "qwen-3-coder-30b-a3b in data/workloads/code-completion/models/qwen-3-coder-30b-a3b.json",
    ),
    (
        "caveat-differs-across-workloads",
        every_document(VC, lambda d: d.update(caveat="Different.")),
        'data/workloads/video-chat/index.json: /caveat: expected "GPU energy only, measured at '
        "steady state on a busy server (the most energy-efficient configuration under a latency "
        "limit). Host, network, cooling and idle time are not counted. Every figure is a ... as "
        'in data/index.json, found "Different."',
    ),
    (
        "shared-source-differs-across-workloads",
        every_document(CC, lambda d: d["source"].update(licence="MIT")),
        'data/workloads/code-completion/index.json: /source/licence: expected "Apache-2.0 per the '
        "ml-energy/benchmark-v3 data",
    ),
    (
        "stray-workload-folder",
        lambda data: (
            (data / "workloads" / "text-to-audio").mkdir()
            or (data / "workloads" / "text-to-audio" / "index.json").write_text(
                (data / IC / "index.json").read_text()
            )
        ),
        "data/workloads.json: /workloads: expected an entry for the workload of "
        "data/workloads/text-to-audio/index.json, found none",
    ),
    (
        "text-conversation-below-workloads",
        lambda data: (
            (data / "workloads" / "text-conversation").mkdir()
            or (data / "workloads" / "text-conversation" / "index.json").write_text("{}\n")
        ),
        "data/workloads/text-conversation/index.json: /: expected only published files, found a "
        "stray file",
    ),
    (
        "workload-index-deleted",
        lambda data: (data / CC / "index.json").unlink(),
        "data/workloads/code-completion/index.json: /: expected this file, found it missing",
    ),
]

WORKLOAD_LIST = [
    (
        "model-count-wrong",
        edit("workloads.json", entry(3, model_count=12)),
        "data/workloads.json: /workloads/3/model_count: expected 11, found 12",
    ),
    (
        "configuration-count-wrong",
        edit("workloads.json", entry(1, configuration_count=186)),
        "data/workloads.json: /workloads/1/configuration_count: expected 187, found 186",
    ),
    (
        "index-url-wrong",
        edit("workloads.json", entry(4, index_url="https://leadgreen.ai/api/v1/index.json")),
        "data/workloads.json: /workloads/4/index_url: expected "
        '"https://leadgreen.ai/api/v1/workloads/video-chat/index.json", found '
        '"https://leadgreen.ai/api/v1/index.json"',
    ),
    (
        "models-url-wrong",
        edit(
            "workloads.json",
            entry(
                0, models_url="https://leadgreen.ai/api/v1/workloads/text-conversation/models.json"
            ),
        ),
        "data/workloads.json: /workloads/0/models_url: expected "
        '"https://leadgreen.ai/api/v1/models.json", found '
        '"https://leadgreen.ai/api/v1/workloads/text-conversation/models.json"',
    ),
    (
        "data-url-wrong",
        edit("workloads.json", entry(2, data_url="https://example.org/fim.json")),
        "data/workloads.json: /workloads/2/data_url: expected "
        '"https://raw.githubusercontent.com/ml-energy/leaderboard/master/public/data/tasks/sourcegraph-fim.json", found "https://example.org/fim.json"',
    ),
    (
        "task-wrong",
        edit("workloads.json", entry(2, task="fim")),
        "data/workloads.json: /workloads/2: expected name and task as in source.workload 'Code "
        "Completion (sourcegraph-fim)', found 'Code Completion (fim)'",
    ),
    (
        "entry-missing",
        edit("workloads.json", lambda d: d["workloads"].pop(3)),
        "data/workloads.json: /workloads: expected an entry for the workload of "
        "data/workloads/image-chat/index.json, found none",
    ),
    (
        "entry-twice",
        edit("workloads.json", lambda d: d["workloads"].append(d["workloads"][1])),
        "data/workloads.json: /workloads/7/id: expected each workload once, found problem-solving "
        "again",
    ),
    (
        "entry-without-documents",
        edit(
            "workloads.json",
            lambda d: d["workloads"].append({**d["workloads"][1], "id": "text-to-audio"}),
        ),
        "data/workloads.json: /workloads/7/id: expected a file "
        "data/workloads/text-to-audio/index.json, found none",
    ),
    (
        "text-conversation-not-first",
        edit("workloads.json", swap_first_two),
        "data/workloads.json: /workloads/0/id: expected text-conversation first, found "
        "problem-solving",
    ),
    (
        "workload-list-deleted",
        lambda data: (data / "workloads.json").unlink(),
        "data/workloads.json: /: expected this file, found it missing",
    ),
]

TABLES = [
    (
        "csv-workload-column-wrong",
        text(
            "configurations.csv",
            csv_line("image-chat", lambda line: "video-chat" + line[len("image-chat") :]),
        ),
        "data/configurations.csv: line 567: expected",
    ),
    (
        "csv-name-differs",
        text(
            "configurations.csv",
            csv_line(
                "code-completion",
                lambda line: line.replace("Qwen 3 Coder 30B A3B", "Qwen3 Coder", 1),
            ),
        ),
        "data/configurations.csv: line 517: expected",
    ),
    (
        "descriptor-misses-a-workload-document",
        lambda data: _descriptor(
            data,
            lambda d: d.update(
                resources=[r for r in d["resources"] if r["path"] != f"data/{GEMMA_IC}"]
            ),
        ),
        'datapackage.json: /resources: expected a resource "model-image-chat.gemma-3-12b" for '
        "data/workloads/image-chat/models/gemma-3-12b.json, found none",
    ),
]


CLASSES = (
    ("index", INDEX),
    ("model-list", MODEL_LIST),
    ("across", ACROSS),
    ("workload-list", WORKLOAD_LIST),
    ("tables", TABLES),
)
CASES = [
    pytest.param(apply, expected, id=f"{group}-{name}")
    for group, cases in CLASSES
    for name, apply, expected in cases
]
# Every case by rule in the fast tier (jsonschema on the edited documents alone: tests/rules.py).


@pytest.mark.parametrize(("apply", "expected"), CASES)
def test_hand_edit_in_a_workload_is_rejected_by_rule(reused_copy, apply, expected) -> None:
    """Each case through validate's checks but frictionless's, one line a problem."""
    apply(reused_copy / "data")
    found = rule_problems(reused_copy / "data")
    assert any(expected in line for line in found), found
    assert all(
        line.startswith(("data/", "datapackage.json")) and "\n" not in line for line in found
    ), found


# One case per class through `builder validate` (about 2 s each), all slow: every variant of the
# non-table classes runs by rule in the fast tier, and the table class's CLI case was slow already.
ONE_PER_CLASS = slow_after(
    [
        next(c for c in CASES if c.id.startswith(f"{group}-"))
        for group in ("index", "model-list", "across", "workload-list", "tables")
    ],
    fast=0,
)


@pytest.mark.parametrize(("apply", "expected"), ONE_PER_CLASS)
def test_hand_edit_in_a_workload_is_rejected_naming_the_file(repo_copy, apply, expected) -> None:
    apply(repo_copy / "data")
    outcome = run_cli("validate")
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.exit_code == 1, outcome.output
    lines = outcome.output.splitlines()
    assert lines[-1].startswith("error: data: ")
    assert any(expected in line for line in lines), outcome.output


# Bad upstream files for any task: `builder build --upstream TASK=FILE` refuses each, naming the
# file, and the pin and every output stay as they were.

TASKS = ("lm-arena-chat", "gpqa", "sourcegraph-fim", "image-chat", "video-chat")
PIN = Path(__file__).resolve().parent.parent / "upstream"
SHARED_MODEL = {  # a model each task shares with another task (sourcegraph-fim shares none)
    "lm-arena-chat": ("Qwen/Qwen3-14B", "gpqa"),
    "gpqa": ("Qwen/Qwen3-14B", "lm-arena-chat"),
    "image-chat": ("google/gemma-3-12b-it", "lm-arena-chat"),
    "video-chat": ("Qwen/Qwen3-VL-8B-Instruct", "image-chat"),
}


def pinned(task: str, change: Callable[[dict], None] | None = None) -> bytes:
    doc = json.loads((PIN / f"{task}.json").read_bytes())
    if change:
        change(doc)
    return json.dumps(doc).encode()


def first_row(**values: Any) -> Callable[[dict], None]:
    return lambda doc: doc["configurations"][0].update(values)


def rename_first_model(nickname: str) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        first = doc["configurations"][0]["model_id"]
        for row in doc["configurations"]:
            if row["model_id"] == first:
                row["nickname"] = nickname

    return change


UPSTREAM = [
    (
        "truncated",
        lambda task: (PIN / f"{task}.json").read_bytes()[:5000],
        "expected valid JSON, found",
    ),
    (
        "nan-power",
        lambda task: pinned(task, first_row(avg_power_watts=float("nan"))),
        "/configurations/0/avg_power_watts",
    ),
    (
        "unknown-precision",
        lambda task: pinned(task, first_row(weight_precision="int4")),
        'expected one of bfloat16, fp8, mxfp4, found "int4"',
    ),
    (
        "another-task-file",
        lambda task: (PIN / f"{TASKS[(TASKS.index(task) + 1) % 5]}.json").read_bytes(),
        "/task: expected the task file of",
    ),
    (
        "slug-of-another-model",
        lambda task: pinned(task, rename_first_model("Gemma 3 27B")),
        "expected one model per slug",
    ),
]


# Every defect for the first task in the fast tier; for the other tasks, the variants are slow.
ANY_TASK = [
    case
    for n, m, e in UPSTREAM
    for case in slow_after([pytest.param(m, e, t, id=f"{n}-{t}") for t in TASKS])
]


@pytest.mark.parametrize(("make", "expected", "task"), ANY_TASK)
def test_bad_upstream_for_any_task_is_refused(task, make, expected) -> None:
    inputs = {t: ((PIN / f"{t}.json").read_bytes(), f"upstream/{t}.json") for t in TASKS}
    with pytest.raises(UpstreamError) as caught:
        parse_all(
            {**inputs, task: (make(task), "bad.json")}, load_metadata(PIN.parent / "metadata.toml")
        )
    lines = [str(problem) for problem in caught.value.problems]
    assert any(line.startswith("bad.json: ") and expected in line for line in lines), lines


# Each a whole build, all slow (test_bad_upstream_for_any_task_is_refused
# has every defect by the parser).
@pytest.mark.parametrize(
    ("make", "expected", "task"),
    slow_after(
        [pytest.param(m, e, TASKS[i % 5], id=n) for i, (n, m, e) in enumerate(UPSTREAM)], fast=0
    ),
)
def test_bad_upstream_through_build_is_refused_and_changes_nothing(
    repo_copy, task, make, expected
) -> None:
    """The repo copy holds the pin and a full build of it (data/, datapackage.json): none of it
    may change."""
    bad = repo_copy / f"bad-{task}.json"
    bad.write_bytes(make(task))
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--upstream", f"{task}={bad}", "--date", "2026-12-01")
    assert_refused(
        outcome, 1, (f"{bad}: ", expected, "nothing was written"), before, tree_digest(repo_copy)
    )


# each a build
@pytest.mark.parametrize("task", slow_after([pytest.param(t, id=t) for t in sorted(SHARED_MODEL)]))
def test_a_model_whose_parameters_disagree_with_another_task_is_refused(repo_copy, task) -> None:
    model, other = SHARED_MODEL[task]

    def change(doc: dict) -> None:
        for row in doc["configurations"]:
            if row["model_id"] == model:
                row["activated_params_billions"] -= 1.0  # still at most total_params_billions

    bad = repo_copy / f"bad-{task}.json"
    bad.write_bytes(pinned(task, change))
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--upstream", f"{task}={bad}", "--date", "2026-12-01")
    want = f"model {model}: expected one activated_params_billions per model"
    assert_refused(outcome, 1, (want, "nothing was written"), before, tree_digest(repo_copy))
    line = next(line for line in outcome.output.splitlines() if want in line)
    assert f"upstream/{other}.json" in line or line.startswith(f"upstream/{other}.json"), line
