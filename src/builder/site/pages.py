"""The pages that gather models, the home, 404 and listing pages, the sitemap and robots.txt (pure)."""

import math
import posixpath
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from builder.errors import InputError
from builder.layout import MAX_GPUS_PER_TASK
from builder.release.rules import Version
from builder.site import targets, views, words
from builder.site.catalog import API_PREFIX, LLM, Workload, gpu_slug
from builder.site.charts import AXES, DOT_ROWS
from builder.site.load import Package
from builder.site.targets import Summary
from builder.site.views import ENERGY, GPU_POWER, HOME, LATENCY, MAX_SEQS, MEDIAN, Column, frame, table

HOME_PAGE = "index.html"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"


def gpu_page(gpu: str) -> str:
    return f"gpus/{gpu_slug(gpu)}/index.html"


def _energy(conf: dict[str, Any] | None) -> float:
    return math.inf if conf is None else float(conf["wh_per_million_output_tokens"])


def comparison(work: Workload, sums: dict[str, Summary], target: int) -> dict[str, Any]:
    """Every model's lowest energy under target ms, a column per GPU type (at most upstream's cap), lowest first."""
    gpus = sorted({g for m in work.models for g in sums[m.doc_rel].gpus})
    if len(gpus) > MAX_GPUS_PER_TASK:  # a cell per model and GPU type: past the cap, quadratic in the models
        msg = f"expected at most {MAX_GPUS_PER_TASK} GPU types in a workload, found {len(gpus):,}"
        raise InputError(f"data/{work.list_rel or work.index_rel}: /models: {msg} (run builder validate)")
    rows = []
    for model in work.models:
        found = sums[model.doc_rel]
        picks = [found.under.get(gpu, {}).get(str(target)) for gpu in gpus]
        cells = [p if gpu in found.gpus else "unmeasured" for p, gpu in zip(picks, gpus, strict=True)]
        low = min(picks, key=_energy) if picks else None
        rows.append({"model": model, "cells": cells, "low": low})
    rows.sort(key=lambda r: (_energy(r["low"]), r["model"].name))
    return {"target": target, "gpus": gpus, "rows": rows}


def index_columns(kind: str, unit: str) -> list[Column]:
    """The columns of a workload's index table after model and GPU setup (each a key of load.INDEX_SHOWN)."""
    if kind == LLM:
        return [ENERGY, MEDIAN, MAX_SEQS, GPU_POWER]
    return [Column(AXES[kind].energy, "Energy", unit, 2), LATENCY]


def workload_view(work: Workload, index: dict, sums: dict[str, Summary], chart: dict | None, common: dict) -> dict:
    """A workload's page: its description, comparison at the chosen target, chart, index and model list."""
    folder = work.page.removesuffix("index.html") + "models/"
    rows, llm = index.get("rows", []), work.kind == LLM
    columns = index_columns(work.kind, index.get("unit", ""))
    named = (("index", work.index_rel), ("model list", work.list_rel), ("frontier", work.frontier_rel))
    return frame(
        work.page,
        HOME,
        common,
        work=work,
        chart=chart,
        source=views.source_view(work.source, work),
        json=[(label, API_PREFIX + rel) for label, rel in named if rel],
        doc=index,
        folder=folder + "index.html" if any(m.page.startswith(folder) for m in work.models) else None,
        configurations=sum(sums[m.doc_rel].configurations for m in work.models),
        compare=comparison(work, sums, targets.CHOSEN_MS) if llm else None,
        index=table(columns, rows),
        pages={model.slug: model.page for model in reversed(work.models)},  # the first model of a slug
        dot_rows=DOT_ROWS,
    )


