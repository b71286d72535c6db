"""The pages that gather models (a workload, a GPU type, every model, the home page, the 404 page), a listing page
for every folder without a page, the sitemap and robots.txt."""

from __future__ import annotations

import math
import posixpath
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from builder.release.rules import Version
from builder.site import render, targets, views, words
from builder.site.catalog import LLM, Workload, gpu_slug
from builder.site.load import Package
from builder.site.summary import Summary
from builder.site.urls import API_PREFIX
from builder.site.views import ENERGY, GPU_POWER, HOME, LATENCY, MAX_SEQS, MEDIAN, Column, frame, table

HOME_PAGE = "index.html"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"
HEADLINES = {"image": "wh_per_thousand_images", "video": "wh_per_video"}
LISTED = {
    "api/v1/": "The JSON documents of the package, each described by a JSON Schema under /schemas/v1/.",
    "schemas/v1/": "The JSON Schemas (draft 2020-12) of the documents, each at the path of its $id.",
    "download/": "The package as its descriptor lays it out: datapackage.json, the data, the schemas.",
}


def gpu_page(gpu: str) -> str:
    return f"gpus/{gpu_slug(gpu)}/index.html"


def _energy(conf: dict[str, Any] | None) -> float:
    return math.inf if conf is None else float(conf["wh_per_million_output_tokens"])


def comparison(work: Workload, sums: dict[str, Summary], target: int) -> dict[str, Any]:
    """Every model's lowest energy under target ms, a column per GPU type, lowest first."""
    gpus = sorted({g for m in work.models for g in sums[m.doc_rel].gpus})
    rows = []
    for model in work.models:
        found = sums[model.doc_rel]
        picks = [found.under.get(gpu, {}).get(str(target)) for gpu in gpus]
        cells = [views.pick(p) if gpu in found.gpus else "unmeasured" for p, gpu in zip(picks, gpus, strict=True)]
        low = min(picks, key=_energy) if picks else None
        rows.append({"name": model.name, "page": model.page, "cells": cells, "low": low})
    rows.sort(key=lambda r: (_energy(r["low"]), r["name"]))
    return {"target": target, "gpus": gpus, "rows": rows}


def workload_view(work: Workload, index: dict, sums: dict[str, Summary], chart: dict | None, common: dict) -> dict:
    """A workload's page: its description, comparison at the chosen target, chart, index and model list."""
    folder = work.page.removesuffix("index.html") + "models/"
    rows, llm = index.get("rows", []), work.kind == LLM
    columns = [ENERGY, MEDIAN, MAX_SEQS, GPU_POWER]
    if not llm:
        columns = [Column(HEADLINES[work.kind], "Energy", index.get("unit", ""), 2), LATENCY]
    index_table = table(columns, rows)
    by_slug = {model.slug: model for model in reversed(work.models)}  # the first model of a slug
    for out, row in zip(index_table["rows"], rows, strict=True):
        out["model"] = {"name": row["model"], "page": by_slug[row["slug"]].page if row["slug"] in by_slug else None}
    return frame(
        work.page,
        HOME,
        common,
        work=work,
        llm=llm,
        chart=chart,
        unit=index.get("unit", ""),
        caveat=index.get("caveat", ""),
        folder=folder + "index.html" if any(m.page.startswith(folder) for m in work.models) else None,
        json=common["json"],
        source=common["source"],
        configurations=sum(sums[m.doc_rel].configurations for m in work.models),
        compare=comparison(work, sums, targets.CHOSEN_MS) if llm else None,
        index=index_table,
        limit=index.get("latency_limit_s"),
    )


def gpu_view(gpu: str, works: list[Workload], sums: dict[str, Summary], common: dict) -> dict:
    """A GPU type's page: per workload, every model measured on it, lowest overall and under each target."""
    sections = []
    for work in works:
        rows = []
        for model in (m for m in work.models if gpu in sums[m.doc_rel].gpus):
            found = sums[model.doc_rel]
            cells = [found.shown.get(gpu)]
            if work.kind == LLM:
                picks = [found.best.get(gpu)] + [found.under[gpu].get(str(t)) for t in found.targets]
                cells = [views.pick(p) for p in picks]
            rows.append({"name": model.name, "page": model.page, "cells": cells, "slug": model.slug})
        heads = ["Lowest energy, batch latency within the limit"]
        if work.kind == LLM:
            heads = ["Any latency"] + [f"Under {t} ms" for t in targets.TARGETS_MS]
        if rows:
            sections.append({"work": work, "heads": heads, "rows": rows})
    return frame(gpu_page(gpu), [*HOME, ("GPUs", views.GPUS_PAGE)], common, gpu=gpu, sections=sections)


