"""The caps on one upstream task file's models and configurations, checked before its rows (100x today's largest)."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem, UpstreamError

MAX_MODELS_PER_TASK = 2000
MAX_CONFIGURATIONS_PER_TASK = 100_000


def check_caps(doc: Any, path: str) -> None:
    """UpstreamError naming `path` when its configurations, or the distinct model_id among them, pass their cap."""
    confs = doc.get("configurations") if isinstance(doc, dict) else None
    if not isinstance(confs, list):
        return
    problems = []
    if len(confs) > MAX_CONFIGURATIONS_PER_TASK:
        found = f"{len(confs):,}"
        problems.append(f"expected at most {MAX_CONFIGURATIONS_PER_TASK:,} configurations in a task, found {found}")
    models = {conf["model_id"] for conf in confs if isinstance(conf, dict) and isinstance(conf.get("model_id"), str)}
    if len(models) > MAX_MODELS_PER_TASK:
        problems.append(f"expected at most {MAX_MODELS_PER_TASK:,} models (model_id) in a task, found {len(models):,}")
    if problems:
        found = [Problem(path, "/configurations", message) for message in problems]
        raise UpstreamError(f"{path}: too large for one task; nothing was written", found)
