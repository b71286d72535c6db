"""The pages that gather models: a workload, a GPU type, every model, the home page and the 404 page."""

from __future__ import annotations

import math
import posixpath
from typing import Any
from urllib.parse import urlsplit

from builder.release.rules import Version
from builder.site import listing, render, targets, views
from builder.site.catalog import LLM, Workload, gpu_slug
from builder.site.load import Package
from builder.site.summary import Summary
from builder.site.urls import API_PREFIX, href
from builder.site.views import ENERGY, GPU_POWER, MAX_SEQS, MEDIAN, Column, frame, table

HOME = [("Home", "index.html")]
INDEX_COLUMNS = (ENERGY, MEDIAN, MAX_SEQS, GPU_POWER)


def gpu_page(gpu: str) -> str:
    return f"gpus/{gpu_slug(gpu)}/index.html"


def _energy(conf: dict[str, Any] | None) -> float:
    return math.inf if conf is None else float(conf["wh_per_million_output_tokens"])


def comparison(work: Workload, sums: dict[str, Summary], page: str, target: int) -> dict[str, Any]:
    """Every model's lowest energy under target ms, a column per GPU type, lowest first."""
    gpus = sorted({g for m in work.models for g in sums[m.doc_rel].gpus})
    rows = []
    for model in work.models:
        found = sums[model.doc_rel]
        picks = [found.under.get(gpu, {}).get(str(target)) for gpu in gpus]
        cells = [views.pick(p) if gpu in found.gpus else "unmeasured" for p, gpu in zip(picks, gpus, strict=True)]
        low = min(picks, key=_energy) if picks else None
        rows.append({"name": model.name, "href": href(page, model.page), "cells": cells, "low": low})
    rows.sort(key=lambda r: (_energy(r["low"]), r["name"]))
    return {"target": target, "gpus": gpus, "rows": rows}


HEADLINES = {"image": "wh_per_thousand_images", "video": "wh_per_video"}


LATENCY = Column("batch_latency_s", "Batch latency", "s", 3)
IMAGES, VIDEOS = Column("batch_size", "Batch size", "images", 0), Column("batch_size", "Batch size", "videos", 0)
GENERATION_KEY = {  # by workload kind: energy and latency first
    "image": (Column("wh_per_thousand_images", "Energy", "Wh per 1,000 images", 2), LATENCY, IMAGES,
              Column("images_per_second", "Output", "images per s", "sig"), GPU_POWER),
    "video": (Column("wh_per_video", "Energy", "Wh per video", 2), LATENCY, VIDEOS,
              Column("videos_per_second", "Output", "videos per s", "sig"), GPU_POWER),
}  # fmt: skip
GENERATION_DETAIL = (
    Column("ulysses_degree", "Ulysses", "GPUs", 0, "Ulysses sequence parallelism: GPUs that split the attention heads"),
    Column("ring_degree", "Ring", "GPUs", 0, "ring attention: GPUs that split the sequence"),
    Column("inference_steps", "Steps", "denoising", 0),
    Column("precision", "Precision", "weights"),
    Column("width", "Width", "px", 0),
    Column("height", "Height", "px", 0),
    Column("num_frames", "Frames", "per video", 0),
    Column("fps", "Frame rate", "per s", 0),
    Column("joules_per_image", "Energy", "J per image", "sig"),
    Column("joules_per_video", "Energy", "J per video", "sig"),
    Column("under_latency_limit", "Within the limit", "batch latency", "yes/no"),
    Column("repeat", "Repeat", "run", 0),
)


def generation_tables(doc: dict[str, Any], kind: str) -> dict[str, Any]:
    """A generation model's tables: lowest energy per GPU type, every configuration, then their setup."""
    configs, key = doc["configurations"], views.present(GENERATION_KEY[kind], doc["configurations"])
    best = table(key, [doc["best"][gpu] for gpu in doc["gpus"] if doc["best"].get(gpu)])
    every = views.marked(key, configs, doc["best"].values())
    return {"best": best, "key": every, "detail": table(views.present(GENERATION_DETAIL, configs), configs)}


