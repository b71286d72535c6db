"""Pure derivation of a generation workload's documents and flat CSV from its checked rows (no I/O).

Per workload (below workloads/<id>/): index.json, models.json, models/<slug>.json and
configurations.csv. Energy is per image or per video; `best` and the index pick, per model and
GPU type, the lowest energy among configurations whose batch_latency_s is within the limit.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any

from builder.csvview import cell
from builder.generation import PRECISIONS, GenRow
from builder.genmeta import LATENCY_METRIC, GenerationWorkload
from builder.layout import CSV, document_url, index_rel, model_list_rel, model_rel, model_url, page_url, workload_dir
from builder.metadata import SOURCE_KEYS
from builder.slug import slugify
from builder.transform import best_by_gpu, header, model_identity, shared_tail

Doc = dict[str, Any]
MODEL_COLUMNS = ("workload", "slug", "name", "model_id")
SETUP_KEYS = ("gpu", "num_gpus", "batch_size", "ulysses_degree", "ring_degree", "inference_steps", "precision")
ENTRY_KEYS_ADDED = ("kind", "unit", "latency_metric", "latency_limit")  # every workload list entry gains these


def measure_keys(kind: str) -> tuple[str, str, str]:
    """(energy in joules, headline energy, throughput) field names of a kind."""
    if kind == "image":
        return "joules_per_image", "wh_per_thousand_images", "images_per_second"
    return "joules_per_video", "wh_per_video", "videos_per_second"


def config_keys(kind: str) -> tuple[str, ...]:
    """A configuration's keys, in order (the CSV's columns after MODEL_COLUMNS)."""
    joules, wh, throughput = measure_keys(kind)
    media = ("width", "height", "num_frames", "fps") if kind == "video" else ("width", "height")
    tail = (
        joules,
        wh,
        "batch_latency_s",
        throughput,
        "gpu_power_watts_total",
        "under_latency_limit",
        "row_id",
        "repeat",
    )
    return (*SETUP_KEYS, *media, *tail)


def csv_columns(kind: str) -> tuple[str, ...]:
    return (*MODEL_COLUMNS, *config_keys(kind))


def index_row_keys(kind: str) -> tuple[str, ...]:
    joules, wh, throughput = measure_keys(kind)
    head = ("model", "slug", "model_id", "params_b", "active_params_b", *SETUP_KEYS)
    return (*head, wh, joules, "batch_latency_s", throughput, "gpu_power_watts_total", "row_id", "repeat")


MODEL_ENTRY_KEYS = ("slug", "name", "model_id", "params_b", "active_params_b", "gpus", "url", "page")


def sig4(value: float) -> float:
    """A value rounded to 4 significant digits."""
    return float(f"{value:.4g}")


def gen_row_id(slug: str, gpu: str, num_gpus: int, batch_size: int, ulysses: int, ring: int) -> str:
    """The natural key of a generation configuration (with its repeat number, when upstream repeats it)."""
    return f"{slug}/{gpu}/{num_gpus}/{batch_size}/{ulysses}/{ring}"


def configuration(row: GenRow, slug: str, kind: str, limit_s: float) -> Doc:
    """One upstream row as a published configuration (without its repeat number)."""
    joules, wh, throughput = measure_keys(kind)
    conf: Doc = {
        "gpu": row.gpu_model,
        "num_gpus": row.num_gpus,
        "batch_size": row.batch_size,
        "ulysses_degree": row.ulysses_degree,
        "ring_degree": row.ring_degree,
        "inference_steps": row.inference_steps,
        "precision": PRECISIONS[row.weight_precision],
        "width": row.width,
        "height": row.height,
    }
    if kind == "video":
        conf |= {"num_frames": row.num_frames, "fps": row.fps}
    per_wh = 1000 / 3600 if kind == "image" else 1 / 3600  # Wh per 1,000 images, or per video
    conf |= {
        joules: round(row.energy_joules, 4),
        wh: round(row.energy_joules * per_wh, 2),
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
    """The source block: the shared fields, and the workload's own data_url, workload, configurations,
    method, selection and used_for."""
    own = {
        "data_url": work.data_url,
        "workload": f"{work.name} ({work.task})",
        "configurations": work.configurations,
        "method": work.method,
        "selection": work.selection,
        "used_for": work.used_for,
    }
    merged = {**meta["source"], **own}
    return {key: merged[key] for key in SOURCE_KEYS}


def model_document(rows: list[GenRow], meta: Doc, date: str, work: GenerationWorkload) -> Doc:
    first = rows[0]
    slug = slugify(first.nickname)
    confs = configurations(rows, slug, work.kind, work.latency_limit_s)
    return {
        **header(meta, date),
        "kind": work.kind,
        "unit": work.unit,
        "latency_limit_s": work.latency_limit_s,
        **shared_tail(meta, source(meta, work)),
        **model_identity(slug, first),
        "gpus": sorted({c["gpu"] for c in confs}),
        "configurations": confs,
        "best": best_by_gpu(confs, "under_latency_limit", measure_keys(work.kind)[0]),
    }


def index_rows(models: list[Doc], kind: str) -> list[Doc]:
    """One row per model and GPU (its best), sorted by energy (stable: ties keep slug order)."""
    keys = index_row_keys(kind)
    rows = []
    for model in models:
        for best in model["best"].values():
            found = {
                "model": model["name"],
                **{k: model[k] for k in ("slug", "model_id", "params_b", "active_params_b")},
            }
            rows.append({key: found[key] if key in found else best[key] for key in keys})
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


def model_list_document(models: list[Doc], meta: Doc, date: str, work: GenerationWorkload) -> Doc:
    base, version = meta["base_url"], meta["header"]["version"]
    entries = [
        {
            **{key: m[key] for key in MODEL_ENTRY_KEYS[:-2]},
            "url": model_url(base, version, m["slug"], work.id),
            "page": page_url(base, m["slug"], work.id),
        }
        for m in models
    ]
    return {**header(meta, date), "kind": work.kind, "source": source(meta, work), "models": entries}


def build_documents(rows: list[GenRow], meta: Doc, date: str, work: GenerationWorkload) -> dict[str, Doc]:
    """Every JSON document of one generation workload, keyed by its path inside the data folder."""
    groups: dict[str, list[GenRow]] = defaultdict(list)
    for row in rows:
        groups[row.model_id].append(row)
    models = sorted((model_document(g, meta, date, work) for g in groups.values()), key=lambda m: m["slug"])
    docs = {model_rel(m["slug"], work.id): m for m in models}
    docs[index_rel(work.id)] = index_document(models, meta, date, work)
    docs[model_list_rel(work.id)] = model_list_document(models, meta, date, work)
    return docs


def csv_rel(workload: str) -> str:
    return workload_dir(workload) + CSV


def configurations_csv(docs: dict[str, Doc], work: GenerationWorkload) -> bytes:
    """The flat table of one generation workload: its models in slug order, their configurations in order."""
    models = sorted(
        (doc for rel, doc in docs.items() if rel.startswith(workload_dir(work.id) + "models/")), key=lambda m: m["slug"]
    )
    keys = config_keys(work.kind)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(csv_columns(work.kind))
    for model in models:
        head = [work.id, model["slug"], model["name"], model["model_id"]]
        for conf in model["configurations"]:
            writer.writerow([*head, *(cell(conf[k]) for k in keys)])
    return buf.getvalue().encode("utf-8")


def workload_entry(work: GenerationWorkload, docs: dict[str, Doc], base_url: str, version: str) -> Doc:
    """A generation workload's entry in the workload list (the LLM entries' keys, then ENTRY_KEYS_ADDED)."""
    models = docs[model_list_rel(work.id)]["models"]
    confs = sum(len(docs[model_rel(m["slug"], work.id)]["configurations"]) for m in models)
    return {
        "id": work.id,
        "name": work.name,
        "task": work.task,
        "description": work.description,
        "model_count": len(models),
        "configuration_count": confs,
        "index_url": document_url(base_url, version, index_rel(work.id)),
        "models_url": document_url(base_url, version, model_list_rel(work.id)),
        "data_url": work.data_url,
        "kind": work.kind,
        "unit": work.unit,
        "latency_metric": LATENCY_METRIC,
        "latency_limit": work.latency_limit_s,
    }


def llm_entry_added(meta: Doc) -> Doc:
    """What an LLM workload's entry gains: its kind, headline unit and latency rule (from [header])."""
    h = meta["header"]
    return {"kind": "llm", "unit": h["unit"], "latency_metric": "median_itl_ms", "latency_limit": h["itl_deadline_ms"]}
