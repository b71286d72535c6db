"""The pages that gather models, the home, 404 and listing pages, the sitemap and robots.txt, from
every workload's models, their summaries and the files made before them."""

import math
import posixpath
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from builder.csvview import CsvKey, Energy
from builder.errors import InputError
from builder.layout import MAX_GPUS_PER_TASK
from builder.release.rules import Version
from builder.site import changelog, responses, targets, views, words
from builder.site.catalog import API_PREFIX, LLM, Model, SiteWorkload, gpu_page
from builder.site.charts import AXES, DOT_ROWS
from builder.site.listing import Listing
from builder.site.load import Package
from builder.site.targets import Summaries
from builder.site.views import (
    ENERGY,
    GPU_POWER,
    HOME,
    LATENCY,
    MAX_SEQS,
    MEDIAN,
    PER_RESPONSE,
    PER_THOUSAND,
    Column,
    frame,
    table,
)

HOME_PAGE = "index.html"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"


def _energy(conf: dict[str, Any] | None, key: str = views.ENERGY.key) -> float:
    return math.inf if conf is None or key not in conf else float(conf[key])


def comparison(
    work: SiteWorkload, models: list[Model], sums: Summaries, target: int
) -> dict[str, Any]:
    """Every model's lowest energy under each target across its GPU types, ranked by energy per
    response under target (per output token where the data has no energy per response), lowest
    first."""
    gpus = sorted({g for m in models for g in sums[m.doc_rel].gpus})
    # a cell per model and GPU type: past the cap, quadratic in the models
    if len(gpus) > MAX_GPUS_PER_TASK:
        msg = f"expected at most {MAX_GPUS_PER_TASK} GPU types in a workload, found {len(gpus):,}"
        raise InputError(
            f"data/{work.list_rel or work.index_rel}: /models: {msg} (run builder validate)"
        )
    rows: list[dict[str, Any]] = []
    for model in models:
        found = sums[model.doc_rel]
        cells = []
        for t in targets.TARGETS_MS:
            picks = [found.under.get(gpu, {}).get(str(t)) for gpu in found.gpus]
            cells.append(min(picks, key=_energy, default=None))
        rows.append(
            {"model": model, "cells": cells, "low": cells[targets.TARGETS_MS.index(target)]}
        )
    per_response = any(r["low"] and views.PER_RESPONSE.key in r["low"] for r in rows)
    rank = views.PER_RESPONSE.key if per_response else views.ENERGY.key
    rows.sort(key=lambda r: (_energy(r["low"], rank), _energy(r["low"]), r["model"].name))
    return {
        "target": target,
        "targets": targets.TARGETS_MS,
        "gpus": gpus,
        "rows": rows,
        "rank": rank,
    }


def index_columns(kind: str, unit: str) -> list[Column]:
    """The columns of a workload's index table after model and GPU setup (each a key of
    load.INDEX_SHOWN)."""
    if kind == LLM:
        return [ENERGY, PER_RESPONSE, PER_THOUSAND, MEDIAN, MAX_SEQS, GPU_POWER]
    sizes = [views.STEPS, views.RESOLUTION, *((views.FRAMES, views.FPS) if kind == "video" else ())]
    per_second = [views.PER_VIDEO_SECOND] if kind == "video" else []
    return [Column(AXES[kind].energy, "Energy", unit, 2), *per_second, LATENCY, *sizes]


