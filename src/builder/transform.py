"""Pure derivation: checked upstream rows + curated metadata -> every workload's documents,
frontiers too (no I/O)."""

from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from builder import layout
from builder.fields import LATENCY_FIELD, MEASURE_KEYS, PER_SECOND
from builder.frontier import (
    DEFINITION,
    GENERATION_AXES,
    LLM_AXES,
    LLM_DEFINITION,
    latency_targets,
    model_frontier,
)
from builder.layout import GENERATION_ORDER, LLM_ORDER
from builder.metadata import (
    LATENCY_METRIC,
    GenerationWorkloadMeta,
    WorkloadMeta,
    generation_workloads,
    llm_workloads,
    source_for,
)
from builder.names import slugify
from builder.strictjson import Doc
from builder.upstream import PRECISIONS, GenRow, Row

CONFIG_KEYS: tuple[str, ...] = (
    "gpu",
    "num_gpus",
    "tensor_parallel",
    "data_parallel",
    "expert_parallel",
    "precision",
    "max_num_seqs",
)
CONFIG_KEYS += (
    "avg_requests_in_flight",
    "wh_per_million_output_tokens",
    "joules_per_output_token",
    "median_itl_ms",
)
CONFIG_KEYS += (
    "p90_itl_ms",
    "p99_itl_ms",
    "tokens_per_second",
    "gpu_power_watts_total",
    "avg_output_tokens",
)
# an LLM configuration's
CONFIG_KEYS += (
    "under_itl_deadline",
    "avg_running_batch",
    "p95_itl_ms",
    "row_id",
    "repeat",
)
MODEL_KEYS_IN_ROW = ("slug", "model_id", "params_b", "active_params_b")
INDEX_ROW_KEYS: tuple[str, ...] = (
    *MODEL_KEYS_IN_ROW,
    "precision",
    "gpu",
    "num_gpus",
    "wh_per_million_output_tokens",
)
INDEX_ROW_KEYS += (
    "joules_per_output_token",
    "median_itl_ms",
    "avg_requests_in_flight",
    "gpu_power_watts_total",
)
INDEX_ROW_KEYS += ("avg_output_tokens", "avg_running_batch", "max_num_seqs", "row_id")
WORKLOAD_ENTRY_KEYS: tuple[str, ...] = (
    "id",
    "name",
    "task",
    "description",
    "model_count",
    "configuration_count",
    "index_url",
)
WORKLOAD_ENTRY_KEYS += (
    "models_url",
    "data_url",
    "frontier_url",
    "kind",
    "unit",
    "latency_metric",
    "latency_limit",
)
# every kind's
MODEL_LIST_KEYS = (
    "slug",
    "name",
    "model_id",
    "params_b",
    "active_params_b",
    "gpus",
    "url",
    "page",
)
SETUP_KEYS = (*GENERATION_ORDER, "inference_steps", "precision")
MEDIA_KEYS = {"image": ("width", "height"), "video": ("width", "height", "num_frames", "fps")}
WH_PER_JOULE = {"image": 1000 / 3600, "video": 1 / 3600}  # Wh per 1,000 images, or per video


@dataclass(frozen=True)
class Shape:
    """What a workload's documents hold that differs by kind: an LLM workload's by default."""

    head: Doc  # after the header: the kind (image and video only) and the headline unit
    limit: float
    selection: str
    source: Doc
    make: Callable[[Any, str, float], Doc]  # (upstream row, slug, limit) -> its configuration
    limit_key: str = "itl_deadline_ms"  # the latency limit's name in the documents
    latency_metric: str = LATENCY_FIELD["llm"]  # the configuration value the limit applies to
    within: str = "under_itl_deadline"  # the flag of a configuration under the limit
    joules: str = MEASURE_KEYS["llm"][0]  # the energy `best` and the index rank by
    index_keys: tuple[str, ...] = ("model", *INDEX_ROW_KEYS)
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
        )
    return Shape(
        head={"kind": work.kind, "unit": work.unit},
        limit=work.latency_limit_s,
        selection=work.selection,
        source=source_for(meta, work),
        make=partial(generation_configuration, kind=work.kind),
        limit_key="latency_limit_s",
        latency_metric=LATENCY_METRIC,
        within="under_latency_limit",
        joules=MEASURE_KEYS[work.kind][0],
        index_keys=index_row_keys(work.kind),
        order=GENERATION_ORDER,
    )


