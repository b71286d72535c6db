"""Pure rules that the LLM and generation checks share: the reference row, what a workload list
entry must state, a copied value, a finite number. Literal expectations; the corpora cover the
same rules end to end."""

from __future__ import annotations

from typing import Any

import pytest

from builder.validate.crossfile import check_reference_row
from builder.validate.workloads import entry_facts

ROW = {"model": "Qwen 3 32B", "gpu": "H100", "num_gpus": 2}


def index(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"reference_row": dict(ROW), "rows": rows}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param([ROW, {**ROW, "gpu": "B200"}], [], id="one-match"),
        pytest.param(
            [{**ROW, "num_gpus": 4}],
            [
                "i.json: /reference_row: expected exactly one row with model 'Qwen 3 32B', gpu "
                "H100, num_gpus 2, found 0"
            ],
            id="llm-none",
        ),
        pytest.param(
            [ROW, ROW],
            [
                "i.json: /reference_row: expected exactly one row with model 'Qwen 3 32B', gpu "
                "H100, num_gpus 2, found 2"
            ],
            id="two",
        ),
    ],
)
def test_reference_row(rows: list[dict[str, Any]], expected: list[str]) -> None:
    assert [str(p) for p in check_reference_row("i.json", index(rows))] == expected


URLS = {
    "index_url": "https://x.test/api/v1/workloads/code-completion/index.json",
    "models_url": "https://x.test/api/v1/workloads/code-completion/models.json",
    "frontier_url": "https://x.test/api/v1/workloads/code-completion/frontier.json",
}


def test_llm_entry_states_kind_metric_unit_deadline_counts_and_urls() -> None:
    index = {
        "unit": "J/token",
        "itl_deadline_ms": 250,
        "source": {"data_url": "https://d.test/t.json"},
    }
    docs = {"workloads/code-completion/index.json": index}
    assert entry_facts("code-completion", docs, set(), "https://x.test", "1") == {
        "kind": "llm",
        "latency_metric": "median_itl_ms",
        "unit": "J/token",
        "latency_limit": 250,
        "data_url": "https://d.test/t.json",
        "model_count": 0,
        "configuration_count": 0,
        **URLS,
    }


def test_llm_entry_without_a_passing_index_or_model_states_no_unit_nor_configuration_count() -> (
    None
):
    assert entry_facts("code-completion", {}, {"a"}, "https://x.test", "1") == {
        "kind": "llm",
        "latency_metric": "median_itl_ms",
        "model_count": 1,
        **URLS,
    }


def test_generation_entry_counts_only_complete_workloads() -> None:
    model = {"configurations": [{}, {}, {}]}
    docs = {"workloads/text-to-image/models/a.json": model}
    complete = entry_facts("text-to-image", docs, {"a"}, "https://x.test", "1")
    partial = entry_facts("text-to-image", docs, {"a", "b"}, "https://x.test", "1")
    assert (complete["kind"], complete["model_count"], complete["configuration_count"]) == (
        "image",
        1,
        3,
    )
    assert complete["index_url"] == "https://x.test/api/v1/workloads/text-to-image/index.json"
    assert (partial["model_count"], "configuration_count" in partial) == (2, False)
    assert "frontier_url" not in complete


def test_a_key_an_entry_lacks_differs_from_its_source() -> None:
    """A model-list entry, index row or frontier entry without a key its source holds is
    reported, not skipped."""
    from builder.validate.crossfile import differing

    found = differing(
        "data/models.json", "/models/0", {"model_id": "m/x", "name": "X"}, {"name": "X"}, "m.json"
    )
    assert [str(p) for p in found] == [
        'data/models.json: /models/0/model_id: expected "m/x" as in m.json, found it missing'
    ]


@pytest.mark.parametrize(
    ("want", "found", "where"),
    [
        ({"num_gpus": 1, "name": "X"}, {"num_gpus": 1.0, "name": "X"}, "/num_gpus"),
        ({"num_gpus": 1, "name": "X"}, {"num_gpus": True, "name": "X"}, "/num_gpus"),
        ({"under": True, "name": "X"}, {"under": 1, "name": "X"}, "/under"),
        ({"counts": [1, 2], "name": "X"}, {"counts": [1, 2.0], "name": "X"}, "/counts/1"),
    ],
)
def test_a_copied_value_of_another_type_differs_though_equal(
    want: dict[str, Any], found: dict[str, Any], where: str
) -> None:
    """1 is not 1.0 nor true, inside a list too: differing's early return for values found the
    same keeps that rule."""
    from builder.validate.crossfile import differing

    assert differing("f", "", want, dict(want), "s") == []
    assert [p.where for p in differing("f", "", want, found, "s")] == [where]


class Count(int):
    """An int of another type: isinstance, not the type test, says it is a number."""


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        ((1, 2.5, 0, -3, 1e300), True),
        ((Count(2),), True),
        ((), True),
        ((1, True), False),
        ((False,), False),
        ((1.0, None), False),
        (("1",), False),
        (([1],), False),
        ((float("nan"),), False),
        ((2, float("inf")), False),
        ((float("-inf"),), False),
    ],
)
def test_finite_takes_ints_and_floats_never_a_bool(values: tuple[Any, ...], verdict: bool) -> None:
    """finite's type test for an int or a float and its isinstance for the rest give one rule: a
    finite number, never a bool."""
    from builder.validate.documents import finite

    assert finite(*values) is verdict
