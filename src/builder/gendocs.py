"""Pure derivation of a generation workload's documents and CSV from its checked rows (no I/O).

Per workload (below workloads/<id>/): index.json, models.json, models/<slug>.json and configurations.csv.
`best` and the index pick, per model and GPU type, the lowest energy within the batch-latency limit.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from builder.csvview import MODEL_COLUMNS, write_csv
from builder.generation import GenRow
from builder.genmeta import LATENCY_METRIC, GenerationWorkload
from builder.layout import CSV, index_rel, model_list_rel, model_rel, workload_dir
from builder.metadata import source_for
from builder.slug import slugify
from builder.transform import best_by_gpu, header, model_identity, shared_tail
from builder.transform import model_list_document as llm_model_list_document
from builder.transform import workload_entry as llm_workload_entry
from builder.upstream import PRECISIONS

Doc = dict[str, Any]
SETUP_KEYS = ("gpu", "num_gpus", "batch_size", "ulysses_degree", "ring_degree", "inference_steps", "precision")
MEDIA_KEYS = {"image": ("width", "height"), "video": ("width", "height", "num_frames", "fps")}
WH_PER_JOULE = {"image": 1000 / 3600, "video": 1 / 3600}  # Wh per 1,000 images, or per video
MODEL_ENTRY_KEYS = ("slug", "name", "model_id", "params_b", "active_params_b", "gpus", "url", "page")


def measure_keys(kind: str) -> tuple[str, str, str]:
    """(energy in joules, headline energy, throughput) field names of a kind."""
    if kind == "image":
        return "joules_per_image", "wh_per_thousand_images", "images_per_second"
    return "joules_per_video", "wh_per_video", "videos_per_second"


def config_keys(kind: str) -> tuple[str, ...]:
    """A configuration's keys, in order (the CSV's columns after MODEL_COLUMNS)."""
    joules, wh, throughput = measure_keys(kind)
    tail = (joules, wh, "batch_latency_s", throughput, "gpu_power_watts_total", "under_latency_limit")
    return (*SETUP_KEYS, *MEDIA_KEYS[kind], *tail, "row_id", "repeat")


def index_row_keys(kind: str) -> tuple[str, ...]:
    joules, wh, throughput = measure_keys(kind)
    head = ("model", "slug", "model_id", "params_b", "active_params_b", *SETUP_KEYS)
    return (*head, wh, joules, "batch_latency_s", throughput, "gpu_power_watts_total", "row_id", "repeat")


def sig4(value: float) -> float:
    """A value rounded to 4 significant digits."""
    return float(f"{value:.4g}")


def gen_row_id(slug: str, gpu: str, num_gpus: int, batch_size: int, ulysses: int, ring: int) -> str:
    """The natural key of a generation configuration (with its repeat number, when upstream repeats it)."""
    return f"{slug}/{gpu}/{num_gpus}/{batch_size}/{ulysses}/{ring}"


def configuration(row: GenRow, slug: str, kind: str, limit_s: float) -> Doc:
    """One upstream row as a published configuration (without its repeat number)."""
    joules, wh, throughput = measure_keys(kind)
    conf: Doc = {"gpu": row.gpu_model}
    conf |= {key: getattr(row, key) for key in ("num_gpus", "batch_size", "ulysses_degree", "ring_degree")}
    conf |= {"inference_steps": row.inference_steps, "precision": PRECISIONS[row.weight_precision]}
    conf |= {key: getattr(row, key) for key in MEDIA_KEYS[kind]}
    conf |= {
        joules: round(row.energy_joules, 4),
        wh: round(row.energy_joules * WH_PER_JOULE[kind], 2),
        "batch_latency_s": round(row.batch_latency_s, 3),
        throughput: sig4(row.throughput_per_sec),
        "gpu_power_watts_total": round(row.avg_power_watts),
        "under_latency_limit": row.batch_latency_s <= limit_s,
        "row_id": gen_row_id(slug, row.gpu_model, row.num_gpus, row.batch_size, row.ulysses_degree, row.ring_degree),
    }
    return conf


def configurations(rows: list[GenRow], slug: str, kind: str, limit_s: float) -> list[Doc]:
    """Sorted by (gpu, num_gpus, batch_size, ulysses_degree, ring_degree), repeats numbered in upstream order."""
    ordered = sorted(rows, key=lambda r: (r.gpu_model, r.num_gpus, r.batch_size, r.ulysses_degree, r.ring_degree))
    seen: dict[str, int] = defaultdict(int)
    confs = []
    for row in ordered:
        conf = configuration(row, slug, kind, limit_s)
        seen[conf["row_id"]] += 1
        conf["repeat"] = seen[conf["row_id"]]
        confs.append(conf)
    return confs


def source(meta: Doc, work: GenerationWorkload) -> Doc:
    """The source block of an LLM workload, with the workload's own method, selection and used_for."""
    own = {"method": work.method, "selection": work.selection, "used_for": work.used_for}
    return {**source_for(meta, work), **own}  # source_for reads the fields both kinds of workload have


