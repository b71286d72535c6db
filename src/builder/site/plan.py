"""The site as a mapping of path to bytes, planned from the loaded package (no I/O).

Pages come from the data, not from a list of workloads: every `page` of every model list in
the tree gets a page at the site path of its URL, showing the document its `url` names.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import posixpath
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from builder.errors import InputError
from builder.layout import DATA, DESCRIPTOR, GENERATION_SCHEMA_OF_KIND, MODEL_SCHEMA, SCHEMAS, is_model, schema_for
from builder.site import charts, genviews, home, load, render, views
from builder.site.checks import put, reading
from builder.site.load import Package
from builder.site.urls import api_path, require_path

DOWNLOAD = home.DOWNLOAD
MODEL_CHART = "energy-latency.svg"


def schema_name(rel: str, doc: Any, names: list[str]) -> str | None:
    """The schema a document of data/ follows (layout.schema_for), when the package has it."""
    found = schema_for(rel)
    return found if found in names else None


def plan_site(pkg: Package) -> dict[str, bytes]:
    """Every file of the site, by path relative to the site root, sorted."""
    files: dict[str, bytes] = {}
    # download/ holds the package as its descriptor lays it out, so datapackage.json works from there
    for rel, raw in pkg.data.items():
        put(files, api_path(rel), raw)
        put(files, f"{DOWNLOAD}{DATA.as_posix()}/{rel}", raw)
    for name, raw in pkg.schemas.items():
        put(files, f"{DOWNLOAD}{SCHEMAS.as_posix()}/{name}", raw)
    put(files, DOWNLOAD + DESCRIPTOR, pkg.descriptor)
    for name, raw in pkg.extras.items():
        put(files, DOWNLOAD + name, raw)
    schema_paths = {
        name: require_path(doc.get("$id") if isinstance(doc, dict) else None, pkg.base_url, f"schemas/{name}: /$id")
        for name, doc in pkg.schema_docs.items()
    }
    for name, path in schema_paths.items():
        put(files, path, pkg.schemas[name])
    for name in render.STATIC:
        put(files, name, render.static(name))
    with reading("data/"):
        gpu_order = sorted({gpu for doc in pkg.docs.values() for gpu in _gpus(doc)})
        source = views.source_view(load.source(pkg), load.licence_links(pkg))
    common = {"source": source, "data_version": load.data_version(pkg)}
    pages = _model_pages(pkg, files, schema_paths, gpu_order, common)
    model_schemas = (MODEL_SCHEMA, GENERATION_SCHEMA_OF_KIND["generation-model"])
    api_docs = [rel for rel, doc in pkg.docs.items() if schema_name(rel, doc, list(schema_paths)) not in model_schemas]
    context = {"schemas": schema_paths, "gpu_order": gpu_order, "source": source, "api_docs": api_docs}
    put(files, home.PAGE, home.render_home(pkg, files, pages, context))
    return dict(sorted(files.items()))


def _gpus(doc: Any) -> set[str]:
    if not isinstance(doc, dict):
        return set()
    rows = [row for key in ("configurations", "rows") if isinstance(doc.get(key), list) for row in doc[key]]
    return {str(row["gpu"]) for row in rows if isinstance(row, dict) and "gpu" in row}


def _model_pages(pkg: Package, files, schema_paths, gpu_order, common) -> dict[str, dict[str, str]]:
    """Render every model page into files; returns, per model list, slug -> page path."""
    published = {api_path(rel): rel for rel in pkg.docs}
    drawn = _draw_model_charts({rel: doc for rel, doc in pkg.docs.items() if is_model(rel)}, gpu_order)
    pages: dict[str, dict[str, str]] = {}
    for list_rel in load.model_lists(pkg):
        pages[list_rel] = {}
        for i, entry in enumerate(pkg.docs[list_rel]["models"]):
            where = f"data/{list_rel}: /models/{i}"
            if not isinstance(entry, dict):
                raise InputError(f"{where}: expected an object, found {entry!r}")
            page = require_path(entry.get("page"), pkg.base_url, f"{where}/page")
            doc_path = require_path(entry.get("url"), pkg.base_url, f"{where}/url")
            if doc_path not in published:
                raise InputError(f"{where}/url: expected a published document at {entry['url']}, found none")
            doc_rel = published[doc_path]
            schema = schema_name(doc_rel, pkg.docs[doc_rel], list(schema_paths))
            if schema is None:
                raise InputError(f"data/{doc_rel}: expected a document one of the schemas describes, found none")
            links = {"page": page, "doc": doc_path, "schema": schema_paths[schema]}
            if genviews.is_generation(pkg.docs[doc_rel]):  # a page without a chart (text to image, to video)
                with reading(f"data/{doc_rel}"):
                    view = genviews.model_view(pkg.docs[doc_rel], links, common)
                    put(files, page, render.render("generation-model.html", view))
                    pages[list_rel][str(entry["slug"])] = page
                continue
            chart_path = posixpath.join(posixpath.dirname(page), MODEL_CHART)
            with reading(f"data/{doc_rel}"):
                chart, html = _model_page(pkg.docs[doc_rel], links, chart_path, gpu_order, common, drawn.get(doc_rel))
                pages[list_rel][str(entry["slug"])] = page
            put(files, chart_path, chart)
            put(files, page, html)
    return pages


def _draw_model_charts(docs: dict[str, Any], gpu_order: list[str]) -> dict[str, charts.Chart]:
    """Every model document's chart, drawn on all cores (matplotlib is most of the site's time).

    Forked workers draw with the same fixed settings, so the bytes are those of a serial run; a
    document that cannot be drawn is left to the page, which reports it against its file.
    """
    rels = sorted(docs)
    workers = min(os.cpu_count() or 1, 4)
    if len(rels) < 8 or workers < 2 or threading.active_count() > 1 or "fork" not in mp.get_all_start_methods():
        return {}
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
        drawn = pool.map(_try_chart, [(docs[rel], gpu_order) for rel in rels], chunksize=4)
        return {rel: chart for rel, chart in zip(rels, drawn, strict=True) if chart is not None}


def _try_chart(job: tuple[Any, list[str]]) -> charts.Chart | None:
    try:
        return charts.energy_latency(*job)
    except Exception:  # drawn again by its page, whose error names the file
        return None


def _model_page(
    doc: dict, links: dict[str, str], chart_path: str, gpu_order: list[str], common: dict, drawn: Any = None
):
    chart = drawn or charts.energy_latency(doc, gpu_order)
    caption = f"{doc['unit']} against median inter-token latency, every configuration; stars mark the best per GPU."
    view = views.model_view(doc, links, views.chart_view(links["page"], chart_path, chart, caption), common)
    return chart.svg, render.render("model.html", view)
