"""The physics of each published configuration: units, rates, percentiles, layout, deadline."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem
from builder.layout import NUM_GPUS_RULE, num_gpus_for

WH_PER_J_PER_MILLION = 1e6 / 3600
J_ROUNDING = 0.5e-7 * WH_PER_J_PER_MILLION  # joules are published to 7 decimals
RATE_TOLERANCE = 0.01


def check_configuration(conf: dict[str, Any], deadline: float, where: str) -> list[tuple[str, str]]:
    """(pointer, message) for every law the configuration breaks."""
    faults = []
    j, wh = conf["joules_per_output_token"], conf["wh_per_million_output_tokens"]
    if abs(wh - j * WH_PER_J_PER_MILLION) > 0.005 + J_ROUNDING:
        want = round(j * WH_PER_J_PER_MILLION, 2)
        faults.append(("wh_per_million_output_tokens", f"expected J x 10^6 / 3600 = {want} (2 decimals), found {wh}"))
    rate = conf["gpu_power_watts_total"] / conf["tokens_per_second"]
    if abs(j - rate) > RATE_TOLERANCE * rate:
        msg = f"expected power / tokens per second = {rate:.7f} J (within 1 %), found {j}"
        faults.append(("joules_per_output_token", msg))
    chain = [conf[k] for k in ("median_itl_ms", "p90_itl_ms", "p95_itl_ms", "p99_itl_ms")]
    if chain != sorted(chain):
        faults.append(("p90_itl_ms", f"expected median <= p90 <= p95 <= p99, found {' / '.join(map(str, chain))}"))
    if conf["avg_requests_in_flight"] > conf["max_num_seqs"]:
        msg = f"expected at most max_num_seqs = {conf['max_num_seqs']}, found {conf['avg_requests_in_flight']}"
        faults.append(("avg_requests_in_flight", msg))
    if conf["avg_running_batch"] != conf["avg_requests_in_flight"]:
        msg = f"expected avg_requests_in_flight = {conf['avg_requests_in_flight']}, found {conf['avg_running_batch']}"
        faults.append(("avg_running_batch", msg))
    median = conf["median_itl_ms"]
    if abs(median - deadline) >= 0.05:  # within rounding of the deadline, either answer is right
        want = median < deadline
        if conf["under_itl_deadline"] is not want:
            found = str(conf["under_itl_deadline"]).lower()
            faults.append(
                (
                    "under_itl_deadline",
                    f"expected {str(want).lower()} (median {median} ms, deadline {deadline} ms), found {found}",
                )
            )
    layout = num_gpus_for(conf["tensor_parallel"], conf["data_parallel"], conf["expert_parallel"])
    if conf["num_gpus"] != layout:
        faults.append(("num_gpus", f"expected {NUM_GPUS_RULE} = {layout}, found {conf['num_gpus']}"))
    return [(f"{where}/{field}", msg) for field, msg in faults]


def check_physics(shown: str, doc: dict[str, Any]) -> list[Problem]:
    """Every configuration of a model document (best entries are checked to equal one of them)."""
    deadline = doc["itl_deadline_ms"]
    return [
        Problem(shown, at, msg)
        for i, conf in enumerate(doc["configurations"])
        for at, msg in check_configuration(conf, deadline, f"/configurations/{i}")
    ]
