"""`builder diff` of frontier and output-lengths documents: each change, its line, the guard."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.diff import diff_trees, load_docs, render_text
from builder.errors import InputError
from builder.release.rules import LARGE_CHANGE_PCT
from helpers import REPO, invoke

FRONTIER = "workloads/gpqa/frontier.json"
LENGTHS = "output-lengths.json"


def point(batch: int, joules: float) -> dict[str, Any]:
    """A frontier entry of model m on H100 at batch size `batch`."""
    return {
        "row_id": f"m/H100/1/{batch}",
        "repeat": 1,
        "gpu": "H100",
        "max_num_seqs": batch,
        "median_itl_ms": 20.0 + batch,
        "mean_output_tokens": 500.0,
        "joules_per_response": joules,
    }


def group() -> dict[str, Any]:
    """Two frontier points, the second the best under 50 ms."""
    return {"frontier": [point(8, 60.0), point(16, 50.0)], "best_under": {"50": point(16, 50.0)}}


def frontier() -> dict[str, Any]:
    """A frontier of one model on one GPU type, the same across GPU types."""
    model = {"slug": "m", "gpus": {"H100": group()}, "across_gpus": group()}
    return {"data_version": "2026-11-29", "models": [model]}


def lengths() -> dict[str, Any]:
    """Output lengths of one model with one configuration."""
    conf = {"row_id": "m/H100/1/8", "repeat": 1, "counts": [1, 2], "mean_output_tokens": 12.5}
    model = {"slug": "m", "bins": [1.0, 10.0, 20.0], "counts": [1, 2], "configurations": [conf]}
    return {"data_version": "2026-11-29", "models": [model]}


def lines(old: dict[str, Any], new: dict[str, Any], summary: bool = False) -> list[str]:
    """The diff's lines after the data version line."""
    return render_text(diff_trees(old, new), summary).splitlines()[1:]


def test_a_frontier_point_s_energy_is_one_line_per_place_it_shows() -> None:
    new = frontier()
    new["models"][0]["gpus"]["H100"]["frontier"][0]["joules_per_response"] = 66.0
    assert lines({FRONTIER: frontier()}, {FRONTIER: new}) == [
        f"{FRONTIER} m:",
        "  ~ H100 frontier m/H100/1/8 #1 joules_per_response: 60.0 -> 66.0 (+10.0 %)",
    ]


def test_a_best_under_pick_that_changed_names_each_value() -> None:
    new = frontier()
    new["models"][0]["across_gpus"]["best_under"]["50"]["joules_per_response"] = 40.0
    assert lines({FRONTIER: frontier()}, {FRONTIER: new}) == [
        f"{FRONTIER} m:",
        "  ~ across_gpus best_under 50 joules_per_response: 50.0 -> 40.0 (-20.0 %)",
    ]


def test_a_frontier_point_added_removed_and_a_pick_gone() -> None:
    new = frontier()
    h100 = new["models"][0]["gpus"]["H100"]
    h100["frontier"] = [point(16, 50.0), point(32, 45.0)]
    h100["best_under"]["50"] = None
    assert lines({FRONTIER: frontier()}, {FRONTIER: new}) == [
        f"{FRONTIER} m:",
        "  + H100 frontier m/H100/1/32 #1",
        "  - H100 frontier m/H100/1/8 #1",
        "  - H100 best_under 50",
    ]


def test_a_histogram_count_and_an_average_length() -> None:
    new = lengths()
    new["models"][0]["configurations"][0]["counts"][1] = 3
    new["models"][0]["configurations"][0]["mean_output_tokens"] = 12500.0
    assert lines({LENGTHS: lengths()}, {LENGTHS: new}) == [
        f"{LENGTHS} m:",
        "  ~ m/H100/1/8 #1 counts[1]: 2 -> 3 (+50.0 %)",
        "  ~ m/H100/1/8 #1 mean_output_tokens: 12.5 -> 12500.0 (+99900.0 %)",
    ]


def test_a_model_or_a_document_one_side_lacks_is_one_line() -> None:
    new = lengths()
    new["models"].append(lengths()["models"][0] | {"slug": "n"})
    assert lines({LENGTHS: lengths()}, {LENGTHS: new, FRONTIER: frontier()}) == [
        f"{LENGTHS} n: added",
        f"{FRONTIER}: added",
    ]