def model_document(rows: list[GenRow], meta: Doc, date: str, work: GenerationWorkload) -> Doc:
    slug = slugify(rows[0].nickname)
    confs = configurations(rows, slug, work.kind, work.latency_limit_s)
    return {
        **header(meta, date),
        "kind": work.kind,
        "unit": work.unit,
        "latency_limit_s": work.latency_limit_s,
        **shared_tail(meta, source(meta, work)),
        **model_identity(slug, rows[0]),
        "gpus": sorted({c["gpu"] for c in confs}),
        "configurations": confs,
        "best": best_by_gpu(confs, "under_latency_limit", measure_keys(work.kind)[0]),
    }


def index_rows(models: list[Doc], kind: str) -> list[Doc]:
    """One row per model and GPU (its best), sorted by energy (stable: ties keep slug order)."""
    keys = index_row_keys(kind)
    rows = []
    for model in models:
        named = {"model": model["name"], **{k: model[k] for k in ("slug", "model_id", "params_b", "active_params_b")}}
        rows += [{key: named[key] if key in named else best[key] for key in keys} for best in model["best"].values()]
    return sorted(rows, key=lambda r: r[measure_keys(kind)[0]])


def index_document(models: list[Doc], meta: Doc, date: str, work: GenerationWorkload) -> Doc:
    return {
        **header(meta, date),
        "kind": work.kind,
        "unit": work.unit,
        "workload": work.id,
        "latency_limit_s": work.latency_limit_s,
        "selection": work.selection,
        "reference_row": work.reference_row,
        **shared_tail(meta, source(meta, work)),
        "rows": index_rows(models, work.kind),
    }


def build_documents(rows: list[GenRow], meta: Doc, date: str, work: GenerationWorkload) -> dict[str, Doc]:
    """Every JSON document of one generation workload, keyed by its path inside the data folder."""
    groups: dict[str, list[GenRow]] = defaultdict(list)
    for row in rows:
        groups[row.model_id].append(row)
    models = sorted((model_document(g, meta, date, work) for g in groups.values()), key=lambda m: m["slug"])
    docs = {model_rel(m["slug"], work.id): m for m in models}
    docs[index_rel(work.id)] = index_document(models, meta, date, work)
    model_list = llm_model_list_document(models, meta, date, work.id, source(meta, work))
    docs[model_list_rel(work.id)] = {**header(meta, date), "kind": work.kind, **model_list}
    return docs


def csv_rel(workload: str) -> str:
    return workload_dir(workload) + CSV


def configurations_csv(docs: dict[str, Doc], work: GenerationWorkload) -> bytes:
    """The flat table of one generation workload: its models in slug order, their configurations in order."""
    folder = workload_dir(work.id) + "models/"
    models = sorted((doc for rel, doc in docs.items() if rel.startswith(folder)), key=lambda m: m["slug"])
    rows = (
        [work.id, model["slug"], model["name"], model["model_id"], *(conf[k] for k in config_keys(work.kind))]
        for model in models
        for conf in model["configurations"]
    )
    return write_csv((*MODEL_COLUMNS, *config_keys(work.kind)), rows)


def workload_entry(work: GenerationWorkload, docs: dict[str, Doc], base_url: str, version: str) -> Doc:
    """A generation workload's entry in the workload list: an LLM entry's keys but the frontier's, then its
    kind, unit and latency rule."""
    models = docs[model_list_rel(work.id)]["models"]
    confs = sum(len(docs[model_rel(m["slug"], work.id)]["configurations"]) for m in models)
    entry = llm_workload_entry(work, len(models), confs, base_url, version)  # it reads the fields both kinds have
    del entry["frontier_url"]  # a generation workload has no frontier
    return entry | {
        "kind": work.kind,
        "unit": work.unit,
        "latency_metric": LATENCY_METRIC,
        "latency_limit": work.latency_limit_s,
    }


def llm_entry_added(meta: Doc) -> Doc:
    """What an LLM workload's entry gains: its kind, headline unit and latency rule (from [header])."""
    h = meta["header"]
    return {"kind": "llm", "unit": h["unit"], "latency_metric": "median_itl_ms", "latency_limit": h["itl_deadline_ms"]}