def gathering(
    pkg: Package, works: list[Workload], sums: dict[str, Summary], common: dict, files: dict
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, template, view) of the workloads, GPU, models, glossary, home, 404 and listing pages; files: sizes."""
    overview = []  # a row per workload: size and the lowest energy (LLM: at 100 ms)
    for work in works:
        energy = AXES[work.kind].energy
        if work.kind == LLM:
            lows = [(r["low"], r["model"]) for r in comparison(work, sums, targets.CHOSEN_MS)["rows"]]
        else:
            lows = [(p, m) for m in work.models for p in sums[m.doc_rel].best.values()]
        low = min((x for x in lows if x[0]), key=lambda x: (x[0][energy], x[1].name), default=None)
        configs = sum(sums[m.doc_rel].configurations for m in work.models)
        overview.append({"work": work, "configurations": configs, "low": low, "energy": energy})
    yield views.WORKLOADS_PAGE, "workloads.html", frame(views.WORKLOADS_PAGE, HOME, common, rows=overview)
    measured: dict[str, dict[int, list]] = {}  # GPU type -> workload's place -> (model, summary), in list order
    for i, work in enumerate(works):
        for model in work.models:
            for gpu in dict.fromkeys(sums[model.doc_rel].gpus):
                measured.setdefault(gpu, {}).setdefault(i, []).append((model, sums[model.doc_rel]))
    gpus = sorted(measured)
    for gpu in gpus:
        sections = [{"work": works[i], "rows": rows, "energy": AXES[works[i].kind].energy}
                    for i, rows in measured[gpu].items()]  # fmt: skip
        crumbs = [*HOME, ("GPUs", views.GPUS_PAGE)]
        view = frame(gpu_page(gpu), crumbs, common, gpu=gpu, sections=sections, targets=targets.TARGETS_MS)
        yield gpu_page(gpu), "gpu.html", view
    counts = [len({m.slug for rows in measured[gpu].values() for m, _ in rows}) for gpu in gpus]
    items = [(gpu, gpu_page(gpu), n) for gpu, n in zip(gpus, counts, strict=True)]
    yield views.GPUS_PAGE, "gpus.html", frame(views.GPUS_PAGE, HOME, common, items=items)
    by_slug: dict[str, dict[str, Any]] = {}
    for work in works:
        for model in work.models:
            row = {"model": model, "summary": sums[model.doc_rel], "links": []}
            by_slug.setdefault(model.slug, row)["links"].append((work.name, model.page))
    models = [row for _, row in sorted(by_slug.items(), key=lambda item: (item[1]["model"].name.lower(), item[0]))]
    yield views.MODELS_PAGE, "models.html", frame(views.MODELS_PAGE, HOME, common, rows=models)
    yield views.GLOSSARY, "glossary.html", frame(views.GLOSSARY, HOME, common)
    shown = [p for p in sorted(files) if p.startswith(DOWNLOAD) and (p.count("/") == 1 or p.endswith(".csv"))]
    downloads = [(path, words.size(files[path])) for path in shown]
    source = views.source_view(next((w.source for w in works if w.source), {}))
    source["workloads"] = [{**views.source_view(w.source, w), "page": w.page} for w in works if w.source]
    home = frame(
        HOME_PAGE,
        [],
        common,
        rows=overview,
        versions=sorted(common["versions"]),
        tag=Version(common["data_version"]).tag,
        downloads=downloads,
        pkg=pkg,
        citation=CITATION if CITATION in files else None,
        download=DOWNLOAD,
        api_page=API_PREFIX + "index.html",
        source=source,
    )
    yield HOME_PAGE, "index.html", home
    root = urlsplit(pkg.base_url).path.rstrip("/") + "/"
    anywhere = {**common, "link": lambda path: root + path.removesuffix("index.html")}  # served at any path
    yield "404.html", "404.html", frame("404.html", HOME, anywhere)
    files = dict(files)  # the listing pages list the files made before them
    folders = {"/".join(path.split("/")[:i]) + "/" for path in files for i in range(1, path.count("/") + 1)}
    for folder in sorted(f for f in folders if f + "index.html" not in files):
        subs = sorted(f for f in folders if posixpath.dirname(f.rstrip("/")) + "/" == folder)
        entries = [(f[len(folder) :], f + "index.html", "folder") for f in subs]
        names = sorted(p for p in files if posixpath.dirname(p) + "/" == folder)
        entries += [(p[len(folder) :], p, words.size(files[p])) for p in names]
        parent = posixpath.dirname(folder.rstrip("/"))
        crumbs = [*HOME, *([(f"/{parent}/", f"{parent}/index.html")] if parent else [])]
        page = folder + "index.html"
        yield page, "listing.html", frame(page, crumbs, common, folder=folder, entries=entries)


def sitemap(files: dict[str, int], base_url: str, version: str) -> bytes:
    """Every page of the site but the 404 page, by its public URL, in path order."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in sorted(p for p in files if p.endswith(".html") and p != "404.html"):
        url = f"{base_url}/{path.removesuffix('index.html')}"
        lines.append(f"<url><loc>{escape(url)}</loc><lastmod>{version}</lastmod></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def robots(base_url: str) -> bytes:
    return f"User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n".encode()