def test_the_guard_counts_1000_times_an_average_length_or_a_frontier_energy() -> None:
    long, costly = lengths(), frontier()
    long["models"][0]["configurations"][0]["mean_output_tokens"] = 12500.0
    costly["models"][0]["gpus"]["H100"]["frontier"][0]["joules_per_response"] = 60000.0
    diff = diff_trees({LENGTHS: lengths(), FRONTIER: frontier()}, {LENGTHS: long, FRONTIER: costly})
    assert diff.large_changes(LARGE_CHANGE_PCT) == [
        f"{LENGTHS} m m/H100/1/8 #1 mean_output_tokens: 12.5 -> 12500.0 (+99900.0 %)",
        f"{FRONTIER} m H100 frontier m/H100/1/8 #1 joules_per_response: 60.0 -> 60000.0"
        " (+99900.0 %)",
    ]


def test_a_histogram_count_is_no_large_change() -> None:
    new = lengths()
    new["models"][0]["configurations"][0]["counts"][0] = 100
    assert diff_trees({LENGTHS: lengths()}, {LENGTHS: new}).large_changes(LARGE_CHANGE_PCT) == []


def test_the_summary_counts_entries_one_line_a_document() -> None:
    new = frontier()
    new["models"][0]["gpus"]["H100"]["frontier"] = [point(16, 55.0), point(32, 45.0)]
    assert lines({FRONTIER: frontier()}, {FRONTIER: new}, summary=True) == [
        f"{FRONTIER}: entries 1 added, 1 removed, 1 changed",
    ]


def edit(path: Path, change: Callable[[Any], None]) -> None:
    doc = json.loads(path.read_bytes())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


@pytest.mark.slow  # the whole command
def test_builder_diff_shows_frontier_and_length_changes_the_guard_stops_on(reused_copy) -> None:
    """Two packages that differ only in a frontier point's energy and an average output length."""
    data = reused_copy / "data"

    def costly(doc: Any) -> None:
        doc["models"][0]["gpus"]["B200"]["frontier"][0]["joules_per_response"] = 7249766.8

    def long(doc: Any) -> None:
        doc["models"][0]["configurations"][0]["mean_output_tokens"] = 11860873.7

    edit(data / "frontier.json", costly)
    edit(data / "workloads" / "problem-solving" / "output-lengths.json", long)
    outcome = invoke("diff", str(REPO / "data"), "data")
    assert outcome.exit_code == 0, outcome.output
    energy = "7249.7668 -> 7249766.8 (+99900.0 %)"
    length = "11860.873737373737 -> 11860873.7 (+99900.0 %)"
    assert outcome.output.splitlines()[1:] == [
        "frontier.json deepseek-v3-1:",
        f"  ~ B200 frontier deepseek-v3-1/B200/8/8 #1 joules_per_response: {energy}",
        "workloads/problem-solving/output-lengths.json deepseek-r1:",
        f"  ~ deepseek-r1/B200/8/8 #1 mean_output_tokens: {length}",
    ]
    diff = diff_trees(load_docs(str(REPO / "data")), load_docs("data"))
    assert diff.large_changes(LARGE_CHANGE_PCT) == [
        f"frontier.json deepseek-v3-1 B200 frontier deepseek-v3-1/B200/8/8 #1 joules_per_response: "
        f"{energy}",
        "workloads/problem-solving/output-lengths.json deepseek-r1 deepseek-r1/B200/8/8 #1 "
        f"mean_output_tokens: {length}",
    ]
    summary = invoke("diff", "--summary", str(REPO / "data"), "data").output.splitlines()[1:]
    assert summary == [
        "frontier.json: entries 0 added, 0 removed, 1 changed",
        "workloads/problem-solving/output-lengths.json: entries 0 added, 0 removed, 1 changed",
    ]


@pytest.mark.parametrize(
    ("name", "doc", "message"),
    [
        pytest.param(
            "frontier.json",
            {"models": [{"slug": "m", "gpus": {"H100": {"frontier": [], "best_under": {"5": 3}}}}]},
            "/models/0/gpus/H100/best_under/5: expected a frontier entry object or null, found 3",
            id="frontier-pick-a-number",
        ),
        pytest.param(
            "output-lengths.json",
            {"models": [{"slug": "m", "configurations": [{"row_id": "x", "repeat": "1"}]}]},
            '/models/0/configurations/0/repeat: expected an integer, found "1"',
            id="lengths-repeat-a-string",
        ),
    ],
)
def test_a_shape_the_entry_diff_cannot_read_is_one_line(tmp_path: Path, name, doc, message) -> None:
    (tmp_path / name).write_text(json.dumps(doc))
    with pytest.raises(InputError) as caught:
        load_docs(str(tmp_path))
    assert str(caught.value) == f"{tmp_path}/{name}: {message}"
