"""Pure derivation: checked upstream rows + curated metadata -> every workload's documents,
frontiers too (no I/O); each row's configuration is configurations.py's."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, cast

from builder import layout
from builder.configurations import (
    MEDIA_KEYS,
    SETUP_KEYS,
    KeyedRows,
    generation_configuration,
    llm_configuration,
    numbered,
)
from builder.fields import LATENCY_FIELD, MEASURE_KEYS, PER_SECOND
from builder.frontier_documents import build_frontiers
from builder.layout import GENERATION_ORDER, LLM_ORDER
from builder.metadata import (
    GenerationWorkloadMeta,
    WorkloadMeta,
    all_workloads,
    source_for,
)
from builder.names import slugify
from builder.strictjson import Doc

if TYPE_CHECKING:  # the reader's types: for mypy only, the reader is not installed beside builder
    from leadgreen_data.types import (
        GenerationModelListDocument,
        IndexRow,
        ModelListDocument,
        ModelListModel,
        Source,
        UnitsDocument,
        UnitsWorkload,
        WorkloadListDocument,
        WorkloadListWorkload,
    )

    from builder.configurations import AnyConfiguration

    Kind = Literal["llm", "image", "video"]
    LatencyMetric = Literal["median_itl_ms", "batch_latency_s"]


class Header(TypedDict):
    """The keys every dated document starts with."""

    version: Literal["1"]
    updated: str
    data_version: str


class Tail(TypedDict):
    """The keys an index and a model document share after their latency limit."""

    source: Source
    caveat: str
    boundary: Literal["gpu_only"]


MODEL_KEYS_IN_ROW = ("slug", "model_id", "params_b", "active_params_b")


@dataclass(frozen=True)
class Shape:
    """What a workload's documents hold that differs by kind: an LLM workload's by default."""

    head: Doc  # after the header: the kind (image and video only) and the headline unit
    limit: float
    selection: str
    source: Source
    # (upstream row, slug, limit) -> its configuration
    make: Callable[[Any, str, float], AnyConfiguration]
    # (model document, its best configuration on a GPU) -> its index row
    row: Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]]
    limit_key: str = "itl_deadline_ms"  # the latency limit's name in the documents
    latency_metric: str = LATENCY_FIELD["llm"]  # the configuration value the limit applies to
    within: str = "under_itl_deadline"  # the flag of a configuration under the limit
    joules: str = MEASURE_KEYS["llm"][0]  # the energy `best` and the index rank by
    order: tuple[str, ...] = LLM_ORDER  # the configuration keys its configurations are sorted by


def shape(work: WorkloadMeta, meta: Doc) -> Shape:
    """The Shape of a workload's documents."""
    if not isinstance(work, GenerationWorkloadMeta):
        h, own = meta["header"], source_for(meta, work)
        return Shape(
            {"unit": h["unit"]},
            h["itl_deadline_ms"],
            meta["index"]["selection"],
            own,
            llm_configuration,
            index_row,
        )
    return Shape(
        head={"kind": work.kind, "unit": work.unit},
        limit=work.latency_limit_s,
        selection=work.selection,
        source=source_for(meta, work),
        make=partial(generation_configuration, kind=work.kind),
        row=partial(generation_index_row, kind=work.kind),
        limit_key="latency_limit_s",
        latency_metric=LATENCY_FIELD[work.kind],
        within="under_latency_limit",
        joules=MEASURE_KEYS[work.kind][0],
        order=GENERATION_ORDER,
    )


def build_package(keyed_by_task: dict[str, KeyedRows], meta: Doc, date: str) -> dict[str, Doc]:
    """Every document of every workload (LLM first, then image and video) and the workload list,
    by path, from each task's keyed_rows."""
    docs: dict[str, Doc] = {}
    entries = []
    for work in all_workloads(meta):
        rows = list(keyed_by_task[work.task].values())  # one configuration each
        docs |= build_documents(rows, meta, date, work)
        models = len(docs[layout.model_list_rel(work.id)]["models"])
        entries.append(workload_entry(work, meta, models, len(rows)))
    workloads: WorkloadListDocument = {**header(meta, date), "workloads": entries}
    docs[layout.WORKLOAD_LIST] = dict(workloads)
    docs[layout.UNITS] = dict(units_document(entries, meta, date))
    return docs | build_frontiers(keyed_by_task, docs, meta, date)


