"""Each LLM workload's energy-latency frontier per model and GPU type, and its best under each ITL target (pure)."""

import math
from itertools import groupby
from typing import Any

from builder.layout import frontier_rel, model_list_rel, model_rel
from builder.metadata import workloads
from builder.transform import best_by_gpu, keyed_rows
from builder.upstream import Row

Doc = dict[str, Any]
Point = tuple[float, float]  # (joules per output token, median ITL in ms), unrounded

ENTRY_KEYS = ("row_id", "repeat", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens")


def build_frontiers(rows_by_task: dict[str, list[Row]], docs: dict[str, Doc], meta: Doc, date: str) -> dict[str, Doc]:
    """Every workload's frontier document by path: its models in model-list order, each GPU type in key order."""
    targets, found = meta["frontier"]["itl_targets_ms"], {}
    for work in workloads(meta):
        keyed = keyed_rows(rows_by_task[work.task])
        points = {key: (row.energy_per_token_joules, row.median_itl_ms) for key, row in keyed.items()}  # unrounded
        models = []
        for entry in docs[model_list_rel(work.id)]["models"]:
            model = docs[model_rel(entry["slug"], work.id)]
            gpus = {gpu: gpu_frontier(model["configurations"], gpu, points, targets) for gpu in sorted(model["gpus"])}
            models.append({"slug": entry["slug"], "gpus": gpus})
        head = {"workload": work.id, "data_version": date, "itl_targets_ms": list(targets)}
        found[frontier_rel(work.id)] = {**head, "models": models}
    return found


def gpu_frontier(confs: list[Doc], gpu: str, points: dict[tuple[str, int], Point], targets: list[int]) -> Doc:
    """One model's frontier on one GPU type (the points no other matches or beats on both), and its best per target."""
    own = [(conf, points[(conf["row_id"], conf["repeat"])]) for conf in confs if conf["gpu"] == gpu]
    front = [item for item, keep in zip(own, undominated([p for _, p in own]), strict=True) if keep]
    front.sort(key=lambda item: (item[1][1], item[1][0], *(item[0][k] for k in ("num_gpus", "max_num_seqs", "repeat"))))
    bests = {
        str(t): best_by_gpu([{**conf, "under_itl_deadline": p[1] <= t} for conf, p in own]).get(gpu) for t in targets
    }
    return {"frontier": [entry(conf) for conf, _ in front], "best_under": {t: b and entry(b) for t, b in bests.items()}}


def entry(conf: Doc) -> Doc:
    """A configuration as a frontier entry: its key and the values a reader compares."""
    return {key: conf[key] for key in ENTRY_KEYS}


def undominated(points: list[Point]) -> list[bool]:
    """For each point, whether no other point (of another value) is lower or equal on both; n log n."""
    keep = [False] * len(points)
    lowest = math.inf  # the least energy of every point at a lower latency
    for _, group in groupby(sorted(range(len(points)), key=lambda i: points[i][::-1]), key=lambda i: points[i][1]):
        at = list(group)  # one latency, least energy first
        for i in at:
            keep[i] = lowest > points[i][0] and points[at[0]][0] == points[i][0]
        lowest = min(lowest, points[at[0]][0])
    return keep
