"""Valid upstream rows to start negative and unit cases from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def row(**overrides: Any) -> dict[str, Any]:
    base = {
        "nickname": "Test Model 7B",
        "model_id": "test-org/Test-Model-7B",
        "architecture": "Dense Transformer",
        "total_params_billions": 7.0,
        "activated_params_billions": 7.0,
        "gpu_model": "H100",
        "num_gpus": 1,
        "tensor_parallel": 1,
        "data_parallel": 1,
        "expert_parallel": 1,
        "max_num_seqs": 64,
        "weight_precision": "bfloat16",
        "avg_batch_size": 63.4,
        "avg_output_len": 512.4,
        "avg_power_watts": 600.0,
        "output_throughput_tokens_per_sec": 3000.0,
        "energy_per_token_joules": 0.2,
        "energy_per_request_joules": 102.48,
        "median_itl_ms": 20.0,
        "p90_itl_ms": 30.0,
        "p95_itl_ms": 35.0,
        "p99_itl_ms": 50.0,
    }
    base.update(overrides)
    # upstream's relations (builder.relations) kept, unless a case sets the value itself
    derived = {
        "energy_per_request_joules": ("energy_per_token_joules", "avg_output_len"),
        "avg_power_watts": ("energy_per_token_joules", "output_throughput_tokens_per_sec"),
    }
    for key, (a, b) in derived.items():
        if key not in overrides and all(_number(base[name]) for name in (a, b)):
            base[key] = base[a] * base[b]
    return base


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def upstream(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "task": "lm-arena-chat",
        "task_display_name": "LLM Chat (LM Arena)",
        "configurations": rows,
    }


def write_upstream(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