def workload_entry(
    work: WorkloadMeta, meta: Doc, models: int, configurations: int
) -> WorkloadListWorkload:
    """A workload's entry in workloads.json: its text, counts, URLs and latency rule (an image or
    video workload has no frontier URL there)."""
    urls = workload_urls(meta["base_url"], meta["header"]["version"], work.id)
    own = shape(work, meta)
    entry: WorkloadListWorkload = {
        "id": work.id,
        "name": work.name,
        "task": work.task,
        "description": work.description,
        "model_count": models,
        "configuration_count": configurations,
        "index_url": urls["index_url"],
        "models_url": urls["models_url"],
        "data_url": work.data_url,
        "frontier_url": urls["frontier_url"],
        "kind": cast("Kind", work.kind),
        "unit": own.head["unit"],
        "latency_metric": cast("LatencyMetric", own.latency_metric),
        "latency_limit": own.limit,
    }
    if isinstance(work, GenerationWorkloadMeta):
        del entry["frontier_url"]
    return entry


# the unit of each latency metric's values
LATENCY_UNITS: dict[LatencyMetric, Literal["ms", "s"]] = {
    "median_itl_ms": "ms",
    "batch_latency_s": "s",
}
UNITS_DEFINITION = (
    "Per workload of workloads.json, in its order: its headline energy unit, and the latency "
    "metric and limit with "
    "the limit's unit (ms or s), which workloads.json, a published v1 document, cannot add beside "
    "latency_limit; "
    "and the URL of its frontier, an image or video workload's too."
)


def units_document(entries: list[WorkloadListWorkload], meta: Doc, date: str) -> UnitsDocument:
    """units.json: each workload list entry's unit, latency rule with the limit's unit, and
    frontier URL."""
    rows = unit_rows(entries, meta["base_url"], meta["header"]["version"])
    return {**header(meta, date), "definition": UNITS_DEFINITION, "workloads": rows}


def unit_rows(
    entries: list[WorkloadListWorkload], base_url: str, version: str
) -> list[UnitsWorkload]:
    """Per workload list entry: its id, unit and latency rule, the limit's unit, and its
    frontier's URL."""
    frontier = layout.frontier_rel
    return [
        {
            "id": entry["id"],
            "unit": entry["unit"],
            "latency_metric": entry["latency_metric"],
            "latency_limit": entry["latency_limit"],
            "latency_unit": LATENCY_UNITS[entry["latency_metric"]],
            "frontier_url": layout.document_url(base_url, version, frontier(entry["id"])),
        }
        for entry in entries
    ]


def workload_urls(base_url: str, version: str, workload: str) -> dict[str, str]:
    """The public URLs of a workload's index, model list and frontier."""
    rels = {
        "index_url": layout.index_rel,
        "models_url": layout.model_list_rel,
        "frontier_url": layout.frontier_rel,
    }
    return {key: layout.document_url(base_url, version, rel(workload)) for key, rel in rels.items()}


def build_documents(rows: list[Any], meta: Doc, date: str, work: WorkloadMeta) -> dict[str, Doc]:
    """Every document of one workload, keyed by its path inside the data folder."""
    own = shape(work, meta)
    groups: dict[str, list[Any]] = {}
    for row in rows:
        groups.setdefault(row.model_id, []).append(row)
    models = sorted(
        (model_document(group, meta, date, own) for group in groups.values()),
        key=lambda m: m["slug"],
    )
    bests = [own.row(model, best) for model in models for best in model["best"].values()]
    docs = {layout.model_rel(m["slug"], work.id): m for m in models}
    docs[layout.index_rel(work.id)] = {
        **header(meta, date),
        **own.head,
        "workload": work.id,
        own.limit_key: own.limit,
        "selection": own.selection,
        "reference_row": work.reference_row,
        **shared_tail(meta, own.source),
        "rows": sorted(bests, key=lambda row: row[own.joules]),  # stable: ties keep slug order
    }
    base, version = meta["base_url"], meta["header"]["version"]
    entries: list[ModelListModel] = [
        {
            "slug": m["slug"],
            "name": m["name"],
            "model_id": m["model_id"],
            "params_b": m["params_b"],
            "active_params_b": m["active_params_b"],
            "gpus": m["gpus"],
            "url": layout.document_url(base, version, layout.model_rel(m["slug"], work.id)),
            "page": layout.page_url(base, m["slug"], work.id),
        }
        for m in models
    ]
    listing: ModelListDocument | GenerationModelListDocument
    if isinstance(work, GenerationWorkloadMeta):  # "image" or "video" (metadata.py checks it)
        kind = cast("Any", work.kind)
        listing = {**header(meta, date), "kind": kind, "source": own.source, "models": entries}
    else:
        listing = {**header(meta, date), "source": own.source, "models": entries}
    docs[layout.model_list_rel(work.id)] = dict(listing)
    return docs