def workload_view(
    work: SiteWorkload,
    models: list[Model],
    index: dict[str, Any],
    sums: Summaries,
    chart: dict[str, Any] | None,
    common: dict[str, Any],
) -> dict[str, Any]:
    """A workload's page: its description, comparison at the chosen target, chart, index and
    model list."""
    folder = work.page.removesuffix("index.html") + "models/"
    rows, llm = index.get("rows", []), work.kind == LLM
    columns = index_columns(work.kind, index.get("unit", ""))
    # the columns the index has (sizes and energy per second of video as the data publishes them)
    if not llm:
        first: dict[str, Any] = next(iter(rows), {})
        columns = [
            c for c in columns if c.key in first or (c is views.RESOLUTION and "width" in first)
        ]
    compare = comparison(work, models, sums, targets.CHOSEN_MS) if llm else None
    listed = [(m.slug, m.name, m.page, sums[m.doc_rel].points) for m in models] if compare else []
    control = views.control(work.page, compare["gpus"], listed) if compare else None
    named = (
        ("index", work.index_rel),
        ("model list", work.list_rel),
        ("frontier", work.frontier_rel),
    )
    return frame(
        work.page,
        HOME,
        common,
        work=work,
        models=models,
        chart=chart,
        source=views.source_view(work.source, work),
        json=[(label, API_PREFIX + rel) for label, rel in named if rel],
        doc=index,
        folder=folder + "index.html" if any(m.page.startswith(folder) for m in models) else None,
        configurations=sum(sums[m.doc_rel].configurations for m in models),
        compare=compare,
        control=control,
        gpus=sorted({g for m in models for g in sums[m.doc_rel].gpus}),
        mixed=""
        if llm
        else views.mixed(
            (s for m in models for s in sums[m.doc_rel].sizes),
            work.kind,
            views.PER_VIDEO_SECOND in columns,
        ),
        index=table(columns, rows),
        pages={model.slug: model.page for model in reversed(models)},  # the first model of a slug
        dot_rows=DOT_ROWS,
    )


def annotate(rows: Iterable[Any], kind: str, workload: str, found: Mapping[CsvKey, Energy]) -> None:
    """Configurations or index rows given what the pages and charts show beside their own fields:
    an LLM's energy per response where the CSV publishes it, an image's or video's resolution in
    words."""
    shown = [row for row in rows if isinstance(row, dict)]
    if kind == LLM:
        responses.add(shown, workload, found)
    else:
        views.sized(shown)


def overview_row(
    work: SiteWorkload, view: dict[str, Any], models: list[Model], sums: Summaries
) -> dict[str, Any]:
    """A workload's row on the home and workloads pages, from its page's view: its size and lowest
    energy (LLM: at the chosen target, from the view's comparison)."""
    energy = AXES[work.kind].energy
    if work.kind == LLM:
        lows = [(r["low"], r["model"]) for r in view["compare"]["rows"]]
    else:
        lows = [(p, m) for m in models for p in sums[m.doc_rel].best.values()]
    low = min((x for x in lows if x[0]), key=lambda x: (x[0][energy], x[1].name), default=None)
    return {"work": work, "configurations": view["configurations"], "low": low, "energy": energy}


def listings(works: list[SiteWorkload]) -> dict[str, list[tuple[SiteWorkload, str]]]:
    """(workload, page) of every listing of each model slug, in workload and list order."""
    found: dict[str, list[tuple[SiteWorkload, str]]] = {}
    for work in works:
        for model in work.models:
            found.setdefault(model.slug, []).append((work, model.page))
    return found


def first_by_slug(entries: list[Any]) -> dict[str, tuple[int, Any]]:
    """Each slug's first entry of a document's entries, with its place; an entry without a slug is
    under ""."""
    found: dict[str, tuple[int, Any]] = {}
    for i, entry in enumerate(entries):
        slug = entry.get("slug") if isinstance(entry, dict) else None
        found.setdefault(slug if isinstance(slug, str) else "", (i, entry))
    return found


def by_name(works: list[SiteWorkload]) -> list[Model]:
    """The first listing of each model slug (in workload and list order), by name in lower case,
    then by slug."""
    first: dict[str, Model] = {}
    for model in (model for work in works for model in work.models):
        first.setdefault(model.slug, model)
    return sorted(first.values(), key=lambda m: (m.name.lower(), m.slug))


def measured(works: list[SiteWorkload], sums: Summaries) -> dict[str, list[list[Model]]]:
    """Per GPU type, sorted: each workload's models measured on it, in list order (an empty list
    for none)."""
    found: dict[str, list[list[Model]]] = {}
    for i, work in enumerate(works):
        for model in work.models:
            for gpu in dict.fromkeys(sums[model.doc_rel].gpus):
                found.setdefault(gpu, [[] for _ in works])[i].append(model)
    return dict(sorted(found.items()))


