"""The site as a mapping of path to bytes, planned from the loaded package (no I/O).

Pages come from the data, not from a list of workloads: every `page` of every model list in
the tree gets a page at the site path of its URL, showing the document its `url` names; every
workload gets a page, every GPU type one, and every folder without a page a listing.
"""

from __future__ import annotations

import posixpath
from typing import Any

from builder.errors import InputError
from builder.layout import DATA, DESCRIPTOR, SCHEMAS, schema_for
from builder.site import catalog, charts, home, listing, load, pages, render, views
from builder.site.catalog import LLM, Workload
from builder.site.checks import put, reading
from builder.site.load import Package
from builder.site.urls import api_path, require_path

DOWNLOAD = home.DOWNLOAD
MODEL_CHART = "energy-latency.svg"
WORKLOAD_CHART = "energy-by-model.svg"


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
        works = catalog.workloads(pkg)
        gpu_order = catalog.gpu_order(pkg)
    common = {"data_version": load.data_version(pkg), "licences": load.licence_links(pkg)}
    frontiers = {w.id: pkg.docs[w.frontier_rel] for w in works if w.frontier_rel}
    for work in works:
        _model_pages(pkg, files, work, works, schema_paths, gpu_order, {**common, "frontier": frontiers.get(work.id)})
        _workload_page(pkg, files, work, gpu_order, frontiers.get(work.id), common)
    docs = pkg.docs
    put(files, views.WORKLOADS_PAGE, _workloads_page(works, docs, frontiers, common))
    llm_gpus = sorted({g for w in works if w.kind == LLM for m in w.models for g in docs[m.doc_rel].get("gpus", [])})
    for gpu in llm_gpus:
        put(files, pages.gpu_page(gpu), render.render("gpu.html", pages.gpu_view(gpu, works, docs, frontiers, common)))
    put(files, views.GPUS_PAGE, render.render("gpus.html", pages.gpus_view(llm_gpus, docs, works, common)))
    put(files, views.MODELS_PAGE, render.render("models.html", pages.models_view(works, docs, common)))
    put(files, views.GLOSSARY, render.render("glossary.html", _glossary(common)))
    put(files, home.PAGE, home.render_home(pkg, files, works, frontiers, {**common, "schemas": schema_paths}))
    put(files, "404.html", home.render_404(pkg, common))
    listing.add_listings(files, common)
    put(files, "sitemap.xml", listing.sitemap(files, pkg.base_url, common["data_version"]))
    put(files, "robots.txt", listing.robots(pkg.base_url))
    return dict(sorted(files.items()))


def _source(work: Workload, common: dict, doc: Any = None) -> dict[str, Any]:
    """A page's provenance: its own document's source block, else its workload's."""
    block = doc.get("source") if isinstance(doc, dict) and isinstance(doc.get("source"), dict) else work.source
    return views.source_view(block, common["licences"], work)


def _model_pages(pkg: Package, files, work: Workload, works: list[Workload], schema_paths, gpu_order, common) -> None:
    """Render every model page of one workload into files, with its chart."""
    for model in work.models:
        doc = pkg.docs[model.doc_rel]
        schema = schema_name(model.doc_rel, doc, list(schema_paths))
        if schema is None:
            raise InputError(f"data/{model.doc_rel}: expected a document one of the schemas describes, found none")
        links = {"page": model.page, "doc": model.doc_path, "schema": schema_paths[schema]}
        others = [(w.name, m.page) for w in works if w is not work for m in w.models if m.slug == model.slug]
        context = {**common, "workload": work, "others": others, "source": _source(work, common, doc)}
        if work.frontier_rel:
            context["frontier_path"] = api_path(work.frontier_rel)
        with reading(f"data/{model.doc_rel}"):
            if work.kind == LLM:
                chart_path = posixpath.join(posixpath.dirname(model.page), MODEL_CHART)
                chart = charts.energy_latency(doc, gpu_order)
                caption = (
                    f"{doc['unit']} against median inter-token latency: a line per GPU setup, "
                    "joining its configurations from the smallest batch limit to the largest."
                )
                put(files, chart_path, chart.svg)
                view = views.model_view(doc, links, views.chart_view(model.page, chart_path, chart, caption), context)
                html = render.render("model.html", view)
            else:
                html = render.render("generic_model.html", _generic_model(doc, links, context))
        put(files, model.page, html)


def _generic_model(doc: dict, links: dict[str, str], common: dict) -> dict[str, Any]:
    """A model page of a workload whose documents the site has no columns for: every configuration."""
    work, page = common["workload"], links["page"]
    title = f"{doc.get('name', '')} — {work.name}"
    crumbs = [("Home", "index.html"), (work.name, work.page)]
    description = f"Every measured configuration of {doc.get('name', '')} in the {work.name} workload, and the source."
    return {
        **views.frame(page, title, description, crumbs, common),
        "name": doc.get("name", ""),
        "workload_name": work.name,
        "workload_href": views.href(page, work.page),
        "others": [{"label": name, "href": views.href(page, path)} for name, path in common["others"]],
        "table": pages.generic_table(doc.get("configurations", [])),
        "caveat": doc.get("caveat", ""),
        "source": common["source"],
        "doc_href": views.href(page, links["doc"]),
        "doc_name": links["doc"],
    }


def _workload_page(pkg: Package, files, work: Workload, gpu_order, frontier, common) -> None:
    index = pkg.docs.get(work.index_rel or "", {})
    chart_view = None
    named = (("index", work.index_rel), ("model list", work.list_rel), ("frontier", work.frontier_rel))
    json_links = [(label, api_path(rel)) for label, rel in named if rel]
    with reading(f"data/{work.index_rel}"):
        if work.kind == LLM and index.get("rows"):
            chart_path = posixpath.join(posixpath.dirname(work.page), WORKLOAD_CHART)
            chart = charts.energy_by_model(index, gpu_order, work.name)
            put(files, chart_path, chart.svg)
            caption = f"{index['unit']} of the lowest-energy configuration per model and GPU setup, any latency."
            chart_view = views.chart_view(work.page, chart_path, chart, caption)
        context = {**common, "source": _source(work, common), "json": json_links}
        view = pages.workload_view(work, pkg.docs, frontier, chart_view, context)
    put(files, work.page, render.render("workload.html", view))


def _workloads_page(works: list[Workload], docs: dict, frontiers: dict, common: dict) -> bytes:
    page = views.WORKLOADS_PAGE
    description = "The workloads measured: what each asks of the model, how many models, and the lowest energy."
    frame = views.frame(page, "Workloads", description, [("Home", "index.html")], common)
    rows = pages.workloads_view(works, docs, frontiers, page, common)
    return render.render("workloads.html", {**frame, "rows": rows})


def _glossary(common: dict) -> dict[str, Any]:
    description = "What each term, abbreviation and unit on the LeadGreen pages means."
    return views.frame(views.GLOSSARY, "Glossary", description, [("Home", "index.html")], common)