def _index(work: Workload, rows: list[dict[str, Any]], columns: list[Column], page: str) -> dict[str, Any]:
    """A workload's index table (model, GPU setup, then columns), each model linked to its page."""
    index, by_slug = table(columns, rows), {}
    for m in work.models:
        by_slug.setdefault(m.slug, m)
    for out, row in zip(index["rows"], rows, strict=True):
        model = by_slug.get(row["slug"])
        out["model"] = {"name": row["model"], "href": href(page, model.page) if model else None}
    return index


def workload_view(work: Workload, index: dict, sums: dict[str, Summary], chart: dict | None, common: dict) -> dict:
    """A workload's page: its description, comparison at the chosen target, chart, index and model list."""
    page = work.page
    folder = page.removesuffix("index.html") + "models/"
    rows = index.get("rows", [])
    llm = work.kind == LLM
    view = {
        **frame(page, work.name, f"{work.name}: {work.description} GPU energy per model and GPU.", HOME, common),
        "work": work,
        "llm": llm,
        "chart": chart,
        "unit": index.get("unit", ""),
        "caveat": index.get("caveat", ""),
        "models": [{"name": m.name, "href": href(page, m.page)} for m in work.models],
        "folder_href": href(page, folder + "index.html")
        if any(m.page.startswith(folder) for m in work.models)
        else None,
        "json": [(label, href(page, path)) for label, path in common["json"]],
        "source": common["source"],
        "configurations": sum(sums[m.doc_rel].configurations for m in work.models),
    }
    if llm:
        view["compare"] = comparison(work, sums, page, targets.CHOSEN_MS)
        view["index"] = _index(work, rows, list(INDEX_COLUMNS), page)
    else:
        headline = Column(HEADLINES[work.kind], "Energy", index.get("unit", ""), 2)
        view["index"] = _index(work, rows, [headline, LATENCY], page)
        view["limit"] = index.get("latency_limit_s")
    return view


def gpu_view(gpu: str, works: list[Workload], sums: dict[str, Summary], common: dict) -> dict:
    """A GPU type's page: per workload, every model measured on it, lowest overall and under each target."""
    page, sections = gpu_page(gpu), []
    for work in works:
        rows = []
        for model in work.models:
            found = sums[model.doc_rel]
            if gpu not in found.gpus:
                continue
            if work.kind == LLM:
                cells = [views.pick(found.best.get(gpu))] + [
                    views.pick(found.under[gpu].get(str(t))) for t in found.targets
                ]
            else:
                cells = [found.shown.get(gpu)]
            rows.append({"name": model.name, "href": href(page, model.page), "cells": cells, "slug": model.slug})
        if rows:
            heads = ["Lowest energy, batch latency within the limit"]
            if work.kind == LLM:
                heads = ["Any latency"] + [f"Under {t} ms" for t in targets.TARGETS_MS]
            sections.append({"work": work, "href": href(page, work.page), "heads": heads, "rows": rows})
    description = (
        f"Every model measured on {gpu}: its lowest-energy configuration, overall and under 50, 100, 200 ms "
        "for language models, within the batch latency limit for image and video generation."
    )
    return {**frame(page, f"{gpu} GPUs", description, [("Home", "index.html"), ("GPUs", views.GPUS_PAGE)], common),
            "gpu": gpu, "sections": sections}  # fmt: skip


def gpus_view(gpus: list[str], sums: dict[str, Summary], works: list[Workload], common: dict) -> dict:
    """The GPU types page: each type with the number of models its page lists."""
    page = views.GPUS_PAGE
    items = []
    for gpu in gpus:
        n = len({m.slug for w in works for m in w.models if gpu in sums[m.doc_rel].gpus})
        items.append({"label": gpu, "href": href(page, gpu_page(gpu)), "models": n})
    description = "The GPU types measured, each with every model's lowest-energy configuration on it."
    return {**frame(page, "GPU types", description, [("Home", "index.html")], common), "items": items}


def models_view(works: list[Workload], sums: dict[str, Summary], common: dict) -> dict:
    """Every model across workloads, alphabetically, with a link to its page in each workload."""
    page, by_slug = views.MODELS_PAGE, {}
    for work in works:
        for model in work.models:
            entry = by_slug.setdefault(model.slug, {"name": model.name, "links": [], "doc": sums[model.doc_rel]})
            entry["links"].append({"label": work.name, "href": href(page, model.page)})
    rows = []
    for _slug, entry in sorted(by_slug.items(), key=lambda item: (item[1]["name"].lower(), item[0])):
        found = entry["doc"]
        rows.append({"name": entry["name"], "params": found.params, "architecture": found.architecture,
                     "links": entry["links"]})  # fmt: skip
    description = f"All {len(rows)} models measured, with links to their page in each workload."
    return {**frame(page, "All models", description, [("Home", "index.html")], common), "rows": rows}