def build_package(rows_by_task: dict[str, list[Any]], meta: Doc, date: str) -> dict[str, Doc]:
    """Every document of every workload (LLM first, then image and video) and the workload list,
    by path."""
    docs: dict[str, Doc] = {}
    entries = []  # each workload's keys in order; an image or video workload has no frontier
    for work in [*llm_workloads(meta), *generation_workloads(meta)]:
        rows = rows_by_task[work.task]  # one configuration each
        docs |= build_documents(rows, meta, date, work)
        models = len(docs[layout.model_list_rel(work.id)]["models"])
        found = {**asdict(work), "model_count": models, "configuration_count": len(rows)}
        found |= workload_urls(meta["base_url"], meta["header"]["version"], work.id)
        if isinstance(work, GenerationWorkloadMeta):
            del found["frontier_url"]
        own = shape(work, meta)
        found |= {
            "unit": own.head["unit"],
            "latency_metric": own.latency_metric,
            "latency_limit": own.limit,
        }
        entries.append({key: found[key] for key in WORKLOAD_ENTRY_KEYS if key in found})
    docs[layout.WORKLOAD_LIST] = {**header(meta, date), "workloads": entries}
    docs[layout.UNITS] = units_document(entries, meta, date)
    return docs | build_frontiers(rows_by_task, docs, meta, date)


