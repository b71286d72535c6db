"""Output lengths: the per-model upstream files' rules, the quantile estimate, and validate's
checks of the document."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.errors import UpstreamError
from builder.lengths import quantile
from builder.upstream import parse_upstream
from builder.upstream_models import (
    Histogram,
    edge_means,
    mean_fault,
    parse_model_file,
    parse_model_files,
)
from edits import edit
from factory import row, upstream
from hostile import assert_refused, run_cli, tree_digest
from rules import rule_problems

NAME = "test-org__Test-Model-7B__lm-arena-chat"
SHOWN = "models/x.json"
HIST = {"bins": [0.0, 512.0, 1024.0], "counts": [5, 5]}
MODEL_LEVEL = (
    "nickname",
    "model_id",
    "architecture",
    "total_params_billions",
    "activated_params_billions",
)
PARALLEL = ("tensor_parallel", "data_parallel", "expert_parallel")


def rows(**overrides: Any) -> list:
    found, _ = parse_upstream(
        json.dumps(upstream([row(**overrides)])).encode(), "task.json", "lm-arena-chat"
    )
    return found


def model_file(**overrides: Any) -> dict[str, Any]:
    """A sound per-model file of factory.row()'s model, its one configuration as that row."""
    base = row(**overrides)
    conf = {k: v for k, v in base.items() if k not in (*MODEL_LEVEL, *PARALLEL, "weight_precision")}
    conf["parallelization"] = {k: base[k] for k in PARALLEL} | {"notes": ""}
    conf["output_length_distribution"] = copy.deepcopy(HIST)
    head = {
        k: base[k]
        for k in ("model_id", "architecture", "total_params_billions", "activated_params_billions")
    }
    head |= {"task": "lm-arena-chat", "weight_precision": "bfloat16"}
    return head | {"output_length_distribution": copy.deepcopy(HIST), "configurations": [conf]}


def refusal(doc: dict[str, Any], name: str = NAME, **row_overrides: Any) -> list[str]:
    with pytest.raises(UpstreamError) as caught:
        parse_model_file(json.dumps(doc).encode(), SHOWN, name, rows(**row_overrides))
    return [str(p) for p in caught.value.problems]


