"""Pure derivation: checked upstream rows + curated metadata -> the v1 documents (no I/O)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

from builder.layout import (
    WORKLOAD_LIST,
    document_url,
    frontier_rel,
    index_rel,
    model_list_rel,
    model_rel,
    model_url,
    page_url,
    row_id,
)
from builder.metadata import Workload, source_for, workloads
from builder.slug import slugify
from builder.upstream import PRECISIONS, Row

Doc = dict[str, Any]

INDEX_ROW_KEYS = (
    "slug",
    "model_id",
    "params_b",
    "active_params_b",
    "precision",
    "gpu",
    "num_gpus",
    "wh_per_million_output_tokens",
    "joules_per_output_token",
    "median_itl_ms",
    "avg_requests_in_flight",
    "gpu_power_watts_total",
    "avg_output_tokens",
    "avg_running_batch",
    "max_num_seqs",
    "row_id",
)
WORKLOAD_ENTRY_KEYS = (
    "id",
    "name",
    "task",
    "description",
    "model_count",
    "configuration_count",
    "index_url",
    "models_url",
    "data_url",
    "frontier_url",
)
MODEL_LIST_KEYS = ("slug", "name", "model_id", "params_b", "active_params_b", "gpus", "url", "page")
MODEL_KEYS_IN_ROW = ("slug", "model_id", "params_b", "active_params_b")


def build_package(rows_by_task: dict[str, list[Row]], meta: Doc, date: str) -> dict[str, Doc]:
    """Every published document of every workload, and the workload list, keyed by path inside the data folder."""
    docs: dict[str, Doc] = {}
    entries = []
    for work in workloads(meta):
        own = build_documents(rows_by_task[work.task], meta, date, work)
        models = own[model_list_rel(work.id)]["models"]
        confs = sum(len(own[model_rel(m["slug"], work.id)]["configurations"]) for m in models)
        entries.append(workload_entry(work, len(models), confs, meta["base_url"], meta["header"]["version"]))
        docs |= own
    docs[WORKLOAD_LIST] = {**header(meta, date), "workloads": entries}
    return docs


def workload_entry(work: Workload, model_count: int, configuration_count: int, base_url: str, version: str) -> Doc:
    """A workload's entry in the workload list, keys in WORKLOAD_ENTRY_KEYS order."""
    counts = {"model_count": model_count, "configuration_count": configuration_count}
    found = {**asdict(work), **counts, **workload_urls(base_url, version, work.id)}
    return {key: found[key] for key in WORKLOAD_ENTRY_KEYS}


def workload_urls(base_url: str, version: str, workload: str) -> dict[str, str]:
    """The public URLs of a workload's index, model list and frontier."""
    return {
        "index_url": document_url(base_url, version, index_rel(workload)),
        "models_url": document_url(base_url, version, model_list_rel(workload)),
        "frontier_url": document_url(base_url, version, frontier_rel(workload)),
    }


def build_documents(rows: list[Row], meta: Doc, date: str, workload: Workload | None = None) -> dict[str, Doc]:
    """Every document of one workload (by default the first), keyed by its path inside the data folder."""
    work = workload or workloads(meta)[0]
    source = source_for(meta, work)
    groups: dict[str, list[Row]] = defaultdict(list)  # by model, in upstream order
    for row in rows:
        groups[row.model_id].append(row)
    models = sorted((model_document(group, meta, date, source) for group in groups.values()), key=lambda m: m["slug"])
    docs = {model_rel(m["slug"], work.id): m for m in models}
    docs[index_rel(work.id)] = index_document(models, meta, date, work, source)
    docs[model_list_rel(work.id)] = model_list_document(models, meta, date, work.id, source)
    return docs


def configuration(row: Row, slug: str, deadline_ms: float) -> Doc:
    """One upstream row as a published configuration (without its repeat number)."""
    return {
        "gpu": row.gpu_model,
        "num_gpus": row.num_gpus,
        "tensor_parallel": row.tensor_parallel,
        "data_parallel": row.data_parallel,
        "expert_parallel": row.expert_parallel,
        "precision": PRECISIONS[row.weight_precision],
        "max_num_seqs": row.max_num_seqs,
        "avg_requests_in_flight": round(row.avg_batch_size, 1),
        "wh_per_million_output_tokens": round(row.energy_per_token_joules * 1e6 / 3600, 2),
        "joules_per_output_token": round(row.energy_per_token_joules, 7),
        "median_itl_ms": round(row.median_itl_ms, 1),
        "p90_itl_ms": round(row.p90_itl_ms, 1),
        "p99_itl_ms": round(row.p99_itl_ms, 1),
        "tokens_per_second": round(row.output_throughput_tokens_per_sec, 1),
        "gpu_power_watts_total": round(row.avg_power_watts),
        "avg_output_tokens": round(row.avg_output_len),
        "under_itl_deadline": row.median_itl_ms <= deadline_ms,
        "avg_running_batch": round(row.avg_batch_size, 1),
        "p95_itl_ms": round(row.p95_itl_ms, 1),
        "row_id": row_id(slug, row.gpu_model, row.num_gpus, row.max_num_seqs),
    }