# the unit of each latency metric's values
LATENCY_UNITS = {
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


def units_document(entries: list[Doc], meta: Doc, date: str) -> Doc:
    """units.json: each workload list entry's unit, latency rule with the limit's unit, and
    frontier URL."""
    rows = unit_rows(entries, meta["base_url"], meta["header"]["version"])
    return {**header(meta, date), "definition": UNITS_DEFINITION, "workloads": rows}


def unit_rows(entries: list[Doc], base_url: str, version: str) -> list[Doc]:
    """Per workload list entry: its id, unit and latency rule, the limit's unit, and its
    frontier's URL."""
    return [
        {key: entry[key] for key in ("id", "unit", "latency_metric", "latency_limit")}
        | {"latency_unit": LATENCY_UNITS.get(entry["latency_metric"], "")}
        | {"frontier_url": layout.document_url(base_url, version, layout.frontier_rel(entry["id"]))}
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
    bests = [
        index_row(model, best, own.index_keys)
        for model in models
        for best in model["best"].values()
    ]
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
    # all but the two links
    entries = [{key: m[key] for key in MODEL_LIST_KEYS if key in m} for m in models]
    for entry in entries:
        entry["url"] = layout.document_url(base, version, layout.model_rel(entry["slug"], work.id))
        entry["page"] = layout.page_url(base, entry["slug"], work.id)
    kind = {"kind": work.kind} if isinstance(work, GenerationWorkloadMeta) else {}
    docs[layout.model_list_rel(work.id)] = {
        **header(meta, date),
        **kind,
        "source": own.source,
        "models": entries,
    }
    return docs


def model_document(rows: list[Any], meta: Doc, date: str, own: Shape) -> Doc:
    """One model's document from its rows (in upstream order)."""
    first, slug = rows[0], slugify(rows[0].nickname)
    confs = numbered(
        sorted(
            (own.make(r, slug, own.limit) for r in rows),
            key=lambda c: tuple(c[k] for k in own.order),
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


def llm_configuration(row: Row, slug: str, deadline_ms: float) -> Doc:
    """One upstream row as a published configuration: CONFIG_KEYS but the repeat number, in
    order."""
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
        "row_id": layout.row_id(slug, row.gpu_model, row.num_gpus, row.max_num_seqs),
    }


def numbered(confs: list[Doc]) -> list[Doc]:
    """Each configuration with its repeat number: how many times its row_id has come so far (in
    upstream order)."""
    seen: dict[str, int] = defaultdict(int)
    for conf in confs:
        seen[conf["row_id"]] += 1
        conf["repeat"] = seen[conf["row_id"]]
    return confs


def keyed_rows(rows: list[Any]) -> dict[tuple[str, int], Any]:
    """Each upstream row (LLM, image or video) by its configuration's (row_id, repeat), numbered
    as it is."""
    ids = [layout.row_id(slugify(r.nickname), r.gpu_model, *numbers_of(r)) for r in rows]
    confs = numbered([{"row_id": row_id} for row_id in ids])
    return {(conf["row_id"], conf["repeat"]): row for conf, row in zip(confs, rows, strict=True)}


def numbers_of(row: Row | GenRow) -> tuple[int, ...]:
    """The numbers of a row's id after its GPU: an LLM row's GPU count and max_num_seqs, an image or
    video row's GPU count, batch size and parallel degrees."""
    if isinstance(row, GenRow):
        return row.num_gpus, row.batch_size, row.ulysses_degree, row.ring_degree
    return row.num_gpus, row.max_num_seqs


def best_by_gpu(
    confs: list[Doc], within: str = "under_itl_deadline", joules: str = MEASURE_KEYS["llm"][0]
) -> Doc:
    """Per GPU, the lowest-energy configuration among those flagged `within` (the first on a
    tie)."""
    under = [conf for conf in confs if conf[within]]
    gpus = sorted({conf["gpu"] for conf in under})
    return {
        gpu: dict(min((c for c in under if c["gpu"] == gpu), key=lambda c: c[joules]))
        for gpu in gpus
    }


def header(meta: Doc, date: str) -> Doc:
    return {"version": meta["header"]["version"], "updated": date, "data_version": date}


def shared_tail(meta: Doc, source: Doc) -> Doc:
    return {
        "source": source,
        "caveat": meta["header"]["caveat"],
        "boundary": meta["header"]["boundary"],
    }


def index_row(model: Doc, best: Doc, keys: tuple[str, ...] = ("model", *INDEX_ROW_KEYS)) -> Doc:
    """The index row of one model's best configuration on one GPU."""
    named = {"model": model["name"], **{key: model[key] for key in MODEL_KEYS_IN_ROW}}
    return {key: named[key] if key in named else best[key] for key in keys}


def config_keys(kind: str) -> tuple[str, ...]:
    """An image or video configuration's keys, in order (its CSV's columns after the model's)."""
    joules, wh, throughput = MEASURE_KEYS[kind]
    tail = (
        joules,
        wh,
        "batch_latency_s",
        throughput,
        "gpu_power_watts_total",
        "under_latency_limit",
    )
    return (*SETUP_KEYS, *MEDIA_KEYS[kind], *tail, "row_id", "repeat", *PER_SECOND[kind])


def index_row_keys(kind: str) -> tuple[str, ...]:
    joules, wh, throughput = MEASURE_KEYS[kind]
    head = ("model", *MODEL_KEYS_IN_ROW, *SETUP_KEYS, *MEDIA_KEYS[kind])
    tail = (joules, "batch_latency_s", throughput, "gpu_power_watts_total", "row_id", "repeat")
    return (*head, wh, *PER_SECOND[kind], *tail)


def sig4(value: float) -> float:
    """A value rounded to 4 significant digits."""
    return float(f"{value:.4g}")


def generation_configuration(row: GenRow, slug: str, limit_s: float, kind: str) -> Doc:
    """One image or video upstream row as a published configuration: config_keys(kind) but the
    repeat, in order."""
    joules, wh, throughput = MEASURE_KEYS[kind]
    parallel = numbers_of(row)
    conf: Doc = {"gpu": row.gpu_model, **dict(zip(SETUP_KEYS[1:5], parallel, strict=True))}
    conf |= {"inference_steps": row.inference_steps, "precision": PRECISIONS[row.weight_precision]}
    conf |= {key: getattr(row, key) for key in MEDIA_KEYS[kind]}
    conf |= {
        joules: round(row.energy_joules, 4),
        wh: round(row.energy_joules * WH_PER_JOULE[kind], 2),
    }
    # Wh per second of video: Wh per video over its length, num_frames / fps seconds
    if kind == "video":
        conf["wh_per_video_second"] = round(row.energy_joules / 3600 / video_seconds(row), 4)
    return conf | {
        "batch_latency_s": round(row.batch_latency_s, 3),
        throughput: sig4(row.throughput_per_sec),
        "gpu_power_watts_total": round(row.avg_power_watts),
        "under_latency_limit": row.batch_latency_s <= limit_s,
        "row_id": layout.row_id(slug, row.gpu_model, *parallel),
    }


def video_seconds(row: GenRow) -> float:
    """A video's length in seconds: num_frames / fps (both present and positive in a checked
    video row)."""
    if row.num_frames is None or row.fps is None:  # upstream.py requires both of every video row
        raise ValueError("a video row without num_frames or fps")
    return row.num_frames / row.fps


def build_frontiers(
    rows_by_task: dict[str, list[Any]], docs: dict[str, Doc], meta: Doc, date: str
) -> dict[str, Doc]:
    """Every workload's frontier document by path: its models in model-list order, each GPU type
    in key order."""
    found = {}
    for work in [*llm_workloads(meta), *generation_workloads(meta)]:
        own, keyed = shape(work, meta), keyed_rows(rows_by_task[work.task])
        extra: Callable[[tuple[str, int]], Doc] = no_extra
        head: Doc
        if isinstance(work, GenerationWorkloadMeta):
            axes, targets = GENERATION_AXES[work.kind], latency_targets(own.limit)
            points = {key: (row.energy_joules, row.batch_latency_s) for key, row in keyed.items()}
            head = {
                "kind": work.kind,
                "unit": work.unit,
                "latency_metric": LATENCY_METRIC,
                "definition": DEFINITION,
            }
            head |= {"latency_limit_s": own.limit, "latency_targets_s": targets}
        else:
            axes, targets = LLM_AXES, meta["frontier"]["itl_targets_ms"]
            extra = partial(response_of, keyed)
            points = {
                key: (row.energy_per_token_joules, row.median_itl_ms) for key, row in keyed.items()
            }
            head = {
                "unit": own.head["unit"],
                "latency_metric": own.latency_metric,
                "definition": LLM_DEFINITION,
            }
            head |= {"itl_targets_ms": list(targets)}
        models = []
        for entry in docs[layout.model_list_rel(work.id)]["models"]:
            confs = docs[layout.model_rel(entry["slug"], work.id)]["configurations"]
            models.append(
                {"slug": entry["slug"], **model_frontier(confs, points, axes, targets, extra)}
            )
        version = {"version": meta["header"]["version"], "workload": work.id, "data_version": date}
        found[layout.frontier_rel(work.id)] = {**version, **head, "models": models}
    return found


def no_extra(_key: tuple[str, int]) -> Doc:
    """A generation frontier entry's values beyond its configuration's: none."""
    return {}


def response_of(keyed: dict[tuple[str, int], Any], key: tuple[str, int]) -> Doc:
    """An LLM frontier entry's energy per response and the mean output length it rests on, from
    its upstream row."""
    row = keyed[key]
    return {
        "mean_output_tokens": round(row.avg_output_len, 2),
        "joules_per_response": round(row.energy_per_request_joules, 4),
    }
