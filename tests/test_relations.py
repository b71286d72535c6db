"""Upstream's relations (builder.relations), pure: each holds on the pinned files and refuses a
value 1.01x off."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from builder.relations import (
    ENERGY_PER_REQUEST,
    GENERATION_ORDERS,
    GENERATION_RELATIONS,
    LLM_ORDERS,
    LLM_RELATIONS,
    PUBLISHED_ENERGY_PER_RESPONSE,
    PUBLISHED_TOLERANCE,
    UPSTREAM_TOLERANCE,
    Fault,
    broken,
    relation_faults,
)
from builder.upstream import OWN_NAMES
from factory import row

REPO = Path(__file__).resolve().parent.parent
LLM_TASKS = ("lm-arena-chat", "gpqa", "sourcegraph-fim", "image-chat", "video-chat")
KINDS = {"text-to-image": "image", "text-to-video": "video"}


def llm_rows() -> list[dict]:
    return [
        c
        for task in LLM_TASKS
        for c in json.loads((REPO / "upstream" / f"{task}.json").read_bytes())["configurations"]
    ]


def generation_rows() -> list[dict]:
    """The image and video rows under the neutral names the relations use (energy_joules,
    throughput_per_sec)."""
    found = []
    for task, kind in KINDS.items():
        own = {upstream.format(kind): neutral for neutral, upstream in OWN_NAMES.items()}
        doc = json.loads((REPO / "upstream" / f"{task}.json").read_bytes())
        found += [
            {own.get(key, key): value for key, value in conf.items()}
            for conf in doc["configurations"]
        ]
    return found


def relative_error(relation, values) -> float:
    expected = relation.compute(*(values[name] for name in relation.inputs))
    return abs(values[relation.target] - expected) / abs(expected)


def test_a_consistent_row_breaks_nothing() -> None:
    assert relation_faults(row(), LLM_RELATIONS, LLM_ORDERS) == []


def test_energy_per_request_1000_times_off_is_one_fault_with_expected_and_found() -> None:
    faults = relation_faults(row(energy_per_request_joules=102480.0), LLM_RELATIONS, LLM_ORDERS)
    assert faults == [
        Fault(
            "energy_per_request_joules",
            "energy_per_token_joules x avg_output_len",
            102.48,
            102480.0,
        )
    ]
    assert (
        faults[0].message
        == "expected energy_per_token_joules x avg_output_len = 102.48, found 102480.0"
    )


def test_energy_per_token_is_power_over_throughput() -> None:
    faults = relation_faults(row(avg_power_watts=700.0), LLM_RELATIONS)
    assert [f.message for f in faults] == [
        "expected avg_power_watts / output_throughput_tokens_per_sec = 0.23333333333333334, found "
        "0.2"
    ]


ACTIVE = {"activated_params_billions": 8.0}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param(
            {"p90_itl_ms": 10.0},
            "expected at most p90_itl_ms = 10.0, found 20.0",
            id="median-above-p90",
        ),
        pytest.param(
            {"p99_itl_ms": 34.0},
            "expected at most p99_itl_ms = 34.0, found 35.0",
            id="p95-above-p99",
        ),
        pytest.param(
            {"avg_batch_size": 64.5},
            "expected at most max_num_seqs = 64, found 64.5",
            id="batch-above-seqs",
        ),
        pytest.param(
            ACTIVE,
            "expected at most total_params_billions = 7.0, found 8.0",
            id="active-above-total",
        ),
    ],
)
def test_orders(overrides: dict, message: str) -> None:
    assert [f.message for f in relation_faults(row(**overrides), (), LLM_ORDERS)] == [message]


def test_diffusion_energy_is_power_times_latency_over_batch() -> None:
    values = {
        "avg_power_watts": 500.0,
        "batch_latency_s": 2.0,
        "batch_size": 4,
        "throughput_per_sec": 2.0,
    }
    values |= {
        "energy_joules": 250.0,
        "activated_params_billions": 1.0,
        "total_params_billions": 1.0,
    }
    assert relation_faults(values, GENERATION_RELATIONS, GENERATION_ORDERS) == []
    faults = relation_faults(
        values | {"energy_joules": 250_000.0, "throughput_per_sec": 0.5}, GENERATION_RELATIONS
    )
    assert [f.message for f in faults] == [
        "expected avg_power_watts x batch_latency_s / batch_size = 250.0, found 250000.0",
        "expected batch_size / batch_latency_s = 2.0, found 0.5",
    ]


def test_nan_and_a_zero_divisor_break_a_relation() -> None:
    assert (
        broken(ENERGY_PER_REQUEST, row(energy_per_request_joules=math.nan), UPSTREAM_TOLERANCE)
        is not None
    )
    fault = relation_faults(
        row(output_throughput_tokens_per_sec=0.0, avg_power_watts=0.0), LLM_RELATIONS
    )
    assert [f.field for f in fault] == ["energy_per_token_joules"]


def test_the_published_relation_names_the_csv_columns() -> None:
    assert PUBLISHED_ENERGY_PER_RESPONSE.target == "joules_per_response"
    assert PUBLISHED_ENERGY_PER_RESPONSE.inputs == ("joules_per_output_token", "avg_output_tokens")
    assert PUBLISHED_ENERGY_PER_RESPONSE.formula == "joules_per_output_token x avg_output_tokens"


# The measured figures docs/data-dictionary.md states: each relation's largest relative error in the
# pinned files.


def test_every_pinned_llm_row_keeps_every_relation_and_order() -> None:
    rows = llm_rows()
    assert len(rows) == 838
    assert [relation_faults(r, LLM_RELATIONS, LLM_ORDERS) for r in rows] == [[]] * len(rows)
    worst = {rel.target: max(relative_error(rel, r) for r in rows) for rel in LLM_RELATIONS}
    assert worst == {
        "energy_per_request_joules": 0.0,
        "energy_per_token_joules": pytest.approx(2.47e-16, rel=0.01),
    }


def test_every_pinned_image_and_video_row_keeps_every_relation() -> None:
    rows = generation_rows()
    assert len(rows) == 638 + 382
    assert [relation_faults(r, GENERATION_RELATIONS, GENERATION_ORDERS) for r in rows] == [
        []
    ] * len(rows)
    worst = {rel.target: max(relative_error(rel, r) for r in rows) for rel in GENERATION_RELATIONS}
    assert worst == {"energy_joules": pytest.approx(2.09e-16, rel=0.01), "throughput_per_sec": 0.0}


@pytest.mark.parametrize("factor", [1.01, 1 / 1.01, 1000.0])
def test_every_pinned_row_refuses_a_target_off_by(factor: float) -> None:
    for values, relations in [
        *((r, LLM_RELATIONS) for r in llm_rows()),
        *((r, GENERATION_RELATIONS) for r in generation_rows()),
    ]:
        for relation in relations:
            off = values | {relation.target: values[relation.target] * factor}
            assert broken(relation, off, UPSTREAM_TOLERANCE) is not None, (
                relation.target,
                values["model_id"],
            )


def published_rows() -> list[dict[str, float]]:
    table = csv.DictReader(
        io.StringIO((REPO / "data" / "configurations.csv").read_text(encoding="utf-8"))
    )
    names = (PUBLISHED_ENERGY_PER_RESPONSE.target, *PUBLISHED_ENERGY_PER_RESPONSE.inputs)
    return [{name: float(line[name]) for name in names} for line in table]


def test_published_energy_per_response_is_within_its_tolerance_and_catches_1_01() -> None:
    rows, relation = published_rows(), PUBLISHED_ENERGY_PER_RESPONSE
    assert len(rows) == 838
    worst = max(relative_error(relation, r) for r in rows)
    assert worst == pytest.approx(0.00211, rel=0.01)  # whole tokens and 7 decimals of J per token
    assert worst * 2 < PUBLISHED_TOLERANCE
    assert [broken(relation, r, PUBLISHED_TOLERANCE) for r in rows] == [None] * len(rows)
    for factor in (1.01, 1 / 1.01):
        off = [r | {relation.target: r[relation.target] * factor} for r in rows]
        assert all(broken(relation, r, PUBLISHED_TOLERANCE) for r in off)
