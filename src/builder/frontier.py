"""Each LLM workload's energy-latency frontier per model and GPU type (configurations no other dominates on
unrounded energy per token and median ITL), and what `best` picks under each target; pure, no I/O."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from builder.layout import frontier_rel, model_list_rel, model_rel
from builder.metadata import workloads
from builder.responses import keyed_rows
from builder.slug import slugify
from builder.transform import best_by_gpu
from builder.upstream import Row

Doc = dict[str, Any]
Point = tuple[float, float]  # (joules per output token, median ITL in ms), unrounded

ENTRY_KEYS = ("row_id", "repeat", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens")


def build_frontiers(rows_by_task: dict[str, list[Row]], docs: dict[str, Doc], meta: Doc, date: str) -> dict[str, Doc]:
    """Every workload's frontier document, keyed by its path inside the data folder."""
    targets = meta["frontier"]["itl_targets_ms"]
    return {
        frontier_rel(work.id): frontier_document(work.id, rows_by_task[work.task], docs, targets, date)
        for work in workloads(meta)
    }


def frontier_document(workload: str, rows: list[Row], docs: dict[str, Doc], targets: list[int], date: str) -> Doc:
    """One workload's frontier: its models in model-list order, each GPU type in key order."""
    by_slug: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_slug[slugify(row.nickname)].append(row)
    models = []
    for entry in docs[model_list_rel(workload)]["models"]:
        model = docs[model_rel(entry["slug"], workload)]
        keyed = keyed_rows(by_slug[entry["slug"]])
        points = {key: (row.energy_per_token_joules, row.median_itl_ms) for key, row in keyed.items()}
        gpus = {gpu: gpu_frontier(model["configurations"], gpu, points, targets) for gpu in sorted(model["gpus"])}
        models.append({"slug": entry["slug"], "gpus": gpus})
    return {"workload": workload, "data_version": date, "itl_targets_ms": list(targets), "models": models}


def dominates(a: Point, b: Point) -> bool:
    """Lower or equal on both energy and latency, and not the same point."""
    return a[0] <= b[0] and a[1] <= b[1] and a != b


def gpu_frontier(confs: list[Doc], gpu: str, points: dict[tuple[str, int], Point], targets: list[int]) -> Doc:
    """The frontier of one model on one GPU type, and its best configuration under each target."""
    own = [(conf, points[(conf["row_id"], conf["repeat"])]) for conf in confs if conf["gpu"] == gpu]
    front = [(conf, p) for conf, p in own if not any(dominates(q, p) for _, q in own)]
    front.sort(key=lambda item: (item[1][1], item[1][0], *(item[0][k] for k in ("num_gpus", "max_num_seqs", "repeat"))))
    best_under = {}
    for target in targets:
        best = best_by_gpu([{**conf, "under_itl_deadline": p[1] <= target} for conf, p in own]).get(gpu)
        best_under[str(target)] = entry(best) if best is not None else None
    return {"frontier": [entry(conf) for conf, _ in front], "best_under": best_under}


def entry(conf: Doc) -> Doc:
    """A configuration as a frontier entry: its key and the values a reader compares."""
    return {key: conf[key] for key in ENTRY_KEYS}