def changed(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    doc = model_file()
    change(doc)
    return doc


def conf0(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["configurations"][0]


def test_quantile_interpolates_inside_the_bin_that_reaches_the_share() -> None:
    lengths = Histogram((0.0, 10.0, 20.0, 30.0), (2, 6, 2))
    assert quantile(lengths, 0.5) == 15.0  # 5 of 10: 3 of the 6 in [10, 20)
    assert quantile(lengths, 0.9) == 25.0  # 9 of 10: 1 of the 2 in [20, 30]
    assert quantile(Histogram((0.0, 10.0, 20.0), (0, 4)), 0.5) == 15.0  # an empty bin is skipped


def test_the_mean_of_binned_lengths_lies_between_its_edge_means() -> None:
    lengths = Histogram((0.0, 10.0, 20.0, 30.0), (2, 6, 2))
    assert edge_means(lengths) == (10.0, 20.0)
    assert mean_fault(lengths, 15.0) is None
    assert (
        mean_fault(lengths, 20.5)
        == "expected the average of the binned lengths, between 10.0 and 20.0 tokens, found 20.5"
    )


def test_a_sound_per_model_file_gives_its_histograms() -> None:
    found = parse_model_file(json.dumps(model_file()).encode(), SHOWN, NAME, rows())
    assert (found.model_id, found.task, found.lengths) == (
        "test-org/Test-Model-7B",
        "lm-arena-chat",
        Histogram((0.0, 512.0, 1024.0), (5, 5)),
    )
    assert found.configurations == (Histogram((0.0, 512.0, 1024.0), (5, 5)),)


def _more(doc: dict[str, Any]) -> None:
    doc["configurations"].append(copy.deepcopy(conf0(doc)))


def _all_bins(bins: list[float]) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        doc["output_length_distribution"]["bins"] = bins
        conf0(doc)["output_length_distribution"]["bins"] = list(bins)

    return apply


M = f"{SHOWN}: /output_length_distribution"
C = f"{SHOWN}: /configurations/0"
UPSTREAM_CORPUS = [
    (
        "name-not-the-model",
        lambda d: d.update(model_id="test-org/Other-7B"),
        {},
        f"{SHOWN}: /model_id: expected the model and task its file name {NAME} says "
        f'("test-org__Other-7B__lm-arena-chat"), found another',
    ),
    (
        "model-not-in-the-task",
        lambda d: d.update(model_id="test-org/Other-7B"),
        {"name": "test-org__Other-7B__lm-arena-chat"},
        f'{SHOWN}: /model_id: expected a model of the task file, found "test-org/Other-7B", which '
        f"it lacks",
    ),
    (
        "model-field-differs",
        lambda d: d.update(total_params_billions=8.0),
        {},
        f"{SHOWN}: /total_params_billions: expected 7.0, as in the task file, found 8.0",
    ),
    (
        "configuration-count",
        _more,
        {},
        f"{SHOWN}: /configurations: expected 1 configuration(s), as in the task file, found 2",
    ),
    (
        "value-differs",
        lambda d: conf0(d).update(avg_power_watts=601.0),
        {},
        f"{C}/avg_power_watts: expected 600.0, as in the task file, found 601.0",
    ),
    (
        "type-differs",
        lambda d: conf0(d).update(num_gpus=1.0),
        {},
        f"{C}/num_gpus: expected 1, as in the task file, found 1.0",
    ),
    (
        "parallel-degree-differs",
        lambda d: conf0(d)["parallelization"].update(tensor_parallel=2),
        {},
        f"{C}/parallelization/tensor_parallel: expected 1, as in the task file, found 2",
    ),
    (
        "field-missing",
        lambda d: conf0(d).pop("p99_itl_ms"),
        {},
        f"{C}/p99_itl_ms: expected the field the task file's row has, found none",
    ),
    (
        "field-unknown",
        lambda d: conf0(d).update(joules=1.0),
        {},
        f"{C}/joules: expected a field of the task file's rows, found one it does not have",
    ),
    (
        "several-faults-one-line",
        lambda d: conf0(d).update(avg_power_watts=601.0, p90_itl_ms=31.0),
        {},
        f"{C}/avg_power_watts: expected 600.0, as in the task file, found 601.0 (and 1 more "
        f"fault(s) in this file)",
    ),
    (
        "distribution-of-some",
        lambda d: conf0(d).pop("output_length_distribution"),
        {},
        f"{M}: expected a distribution for the model and for each configuration, or none, found "
        f"some",
    ),
    (
        "bins-not-rising",
        _all_bins([0.0, 512.0, 512.0]),
        {},
        f"{M}: expected bin edges that rise strictly, found one at or below the one before (and 1 "
        f"more fault(s) in this file)",
    ),
    (
        "bins-not-counts-plus-one",
        _all_bins([0.0, 512.0]),
        {},
        f"{M}: expected 3 bin edges for 2 counts, found 2 (and 1 more fault(s) in this file)",
    ),
    (
        "configuration-bins-differ",
        lambda d: conf0(d)["output_length_distribution"].update(bins=[0.0, 500.0, 1024.0]),
        {},
        f"{C}/output_length_distribution/bins: expected the model's bins, found others",
    ),
    (
        "configuration-counts-all-zero",
        lambda d: [
            h.update(counts=[0, 0])
            for h in (d["output_length_distribution"], conf0(d)["output_length_distribution"])
        ],
        {},
        f"{C}/output_length_distribution/counts: expected at least one response, found every "
        f"count 0",
    ),
    (
        "model-counts-not-the-sum",
        lambda d: d["output_length_distribution"].update(counts=[5, 4]),
        {},
        f"{M}/counts: expected the sum of the configurations' counts, bin by bin, found another",
    ),
    (
        "mean-outside-its-bins",
        lambda d: conf0(d).update(avg_output_len=900.0, energy_per_request_joules=180.0),
        {"avg_output_len": 900.0, "energy_per_request_joules": 180.0},
        f"{C}/avg_output_len: expected the average of the binned lengths, between 256.0 and 768.0 "
        f"tokens, found 900.0",
    ),
    (
        "count-negative",
        lambda d: d["output_length_distribution"].update(counts=[5, -1]),
        {},
        f"{M}/counts/1: expected a count, an integer from 0 to 2^53, found -1",
    ),
]


@pytest.mark.parametrize(
    ("change", "given", "expected"), [pytest.param(c, g, e, id=n) for n, c, g, e in UPSTREAM_CORPUS]
)
def test_a_per_model_file_breaking_a_rule_is_refused_in_one_line(
    change, given: dict, expected: str
) -> None:
    given = dict(given)
    name = given.pop("name", NAME)
    found = refusal(changed(change), name, **given)
    assert found == [expected]


def test_every_model_of_a_task_with_per_model_files_has_one() -> None:
    two = upstream([row(), row(model_id="test-org/Second-7B", nickname="Second 7B")])
    found, _ = parse_upstream(json.dumps(two).encode(), "task.json", "lm-arena-chat")
    files = {NAME: (json.dumps(model_file()).encode(), SHOWN)}
    with pytest.raises(UpstreamError) as caught:
        parse_model_files(files, {"lm-arena-chat": found}, "upstream/lock.json")
    expected = (
        "upstream/lock.json: /models: expected a per-model file "
        "test-org__Second-7B__lm-arena-chat (a model of lm-arena-chat), found none"
    )
    assert [str(p) for p in caught.value.problems] == [expected]
    # a task without any: none asked
    assert parse_model_files({}, {"lm-arena-chat": found}, "upstream/lock.json") == {}


def test_a_per_model_file_of_no_pinned_task_is_refused() -> None:
    found, _ = parse_upstream(json.dumps(upstream([row()])).encode(), "task.json", "lm-arena-chat")
    files = {
        NAME: (json.dumps(model_file()).encode(), SHOWN),
        "test-org__Test-Model-7B__no-such-task": (json.dumps(model_file()).encode(), "models/y"),
    }
    with pytest.raises(UpstreamError) as caught:
        parse_model_files(files, {"lm-arena-chat": found}, "upstream/lock.json")
    assert [(str(p), p.code) for p in caught.value.problems] == [
        (
            "upstream/lock.json: /models/test-org__Test-Model-7B__no-such-task: expected a file of "
            "a task (lm-arena-chat), found no-such-task",
            "lock.model-task",
        )
    ]


def test_the_published_lengths_hold_upstreams_numbers() -> None:
    """Qwen 3 8B on one B200 at 8 sequences, as the leaderboard's per-model file gives it (and a
    hand check)."""
    from helpers import REPO

    doc = json.loads((REPO / "data" / "output-lengths.json").read_text())
    model = next(m for m in doc["models"] if m["slug"] == "qwen-3-8b")
    conf = model["configurations"][0]
    assert (model["responses"], model["bins"][:3], len(model["bins"]), len(model["counts"])) == (
        27648,
        [2.0, 83.88, 165.76],
        51,
        50,
    )
    assert (conf["row_id"], conf["repeat"], conf["responses"], conf["counts"][:5]) == (
        "qwen-3-8b/B200/1/8",
        1,
        1024,
        [185, 84, 74, 56, 48],
    )
    assert (
        conf["mean_output_tokens"],
        conf["median_output_tokens"],
        conf["p90_output_tokens"],
    ) == (
        638.6728515625,
        521.0,
        1401.2,
    )


F = "output-lengths.json"
Q8 = "/models/17"  # qwen-3-8b
Q8C = f"{Q8}/configurations/0"


def at(pointer: str, change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(doc: Any) -> None:
        node = doc
        for part in pointer.strip("/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        change(node)

    return apply


def _bump_first_count(conf: dict[str, Any]) -> None:
    conf["counts"][0] += 1


VALIDATE_CORPUS = [
    (
        "responses-not-the-sum",
        edit(F, at(Q8C, _bump_first_count)),
        f"data/{F}: {Q8C}/responses: expected the sum of the counts, 1025, found 1024",
    ),
    (
        "model-counts-not-the-sum",
        edit(F, at(Q8, lambda m: m["counts"].__setitem__(0, m["counts"][0] + 1))),
        f"data/{F}: {Q8}/counts: expected the sum of the configurations' counts, bin by bin, "
        f"found another",
    ),
    (
        "median-not-the-rule",
        edit(F, at(Q8C, lambda c: c.update(median_output_tokens=500.0))),
        f"data/{F}: {Q8C}/median_output_tokens: expected 521.0 (quantile_rule at 0.5), found 500.0",
    ),
    (
        "p90-not-the-rule",
        edit(F, at(Q8C, lambda c: c.update(p90_output_tokens=1500.0))),
        f"data/{F}: {Q8C}/p90_output_tokens: expected 1401.2 (quantile_rule at 0.9), found 1500.0",
    ),
    (
        "mean-not-the-model-documents",
        edit(F, at(Q8C, lambda c: c.update(mean_output_tokens=640.0))),
        f"data/{F}: {Q8C}/mean_output_tokens: expected the mean models/qwen-3-8b.json rounds to "
        f"639, found 640.0",
    ),
    (
        "mean-outside-its-bins",
        edit(F, at(Q8C, lambda c: c.update(mean_output_tokens=3000.0))),
        f"data/{F}: {Q8C}/mean_output_tokens: expected the mean of the binned lengths, between "
        f"600.5875781250002 and 682.4675781249999, found 3000.0",
    ),
    (
        "configuration-not-the-model-documents",
        edit(F, at(Q8C, lambda c: c.update(repeat=2))),
        f"data/{F}: {Q8}/configurations: expected the configurations of models/qwen-3-8b.json, in "
        f"its order, found others",
    ),
    (
        "model-id-differs",
        edit(F, at(Q8, lambda m: m.update(model_id="Qwen/Qwen3-9B"))),
        f'data/{F}: {Q8}/model_id: expected "Qwen/Qwen3-8B" (from models/qwen-3-8b.json), found '
        f'"Qwen/Qwen3-9B"',
    ),
    (
        "bins-not-rising",
        edit(F, at(Q8, lambda m: m["bins"].__setitem__(1, 1.0))),
        f"data/{F}: {Q8}/bins: expected edges that rise strictly, found one at or below the one "
        f"before",
    ),
    (
        "slugs-not-the-model-list",
        edit(F, lambda d: d["models"].reverse()),
        f"data/{F}: /models: expected the slugs of models.json",
    ),
    (
        "definition-edited",
        edit(F, lambda d: d.update(definition="Lengths.")),
        f'data/{F}: /definition: expected "Per model, how long its responses were, as the '
        f'leaderboa..., found "Lengths."',
    ),
    (
        "workload-not-its-folder",
        edit(f"workloads/problem-solving/{F}", lambda d: d.update(workload="code-completion")),
        f'data/workloads/problem-solving/{F}: /workload: expected "problem-solving", found '
        f'"code-completion"',
    ),
]


@pytest.mark.parametrize(
    ("apply", "expected"), [pytest.param(a, e, id=n) for n, a, e in VALIDATE_CORPUS]
)
def test_validate_refuses_a_planted_fault_in_output_lengths(reused_copy, apply, expected) -> None:
    apply(reused_copy / "data")
    found = rule_problems(reused_copy / "data")
    assert any(line.startswith(expected) for line in found), found


def _repin(repo: Path, name: str, change: Callable[[dict[str, Any]], Any]) -> None:
    """Edit a pinned per-model file and record its new sha256 and size in the lock (a consistent,
    bad pin)."""
    path = repo / "upstream" / "models" / f"{name}.json"
    doc = json.loads(path.read_bytes())
    change(doc)
    data = json.dumps(doc).encode()
    path.write_bytes(data)
    lock = json.loads((repo / "upstream" / "lock.json").read_bytes())
    lock["models"][name].update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (repo / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")


@pytest.mark.slow  # a whole build; the upstream corpus above words every rule
def test_build_refuses_a_bad_per_model_file_in_one_escaped_line(repo_copy) -> None:
    name = "Qwen__Qwen3-8B__lm-arena-chat"
    _repin(repo_copy, name, lambda d: d["configurations"][3].update(gpu_model="B200\x1b[31m"))
    before = tree_digest(repo_copy)
    outcome = run_cli("build")
    expected = (
        f"upstream/models/{name}.json: /configurations/3/gpu_model: "
        'expected "B200", as in the task file, found "B200\\u001b[31m"'
    )
    assert_refused(outcome, 1, expected, before, tree_digest(repo_copy))
    assert sum(name in line for line in outcome.output.splitlines()) == 1, outcome.output