def model_document(rows: list[Any], meta: Doc, date: str, own: Shape) -> Doc:
    """One model's document from its rows (in upstream order)."""
    first, slug = rows[0], slugify(rows[0].nickname)
    confs = numbered(
        sorted(
            (own.make(r, slug, own.limit) for r in rows),
            key=lambda c: values(c, own.order),
        )
    )
    return {
        **header(meta, date),
        **own.head,
        own.limit_key: own.limit,
        **shared_tail(meta, own.source),
        "slug": slug,
        "name": first.nickname,
        "model_id": first.model_id,
        "params_b": float(first.total_params_billions),
        "active_params_b": float(first.activated_params_billions),
        # upstream's task class, not a model's
        **({} if "kind" in own.head else {"architecture": first.architecture}),
        "gpus": sorted({c["gpu"] for c in confs}),
        "configurations": confs,
        "best": best_by_gpu(confs, own.within, own.joules),
    }


M = TypeVar("M", bound=Mapping[str, Any])  # a configuration, built or parsed


def best_by_gpu(
    confs: list[M], within: str = "under_itl_deadline", joules: str = MEASURE_KEYS["llm"][0]
) -> dict[str, M]:
    """Per GPU, a copy of the lowest-energy configuration among those flagged `within` (the first
    on a tie)."""
    under = [conf for conf in confs if conf[within]]
    gpus = sorted({conf["gpu"] for conf in under})
    return {
        gpu: copy.copy(min((c for c in under if c["gpu"] == gpu), key=lambda c: c[joules]))
        for gpu in gpus
    }


def values(doc: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[Any, ...]:
    """A document's values of `keys`, in their order."""
    return tuple(doc[key] for key in keys)


def header(meta: Doc, date: str) -> Header:
    return {"version": meta["header"]["version"], "updated": date, "data_version": date}


def shared_tail(meta: Doc, source: Source) -> Tail:
    return {
        "source": source,
        "caveat": meta["header"]["caveat"],
        "boundary": meta["header"]["boundary"],
    }


def index_row(model: Mapping[str, Any], best: Mapping[str, Any]) -> IndexRow:
    """The index row of one LLM's best configuration on one GPU."""
    return {
        "model": model["name"],
        "slug": model["slug"],
        "model_id": model["model_id"],
        "params_b": model["params_b"],
        "active_params_b": model["active_params_b"],
        "precision": best["precision"],
        "gpu": best["gpu"],
        "num_gpus": best["num_gpus"],
        "wh_per_million_output_tokens": best["wh_per_million_output_tokens"],
        "joules_per_output_token": best["joules_per_output_token"],
        "median_itl_ms": best["median_itl_ms"],
        "avg_requests_in_flight": best["avg_requests_in_flight"],
        "gpu_power_watts_total": best["gpu_power_watts_total"],
        "avg_output_tokens": best["avg_output_tokens"],
        "avg_running_batch": best["avg_running_batch"],
        "max_num_seqs": best["max_num_seqs"],
        "row_id": best["row_id"],
    }


def generation_index_row(model: Mapping[str, Any], best: Mapping[str, Any], kind: str) -> Doc:
    """The index row of one image or video model's best configuration on one GPU, keys
    index_row_keys(kind)."""
    named = {"model": model["name"], **{key: model[key] for key in MODEL_KEYS_IN_ROW}}
    return {key: named[key] if key in named else best[key] for key in index_row_keys(kind)}


def index_row_keys(kind: str) -> tuple[str, ...]:
    joules, wh, throughput = MEASURE_KEYS[kind]
    head = ("model", *MODEL_KEYS_IN_ROW, *SETUP_KEYS, *MEDIA_KEYS[kind])
    tail = (joules, LATENCY_FIELD[kind], throughput, "gpu_power_watts_total", "row_id", "repeat")
    return (*head, wh, *PER_SECOND[kind], *tail)
