"""The site, file by file, each handed on to be written as soon as it is made: every model list's page
shows the document its url names (read then, and kept only as a Summary); then the gathering pages."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from builder.errors import InputError
from builder.layout import DATA, DESCRIPTOR, SCHEMAS, schema_for
from builder.site import catalog, charts, listing, load, pages, render, targets, views
from builder.site.catalog import LLM, Model, Workload
from builder.site.listing import Written
from builder.site.load import Package
from builder.site.summary import Summary, summarize
from builder.site.urls import api_path, require_path

DOWNLOAD = pages.DOWNLOAD
MODEL_CHART = "energy-latency.svg"
WORKLOAD_CHART = "energy-by-model.svg"
File = tuple[str, bytes]


@contextmanager
def reading(shown: str) -> Iterator[None]:
    """A document without the fields a page needs is an InputError naming it, never a traceback."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{shown}: expected a valid v1 document (`builder validate` says what is wrong), "
                         f"found {type(exc).__name__}: {exc}") from exc  # fmt: skip


def schema_name(rel: str, names: list[str]) -> str | None:
    """The schema a document of data/ follows (layout.schema_for), when the package has it."""
    found = schema_for(rel)
    return found if found in names else None


class Planner:
    """What the pages planned so far leave for later ones: file sizes, model summaries, document dates."""

    def __init__(self, pkg: Package) -> None:
        self.pkg, self.site = pkg, Written()
        self.sums: dict[str, Summary] = {}  # by model document path
        self.copied: set[str] = set()  # files of data/ already published
        self.versions: set[str] = set()  # the model documents' data versions

    def publish(self, rel: str, raw: bytes) -> Iterator[File]:
        """A file of data/ where the API serves it and in the download folder, byte for byte."""
        self.copied.add(rel)
        yield self.site.file(api_path(rel), raw)
        yield self.site.file(f"{DOWNLOAD}{DATA.as_posix()}/{rel}", raw)

    def model_document(self, rel: str) -> tuple[list[File], dict[str, Any]]:
        """A model document, read now, with its copies if not yet published."""
        raw, doc = self.pkg.read(rel)
        if doc.get("data_version"):
            self.versions.add(str(doc["data_version"]))
        return ([] if rel in self.copied else list(self.publish(rel, raw))), doc


def plan_site(pkg: Package) -> Iterator[File]:
    """Every file of the site as (path relative to the site root, bytes), each once."""
    plan = Planner(pkg)
    site = plan.site
    for rel in pkg.files:  # the small documents and the CSVs; model documents come with their pages
        if rel in pkg.docs or not rel.endswith(".json"):
            yield from plan.publish(rel, pkg.bytes(rel))  # read now, dropped once written
    for name, raw in pkg.schemas.items():
        yield site.file(f"{DOWNLOAD}{SCHEMAS.as_posix()}/{name}", raw)
    yield site.file(DOWNLOAD + DESCRIPTOR, pkg.descriptor)
    for name, raw in pkg.extras.items():
        yield site.file(DOWNLOAD + name, raw)
    schema_paths = {
        name: require_path(doc.get("$id"), pkg.base_url, f"schemas/{name}: /$id")
        for name, doc in pkg.schema_docs.items()
    }
    for name, path in schema_paths.items():
        yield site.file(path, pkg.schemas[name])
    for name in render.STATIC:
        yield site.file(name, render.static(name))
    with reading("data/"):
        works = catalog.workloads(pkg)
        gpu_order = catalog.gpu_order(pkg)
    common = {"data_version": load.data_version(pkg), "licences": load.licence_links(pkg)}
    others: dict[str, list[tuple[Workload, str]]] = {}  # by slug: each workload's page of the model
    for work in works:
        for model in work.models:
            others.setdefault(model.slug, []).append((work, model.page))
    for work in works:
        frontier = targets.by_slug(pkg.docs[work.frontier_rel]) if work.frontier_rel else None
        context = {**common, "frontier": frontier, "others": others, "schemas": schema_paths, "gpu_order": gpu_order}
        for model in work.models:
            yield from _model_page(plan, work, model, context)
        yield from _workload_page(plan, work, gpu_order, common)
    for rel in pkg.files:  # model documents no list names are published all the same
        if rel not in plan.copied:
            yield from plan.model_document(rel)[0]
    sums = plan.sums
    yield site.file(views.WORKLOADS_PAGE, _workloads_page(works, sums, common))
    gpus = sorted({g for w in works for m in w.models for g in sums[m.doc_rel].gpus})
    for gpu in gpus:
        yield site.file(pages.gpu_page(gpu), render.render("gpu.html", pages.gpu_view(gpu, works, sums, common)))
    yield site.file(views.GPUS_PAGE, render.render("gpus.html", pages.gpus_view(gpus, sums, works, common)))
    yield site.file(views.MODELS_PAGE, render.render("models.html", pages.models_view(works, sums, common)))
    yield site.file(views.GLOSSARY, render.render("glossary.html", _glossary(common)))
    context = {**common, "schemas": schema_paths, "versions": plan.versions}
    yield site.file(pages.HOME_PAGE, pages.render_home(pkg, site.sizes, works, sums, context))
    yield site.file("404.html", pages.render_404(pkg, common))
    yield from listing.listings(site, common)
    yield site.file("sitemap.xml", listing.sitemap(site.sizes, pkg.base_url, common["data_version"]))
    yield site.file("robots.txt", listing.robots(pkg.base_url))


