"""Pure: each workload's frontier document, from its model documents and upstream rows (the
frontiers themselves are frontier.py's)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from builder import layout
from builder.configurations import KeyedRows
from builder.frontier import (
    DEFINITION,
    GENERATION_AXES,
    LLM_AXES,
    LLM_DEFINITION,
    Axes,
    Extra,
    Key,
    Points,
    latency_targets,
    model_frontier,
)
from builder.metadata import (
    GenerationWorkloadMeta,
    WorkloadMeta,
    generation_workloads,
    llm_workloads,
)
from builder.strictjson import Doc

if TYPE_CHECKING:  # the reader's types: for mypy only, the reader is not installed beside builder
    from leadgreen_data.types import (
        FrontierDocument,
        FrontierModel,
        GenerationFrontierDocument,
        GenerationFrontierModel,
    )


def build_frontiers(
    keyed_by_task: dict[str, KeyedRows], docs: dict[str, Doc], meta: Doc, date: str
) -> dict[str, Doc]:
    """Every workload's frontier document by path, from each task's keyed_rows: its models in
    model-list order, each GPU type in key order."""
    found: dict[str, Doc] = {}
    for work in llm_workloads(meta):
        llm = llm_frontier(work, keyed_by_task[work.task], docs, meta, date)
        found[layout.frontier_rel(work.id)] = dict(llm)
    for gen in generation_workloads(meta):
        generation = generation_frontier(gen, keyed_by_task[gen.task], docs, meta, date)
        found[layout.frontier_rel(gen.id)] = dict(generation)
    return found


def llm_frontier(
    work: WorkloadMeta, keyed: dict[Key, Any], docs: dict[str, Doc], meta: Doc, date: str
) -> FrontierDocument:
    """An LLM workload's frontier document; its entries gain their energy per response at the
    median and p90 output length later (lengths.with_response_quantiles)."""
    targets = meta["frontier"]["itl_targets_ms"]
    points = {key: (row.energy_per_token_joules, row.median_itl_ms) for key, row in keyed.items()}
    models = frontier_models(docs, work, points, LLM_AXES, targets, partial(response_of, keyed))
    return {
        "version": meta["header"]["version"],
        "workload": work.id,
        "data_version": date,
        "unit": meta["header"]["unit"],
        "latency_metric": "median_itl_ms",
        "definition": LLM_DEFINITION,
        "itl_targets_ms": list(targets),
        "models": cast("list[FrontierModel]", models),
    }


def generation_frontier(
    work: GenerationWorkloadMeta, keyed: dict[Key, Any], docs: dict[str, Doc], meta: Doc, date: str
) -> GenerationFrontierDocument:
    """An image or video workload's frontier document: best_under at half its latency limit and
    at the limit."""
    targets = latency_targets(work.latency_limit_s)
    points = {key: (row.energy_joules, row.batch_latency_s) for key, row in keyed.items()}
    models = frontier_models(docs, work, points, GENERATION_AXES[work.kind], targets, no_extra)
    return {
        "version": meta["header"]["version"],
        "workload": work.id,
        "data_version": date,
        "kind": cast("Any", work.kind),  # "image" or "video" (metadata.py checks it)
        "unit": cast("Any", work.unit),  # its kind's (metadata.py checks it)
        "latency_metric": "batch_latency_s",
        "definition": DEFINITION,
        "latency_limit_s": work.latency_limit_s,
        "latency_targets_s": targets,
        "models": cast("list[GenerationFrontierModel]", models),
    }


def frontier_models(
    docs: dict[str, Doc],
    work: WorkloadMeta,
    points: Points,
    axes: Axes,
    targets: list[float],
    extra: Extra,
) -> list[Doc]:
    """Each model's frontiers, in model-list order."""
    models = []
    for entry in docs[layout.model_list_rel(work.id)]["models"]:
        confs = docs[layout.model_rel(entry["slug"], work.id)]["configurations"]
        own = model_frontier(confs, points, axes, targets, extra)
        models.append({"slug": entry["slug"], **own})
    return models


def no_extra(_key: Key) -> Doc:
    """A generation frontier entry's values beyond its configuration's: none."""
    return {}


def response_of(keyed: dict[Key, Any], key: Key) -> Doc:
    """An LLM frontier entry's energy per response and the mean output length it rests on, from
    its upstream row."""
    row = keyed[key]
    return {
        "mean_output_tokens": round(row.avg_output_len, 2),
        "joules_per_response": round(row.energy_per_request_joules, 4),
    }