def gathering(
    pkg: Package,
    works: list[SiteWorkload],
    overview: list[dict[str, Any]],
    sums: Summaries,
    made: Listing,
    common: dict[str, Any],
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, template, view) of the workloads, GPU, models, glossary, home, 404 and listing pages;
    overview: a row per workload (overview_row); sums: each model document's summary; made: the
    files made so far."""
    yield (
        views.WORKLOADS_PAGE,
        "workloads.html",
        frame(views.WORKLOADS_PAGE, HOME, common, rows=overview),
    )
    on_gpu = measured(works, sums)
    for gpu, by_work in on_gpu.items():
        sections = [
            {
                "work": work,
                "count": len(models),
                "rows": [(model, sums[model.doc_rel]) for model in models],
                "energy": AXES[work.kind].energy,
            }
            for work, models in zip(works, by_work, strict=True)
            if models
        ]
        crumbs = [*HOME, ("GPUs", views.GPUS_PAGE)]
        view = frame(
            gpu_page(gpu), crumbs, common, gpu=gpu, sections=sections, targets=targets.TARGETS_MS
        )
        yield gpu_page(gpu), "gpu.html", view
    slugs = {gpu: {m.slug for models in by_work for m in models} for gpu, by_work in on_gpu.items()}
    items = [(gpu, gpu_page(gpu), len(slugs[gpu])) for gpu in on_gpu]
    yield views.GPUS_PAGE, "gpus.html", frame(views.GPUS_PAGE, HOME, common, items=items)
    listed, named = listings(works), by_name(works)
    models = (  # made as the page renders
        {
            "model": model,
            "summary": sums[model.doc_rel],
            "links": [(work.name, page) for work, page in listed[model.slug]],
        }
        for model in named
    )
    view = frame(views.MODELS_PAGE, HOME, common, rows=models, count=len(named))
    yield views.MODELS_PAGE, "models.html", view
    yield views.GLOSSARY, "glossary.html", frame(views.GLOSSARY, HOME, common)
    yield (
        changelog.PAGE,
        "changelog.html",
        frame(changelog.PAGE, HOME, common, blocks=changelog.body(common["changelog"])),
    )
    shown = [
        (p, n)
        for p, n in made.files()
        if p.startswith(DOWNLOAD) and (p.count("/") == 1 or p.endswith(".csv"))
    ]
    downloads = [(path, words.size(size)) for path, size in shown]
    source = views.source_view(next((w.source for w in works if w.source), {}))
    source["workloads"] = [
        {**views.source_view(w.source, w), "page": w.page} for w in works if w.source
    ]
    home = frame(
        HOME_PAGE,
        [],
        common,
        rows=overview,
        versions=sorted(common["versions"]),
        tag=Version(common["data_version"]).tag,
        downloads=downloads,
        pkg=pkg,
        citation=CITATION if CITATION in made.sizes else None,
        source=source,
    )
    yield HOME_PAGE, "index.html", home
    root = urlsplit(pkg.base_url).path.rstrip("/") + "/"
    # served at any path
    anywhere = {
        **common,
        "link": lambda path: root + path.removesuffix("index.html"),
    }
    yield "404.html", "404.html", frame("404.html", HOME, anywhere)
    for folder in made.unlisted():  # the listing pages list the files made before them
        entries = (
            (path[len(folder) :], page, "folder" if size is None else words.size(size))
            for path, page, size in made.in_folder(folder)
        )
        parent = posixpath.dirname(folder.rstrip("/"))
        crumbs = [*HOME, *([(f"/{parent}/", f"{parent}/index.html")] if parent else [])]
        page = folder + "index.html"
        yield page, "listing.html", frame(page, crumbs, common, folder=folder, entries=entries)


def sitemap(
    files: Iterable[str], base_url: str, version: str, dates: dict[str, str]
) -> Iterator[bytes]:
    """Every page of the site but the 404 page, by its public URL, a line at a time, dated by its
    own document's
    data version where it shows one (dates), by the package's otherwise; files: in path order."""
    yield (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
        b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    )
    for path in (p for p in files if p.endswith(".html") and p != "404.html"):
        url = f"{base_url}/{path.removesuffix('index.html')}"
        lastmod = escape(dates.get(path, version))
        yield f"<url><loc>{escape(url)}</loc><lastmod>{lastmod}</lastmod></url>\n".encode()
    yield b"</urlset>\n"


def robots(base_url: str) -> bytes:
    return f"User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n".encode()