def _source(work: Workload, common: dict, doc: Any = None) -> dict[str, Any]:
    """A page's provenance: its own document's source block, else its workload's."""
    block = doc.get("source") if isinstance(doc, dict) and isinstance(doc.get("source"), dict) else work.source
    return views.source_view(block, common["licences"], work)


def _model_page(plan: Planner, work: Workload, model: Model, common: dict) -> Iterator[File]:
    """One model's page and chart; its document is read here and only its summary kept."""
    copies, doc = plan.model_document(model.doc_rel)
    yield from copies
    schema = schema_name(model.doc_rel, list(common["schemas"]))
    if schema is None:
        raise InputError(f"data/{model.doc_rel}: expected a document one of the schemas describes, found none")
    links = {"page": model.page, "doc": model.doc_path, "schema": common["schemas"][schema]}
    others = [(w.name, page) for w, page in common["others"][model.slug] if w is not work]
    context = {**common, "workload": work, "others": others, "source": _source(work, common, doc)}
    if work.frontier_rel:
        context["frontier_path"] = api_path(work.frontier_rel)
    with reading(f"data/{model.doc_rel}"):
        chart = None
        if doc.get("configurations"):
            chart_path = posixpath.join(posixpath.dirname(model.page), MODEL_CHART)
            drawn = charts.energy_latency(doc, common["gpu_order"], charts.AXES[work.kind])
            yield plan.site.file(chart_path, drawn.svg)
            chart = views.chart_view(model.page, chart_path, drawn, _model_caption(doc["unit"], work.kind == LLM))
        if work.kind == LLM:
            context["under"] = found = targets.best_under(doc, common["frontier"])
            html = render.render("model.html", views.model_view(doc, links, chart, context))
        else:
            found = None
            html = render.render("generic_model.html", {**_generic_model(doc, links, context), "chart": chart})
        plan.sums.setdefault(model.doc_rel, summarize(doc, found, charts.AXES[work.kind].energy))
    yield plan.site.file(model.page, html)


def _model_caption(unit: str, llm: bool) -> str:
    latency, batch = ("median inter-token latency", "batch limit") if llm else ("batch latency", "batch size")
    return (
        f"{unit} against {latency}: a line per GPU setup through its lowest-energy configuration at each "
        f"{batch}, from the smallest to the largest; any other configuration of the same setup is a smaller dot."
    )


def _generic_model(doc: dict, links: dict[str, str], common: dict) -> dict[str, Any]:
    """A generation model's page: its lowest energy per GPU type, then every configuration."""
    work = common["workload"]
    description = f"Every measured configuration of {doc['name']} in the {work.name} workload, and the source."
    tables = pages.generation_tables(doc, work.kind)
    return {**views.model_page(doc, links, description, common), "tables": tables, "limit": doc.get("latency_limit_s")}


def _workload_page(plan: Planner, work: Workload, gpu_order: list[str], common: dict) -> Iterator[File]:
    index = plan.pkg.docs.get(work.index_rel or "", {})
    chart_view = None
    named = (("index", work.index_rel), ("model list", work.list_rel), ("frontier", work.frontier_rel))
    json_links = [(label, api_path(rel)) for label, rel in named if rel]
    with reading(f"data/{work.index_rel}"):
        if index.get("rows"):
            chart_path = posixpath.join(posixpath.dirname(work.page), WORKLOAD_CHART)
            chart = charts.energy_by_model(index, gpu_order, work.name, charts.AXES[work.kind].energy)
            yield plan.site.file(chart_path, chart.svg)
            within = "any latency" if work.kind == LLM else f"batch latency within {index['latency_limit_s']:g} s"
            caption = f"{index['unit']} of the lowest-energy configuration per model and GPU setup, {within}."
            if len(index["rows"]) > charts.DOT_ROWS:
                caption += f" The {charts.DOT_ROWS} lowest of {len(index['rows']):,}; the table lists every one."
            chart_view = views.chart_view(work.page, chart_path, chart, caption)
        context = {**common, "source": _source(work, common), "json": json_links}
        view = pages.workload_view(work, index, plan.sums, chart_view, context)
    yield plan.site.file(work.page, render.render("workload.html", view))


def _workloads_page(works: list[Workload], sums: dict[str, Summary], common: dict) -> bytes:
    page = views.WORKLOADS_PAGE
    description = "The workloads measured: what each asks of the model, how many models, and the lowest energy."
    frame = views.frame(page, "Workloads", description, [("Home", "index.html")], common)
    return render.render("workloads.html", {**frame, "rows": pages.workloads_view(works, sums, page)})


def _glossary(common: dict) -> dict[str, Any]:
    description = "What each term, abbreviation and unit on the LeadGreen pages means."
    return views.frame(views.GLOSSARY, "Glossary", description, [("Home", "index.html")], common)