def workloads_view(works: list[Workload], sums: dict[str, Summary], page: str) -> list:
    """A row per workload for the home page and the workloads page: size and the lowest energy at 100 ms."""
    rows = []
    for work in works:
        low = None
        if work.kind == LLM:
            compare = comparison(work, sums, page, targets.CHOSEN_MS)
            best = next((r for r in compare["rows"] if r["low"] is not None), None)
            if best is not None:
                low = {"model": best["name"], "href": best["href"], **views.pick(best["low"]), "unit": ""}
        else:
            picks = [(p["value"], m.name, m.page, p) for m in work.models for p in sums[m.doc_rel].shown.values()]
            if picks:
                _, name, model_page, p = min(picks, key=lambda x: (x[0], x[1]))
                low = {"model": name, "href": href(page, model_page), **p, "unit": work.unit}
        configs = sum(sums[m.doc_rel].configurations for m in work.models)
        rows.append({"name": work.name, "href": href(page, work.page), "description": work.description,
                     "models": len(work.models), "configurations": configs, "low": low})  # fmt: skip
    return rows


HOME_PAGE = "index.html"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"
TITLE = "LeadGreen: GPU energy of AI models, per configuration"


def provenance(works: list[Workload], licences: list[tuple[str, str]], page: str) -> dict[str, Any]:
    """The shared source block, and per workload its upstream task, file and commit."""
    first = next((w.source for w in works if w.source), {})
    view = views.source_view(first, licences)
    view["workloads"] = [{**views.source_view(w.source, [], w), "href": href(page, w.page)} for w in works if w.source]
    return view


def render_home(
    pkg: Package, files: dict[str, int], works: list[Workload], sums: dict[str, Summary], ctx: dict
) -> bytes:
    """The overview, then how to use the data; files: every site file written so far, by path and size."""
    version = ctx["data_version"]
    dated = [str(doc["data_version"]) for doc in pkg.docs.values() if doc.get("data_version")]
    versions = sorted({*dated, *ctx["versions"]})  # ctx["versions"]: the model documents' data versions
    rows = workloads_view(works, sums, HOME_PAGE)
    description = (
        f"GPU energy per output token of {sum(r['models'] for r in rows)} model pages in {len(works)} workloads, "
        "per GPU setup and latency target, from the ML.ENERGY Leaderboard: tables, charts, JSON and CSV."
    )
    downloads = [
        {"label": path.removeprefix(DOWNLOAD), "href": href(HOME_PAGE, path), "size": listing.size(files[path])}
        for path in sorted(files)
        if path.startswith(DOWNLOAD) and (path.count("/") == 1 or path.endswith(".csv"))
    ]
    context = {
        **views.frame(HOME_PAGE, TITLE, description, [], ctx),
        "rows": rows,
        "versions": versions,
        "tag": Version(version).tag,
        "downloads": downloads,
        "download_href": href(HOME_PAGE, DOWNLOAD + "index.html"),
        "api_href": href(HOME_PAGE, API_PREFIX + "index.html"),
        "schemas_href": href(HOME_PAGE, "schemas/v1/index.html"),
        "base_url": pkg.base_url,
        "repository": pkg.repository,
        "citation_href": href(HOME_PAGE, CITATION) if CITATION in files else None,
        "source": provenance(works, ctx["licences"], HOME_PAGE),
        "schemas": [
            {"label": posixpath.basename(p), "href": href(HOME_PAGE, p)} for p in sorted(ctx["schemas"].values())
        ],
    }
    return render.render("index.html", context)


def render_404(pkg: Package, common: dict) -> bytes:
    """The not-found page: served at any path, so its links start at the site root."""
    root = urlsplit(pkg.base_url).path.rstrip("/") + "/"

    def link(path: str) -> str:
        return root + (path.removesuffix("index.html") if path.endswith("index.html") else path)

    crumbs = [("Home", HOME_PAGE)]
    frame = views.frame("404.html", "Page not found", "No page at this address.", crumbs, {**common, "link": link})
    return render.render("404.html", frame)