def gpus_view(gpus: list[str], sums: dict[str, Summary], works: list[Workload], common: dict) -> dict:
    """The GPU types page: each type with the number of models its page lists."""
    items = [
        (gpu, gpu_page(gpu), len({m.slug for w in works for m in w.models if gpu in sums[m.doc_rel].gpus}))
        for gpu in gpus
    ]
    return frame(views.GPUS_PAGE, HOME, common, items=items)


def models_view(works: list[Workload], sums: dict[str, Summary], common: dict) -> dict:
    """Every model across workloads, alphabetically, with a link to its page in each workload."""
    by_slug: dict[str, dict[str, Any]] = {}
    for work in works:
        for model in work.models:
            found = sums[model.doc_rel]
            row = {"name": model.name, "links": [], "params": found.params, "architecture": found.architecture}
            by_slug.setdefault(model.slug, row)["links"].append((work.name, model.page))
    rows = [row for _, row in sorted(by_slug.items(), key=lambda item: (item[1]["name"].lower(), item[0]))]
    return frame(views.MODELS_PAGE, HOME, common, rows=rows)


def workloads_rows(works: list[Workload], sums: dict[str, Summary]) -> list:
    """A row per workload for the home page and the workloads page: size and the lowest energy at 100 ms."""
    rows = []
    for work in works:
        low = None
        if work.kind == LLM:
            compare = comparison(work, sums, targets.CHOSEN_MS)
            best = next((r for r in compare["rows"] if r["low"] is not None), None)
            if best is not None:
                low = {"model": best["name"], "page": best["page"], **views.pick(best["low"]), "unit": ""}
        else:
            picks = [(p["value"], m.name, m.page, p) for m in work.models for p in sums[m.doc_rel].shown.values()]
            if picks:
                _, name, model_page, p = min(picks, key=lambda x: (x[0], x[1]))
                low = {"model": name, "page": model_page, **p, "unit": work.unit}
        configs = sum(sums[m.doc_rel].configurations for m in work.models)
        rows.append({"work": work, "models": len(work.models), "configurations": configs, "low": low})
    return rows


def workloads_page(works: list[Workload], sums: dict[str, Summary], common: dict) -> bytes:
    return render.render("workloads.html", frame(views.WORKLOADS_PAGE, HOME, common, rows=workloads_rows(works, sums)))


def render_home(
    pkg: Package, files: dict[str, int], works: list[Workload], sums: dict[str, Summary], ctx: dict
) -> bytes:
    """The overview, then how to use the data; files: every site file written so far, by path and size."""
    dated = [str(doc["data_version"]) for doc in pkg.docs.values() if doc.get("data_version")]
    versions = sorted({*dated, *ctx["versions"]})  # ctx["versions"]: the model documents' data versions
    downloads = [
        (path, words.size(files[path]))
        for path in sorted(files)
        if path.startswith(DOWNLOAD) and (path.count("/") == 1 or path.endswith(".csv"))
    ]
    source = views.source_view(next((w.source for w in works if w.source), {}), ctx["licences"])
    source["workloads"] = [{**views.source_view(w.source, [], w), "page": w.page} for w in works if w.source]
    context = frame(
        HOME_PAGE,
        [],
        ctx,
        rows=workloads_rows(works, sums),
        versions=versions,
        tag=Version(ctx["data_version"]).tag,
        downloads=downloads,
        base_url=pkg.base_url,
        repository=pkg.repository,
        citation=CITATION if CITATION in files else None,
        download=DOWNLOAD,
        api_page=API_PREFIX + "index.html",
        source=source,
    )
    return render.render("index.html", context)


def render_404(pkg: Package, common: dict) -> bytes:
    """The not-found page: served at any path, so its links start at the site root."""
    root = urlsplit(pkg.base_url).path.rstrip("/") + "/"

    def link(path: str) -> str:
        return root + path.removesuffix("index.html")

    return render.render("404.html", frame("404.html", HOME, {**common, "link": link}))


def listings(files: dict[str, int], common: dict) -> Iterator[tuple[str, bytes]]:
    """A page listing its files and folders, with sizes, for every folder that has no index.html."""
    folders = {"/".join(path.split("/")[:i]) + "/" for path in files for i in range(1, path.count("/") + 1)}
    for folder in sorted(folders):
        page = folder + "index.html"
        if page in files:
            continue
        subs = sorted(f for f in folders if posixpath.dirname(f.rstrip("/")) + "/" == folder)
        entries = [(f[len(folder) :], f + "index.html", "folder") for f in subs]
        names = sorted(p for p in files if posixpath.dirname(p) + "/" == folder)
        entries += [(p[len(folder) :], p, words.size(files[p])) for p in names]
        parent = posixpath.dirname(folder.rstrip("/"))
        crumbs = [*HOME, *([(f"/{parent}/", f"{parent}/index.html")] if parent else [])]
        about = LISTED.get(folder, f"The files of the site under /{folder}.")
        context = frame(page, crumbs, common, folder=folder, about=about, entries=entries)
        yield page, render.render("listing.html", context)


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
