"""The flat configurations table: every configuration of every model, one CSV row each."""

from __future__ import annotations

import csv
import io
from typing import Any

CONFIG_KEYS = (
    "gpu",
    "num_gpus",
    "tensor_parallel",
    "data_parallel",
    "expert_parallel",
    "precision",
    "max_num_seqs",
    "avg_requests_in_flight",
    "wh_per_million_output_tokens",
    "joules_per_output_token",
    "median_itl_ms",
    "p90_itl_ms",
    "p99_itl_ms",
    "tokens_per_second",
    "gpu_power_watts_total",
    "avg_output_tokens",
    "under_itl_deadline",
    "avg_running_batch",
    "p95_itl_ms",
    "row_id",
    "repeat",
)
COLUMNS = ("slug", *CONFIG_KEYS)


def cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def configurations_csv(models: list[dict[str, Any]]) -> bytes:
    """CSV of all configurations, models in slug order, each model's configurations in order."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for model in sorted(models, key=lambda m: m["slug"]):
        for conf in model["configurations"]:
            writer.writerow([model["slug"], *(cell(conf[k]) for k in CONFIG_KEYS)])
    return buf.getvalue().encode("utf-8")
