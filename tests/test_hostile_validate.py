"""The hostile corpus of `builder validate` and `builder drift`: inputs made to fool the validator.

Physics on non-finite numbers, at unit level.
"""

from __future__ import annotations

import json
import math

import pytest

from builder.validate.physics import check_configuration
from conftest import REPO

Q8 = "data/models/qwen-3-8b.json"


# Physics on its own: every law fails on NaN and the infinities.

LAWS = {  # field -> the laws (pointers) it takes part in, besides its own finiteness
    "joules_per_output_token": {"wh_per_million_output_tokens", "joules_per_output_token"},
    "wh_per_million_output_tokens": {"wh_per_million_output_tokens"},
    "gpu_power_watts_total": {"joules_per_output_token"},
    "tokens_per_second": {"joules_per_output_token"},
    "median_itl_ms": {"p90_itl_ms", "under_itl_deadline"},
    "p90_itl_ms": {"p90_itl_ms"},
    "p95_itl_ms": {"p90_itl_ms"},
    "p99_itl_ms": {"p90_itl_ms"},
    "avg_requests_in_flight": {"avg_requests_in_flight", "avg_running_batch"},
    "max_num_seqs": {"avg_requests_in_flight"},
    "avg_running_batch": {"avg_running_batch"},
    "tensor_parallel": {"num_gpus"},
    "data_parallel": {"num_gpus"},
    "expert_parallel": {"num_gpus"},
    "num_gpus": {"num_gpus"},
}
CONF = json.loads((REPO / Q8).read_text())["configurations"][0]
NUMERIC = [k for k, v in CONF.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]


def test_the_committed_configuration_obeys_physics() -> None:
    assert check_configuration(CONF, 500, "/c") == []
    assert set(LAWS) <= set(NUMERIC)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("field", NUMERIC)
def test_physics_reports_a_non_finite_number(field: str, value: float) -> None:
    faults = check_configuration({**CONF, field: value}, 500, "/c")
    assert (f"/c/{field}", f"expected a finite number, found {value}") in faults, faults
    for law in LAWS.get(field, ()):  # and every law it takes part in fails
        assert f"/c/{law}" in dict(faults), (law, faults)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_physics_reports_a_non_finite_deadline(value: float) -> None:
    assert "/c/under_itl_deadline" in dict(check_configuration(CONF, value, "/c"))


def test_physics_laws_fail_without_the_finiteness_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each law is written to fail on NaN by itself: with every number taken as finite, NaN still fails them."""
    from builder.validate import physics

    monkeypatch.setattr(physics, "finite", lambda *_values: True)
    for field, laws in LAWS.items():
        faults = dict(check_configuration({**CONF, field: math.nan}, 500, "/c"))
        assert {f"/c/{law}" for law in laws} <= faults.keys(), (field, faults)