def configurations(rows: list[Row], slug: str, deadline_ms: float) -> list[Doc]:
    """Configurations sorted by (gpu, num_gpus, max_num_seqs), repeats numbered in upstream order."""
    ordered = sorted(rows, key=lambda r: (r.gpu_model, r.num_gpus, r.max_num_seqs))  # stable
    seen: dict[str, int] = defaultdict(int)
    confs = []
    for row in ordered:
        conf = configuration(row, slug, deadline_ms)
        seen[conf["row_id"]] += 1
        conf["repeat"] = seen[conf["row_id"]]
        confs.append(conf)
    return confs


def best_by_gpu(confs: list[Doc], within: str = "under_itl_deadline", joules: str = "joules_per_output_token") -> Doc:
    """Per GPU, the lowest-energy configuration among those flagged `within` (the first on a tie)."""
    best: Doc = {}
    for conf in confs:
        if not conf[within]:
            continue
        held = best.get(conf["gpu"])
        if held is None or conf[joules] < held[joules]:
            best[conf["gpu"]] = conf
    return {gpu: dict(best[gpu]) for gpu in sorted(best)}


def header(meta: Doc, date: str) -> Doc:
    return {"version": meta["header"]["version"], "updated": date, "data_version": date}


def shared_tail(meta: Doc, source: Doc) -> Doc:
    h = meta["header"]
    return {"source": source, "caveat": h["caveat"], "boundary": h["boundary"]}


def model_document(rows: list[Row], meta: Doc, date: str, source: Doc) -> Doc:
    first = rows[0]
    slug = slugify(first.nickname)
    confs = configurations(rows, slug, meta["header"]["itl_deadline_ms"])
    return {
        **header(meta, date),
        "unit": meta["header"]["unit"],
        "itl_deadline_ms": meta["header"]["itl_deadline_ms"],
        **shared_tail(meta, source),
        **model_identity(slug, first),
        "gpus": sorted({c["gpu"] for c in confs}),
        "configurations": confs,
        "best": best_by_gpu(confs),
    }


def model_identity(slug: str, first: Any) -> Doc:
    """The fields that name a model in its document, from its first upstream row (any workload's)."""
    return {
        "slug": slug,
        "name": first.nickname,
        "model_id": first.model_id,
        "params_b": float(first.total_params_billions),
        "active_params_b": float(first.activated_params_billions),
        "architecture": first.architecture,
    }


def index_row(model: Doc, best: Doc) -> Doc:
    """The index row of one model's best configuration on one GPU."""
    row = {"model": model["name"]}
    row.update((key, model[key] if key in MODEL_KEYS_IN_ROW else best[key]) for key in INDEX_ROW_KEYS)
    return row


def index_document(models: list[Doc], meta: Doc, date: str, workload: Workload, source: Doc) -> Doc:
    h = meta["header"]
    rows = [index_row(model, best) for model in models for best in model["best"].values()]
    return {
        **header(meta, date),
        "unit": h["unit"],
        "workload": workload.id,
        "itl_deadline_ms": h["itl_deadline_ms"],
        "selection": meta["index"]["selection"],
        "reference_row": workload.reference_row,
        **shared_tail(meta, source),
        "rows": sorted(rows, key=lambda r: r["joules_per_output_token"]),  # stable: ties keep slug order
    }


def model_list_document(models: list[Doc], meta: Doc, date: str, workload: str, source: Doc) -> Doc:
    base, version = meta["base_url"], meta["header"]["version"]
    entries = [
        {key: m[key] for key in MODEL_LIST_KEYS if key in m}  # all but the two links
        | {"url": model_url(base, version, m["slug"], workload), "page": page_url(base, m["slug"], workload)}
        for m in models
    ]
    return {**header(meta, date), "source": source, "models": entries}
