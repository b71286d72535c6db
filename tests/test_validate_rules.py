"""Pure rules that the LLM and generation checks share: the reference row, and what a workload list entry
must state. Literal expectations; the corpora cover the same rules end to end."""

from __future__ import annotations

from typing import Any

import pytest

from builder.validate.crossfile import check_reference_row
from builder.validate.generation import entry_facts

LLM_WORDS = "model {model!r}, gpu {gpu}, num_gpus {num_gpus}"
GENERATION_WORDS = "model {model!r}, GPU {gpu} x {num_gpus}"
ROW = {"model": "Qwen 3 32B", "gpu": "H100", "num_gpus": 2}


def index(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"reference_row": dict(ROW), "rows": rows}


@pytest.mark.parametrize(
    ("rows", "words", "expected"),
    [
        pytest.param([ROW, {**ROW, "gpu": "B200"}], LLM_WORDS, [], id="one-match"),
        pytest.param(
            [{**ROW, "num_gpus": 4}],
            LLM_WORDS,
            ["i.json: /reference_row: expected exactly one row with model 'Qwen 3 32B', gpu H100, num_gpus 2, found 0"],
            id="llm-none",
        ),
        pytest.param(
            [ROW, ROW],
            GENERATION_WORDS,
            ["i.json: /reference_row: expected exactly one row with model 'Qwen 3 32B', GPU H100 x 2, found 2"],
            id="generation-two",
        ),
    ],
)
def test_reference_row(rows: list[dict[str, Any]], words: str, expected: list[str]) -> None:
    assert [str(p) for p in check_reference_row("i.json", index(rows), words)] == expected


def test_llm_entry_states_kind_metric_unit_and_deadline() -> None:
    docs = {"workloads/code-completion/index.json": {"unit": "J/token", "itl_deadline_ms": 250}}
    assert entry_facts("code-completion", docs, set(), "https://x.test", "1") == {
        "kind": "llm",
        "latency_metric": "median_itl_ms",
        "unit": "J/token",
        "latency_limit": 250,
    }


def test_llm_entry_without_a_passing_index_states_kind_and_metric() -> None:
    assert entry_facts("code-completion", {}, {"a"}, "https://x.test", "1") == {
        "kind": "llm",
        "latency_metric": "median_itl_ms",
    }


def test_generation_entry_counts_only_complete_workloads() -> None:
    model = {"configurations": [{}, {}, {}]}
    docs = {"workloads/text-to-image/models/a.json": model}
    complete = entry_facts("text-to-image", docs, {"a"}, "https://x.test", "1")
    partial = entry_facts("text-to-image", docs, {"a", "b"}, "https://x.test", "1")
    assert (complete["kind"], complete["model_count"], complete["configuration_count"]) == ("image", 1, 3)
    assert complete["index_url"] == "https://x.test/api/v1/workloads/text-to-image/index.json"
    assert (partial["model_count"], "configuration_count" in partial) == (2, False)
