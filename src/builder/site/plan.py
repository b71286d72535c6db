"""The site, file by file, each handed on to be written when made; a model document is read for its page alone."""

import json
import posixpath
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2

from builder.errors import InputError
from builder.files import Refused
from builder.layout import DATA, DESCRIPTOR, SCHEMAS, schema_for
from builder.site import catalog, charts, load, pages, targets, views, words
from builder.site.catalog import API_PREFIX, LLM, href, require_path
from builder.site.load import Package
from builder.site.targets import Summary, summarize
from builder.write import Content

DOWNLOAD = pages.DOWNLOAD
TEMPLATES = "templates"
STATIC = ("style.css", "favicon.svg")  # copied as they are to the site root; base.html links them
File = tuple[str, Content]


@cache
def environment() -> jinja2.Environment:
    """Autoescaping on for every template; a missing value is an error, not an empty string."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("builder.site", TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"], env.filters["fixed"], env.globals["setup"] = views.cell, words.fixed, words.setup
    return env


def render(template: str, context: dict[str, Any]) -> bytearray:
    """A page, encoded piece by piece as it renders (a long page's pieces are never held all at once)."""
    page = bytearray()
    for piece in environment().get_template(template).generate(context):
        page += piece.encode("utf-8")
    return page


@contextmanager
def reading(shown: str) -> Iterator[None]:
    """A document without the fields a page needs is an InputError naming it, never a traceback."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, jinja2.UndefinedError) as exc:
        raise InputError(f"{shown}: expected a valid v1 document (`builder validate` says what is wrong), "
                         f"found {type(exc).__name__}: {exc}") from exc  # fmt: skip


class Planner:
    """What the pages planned so far leave for later ones: file sizes, model summaries, document dates."""

    def __init__(self, pkg: Package) -> None:
        self.pkg = pkg
        self.sizes: dict[str, int] = {}  # every site file so far, by path
        self.sums: dict[str, Summary] = {}  # by model document path
        self.versions: set[str] = set()  # the data versions of every document

    def file(self, path: str, data: Content) -> File:
        """Record one site file and hand it on to be written; two files for one path is an error."""
        if path in self.sizes:
            raise InputError(
                f"site: two files would be written at {path}; expected each page and document at its own path"
            )
        try:  # a Path: a file of the package, copied as it stands
            self.sizes[path] = data.lstat().st_size if isinstance(data, Path) else len(data)
        except OSError as exc:
            raise InputError(f"{data}: {Refused(error=exc.strerror)}") from exc
        return path, data

    def publish(self, rel: str, raw: Content) -> Iterator[File]:
        """A file of data/ where the API serves it and in the download folder, byte for byte (once)."""
        if API_PREFIX + rel not in self.sizes:
            yield self.file(API_PREFIX + rel, raw)
            yield self.file(f"{DOWNLOAD}{DATA.as_posix()}/{rel}", raw)

    def model_document(self, rel: str) -> tuple[list[File], dict[str, Any]]:
        """A model document, read now, with its copies if not yet published."""
        raw, doc = self.pkg.read(rel)
        if doc.get("data_version"):
            self.versions.add(str(doc["data_version"]))
        return list(self.publish(rel, raw)), doc

    def chart(self, page: str, name: str, chart: charts.Chart) -> Generator[File, None, dict[str, str]]:
        """A chart beside its page; returns how the page shows it (each template writes its caption)."""
        path = posixpath.join(posixpath.dirname(page), name)
        yield self.file(path, chart.svg)
        return {"src": href(page, path), "alt": chart.alt}


def plan_site(pkg: Package) -> Iterator[File]:
    """Every file of the site as (path relative to the site root, bytes), each once."""
    plan = Planner(pkg)
    for rel in pkg.files:  # the small documents and the CSVs; model documents come with their pages
        if rel in pkg.docs or not rel.endswith(".json"):
            yield from plan.publish(rel, pkg.path(rel))  # copied part by part, never held whole
    schema_files = {f"{SCHEMAS.as_posix()}/{name}": raw for name, raw in pkg.schemas.items()}
    for name, raw in {**schema_files, DESCRIPTOR: pkg.descriptor, **pkg.extras}.items():
        yield plan.file(DOWNLOAD + name, raw)
    schemas = {n: require_path(d.get("$id"), pkg.base_url, f"schemas/{n}: /$id") for n, d in pkg.schema_docs.items()}
    for name, path in schemas.items():
        yield plan.file(path, pkg.schemas[name])
    for name in STATIC:
        yield plan.file(name, files("builder.site").joinpath(TEMPLATES, name).read_bytes())
    with reading("data/"):
        works = catalog.workloads(pkg)
        gpu_order = catalog.gpu_order(pkg)
    common = {"data_version": load.data_version(pkg), "licences": load.licence_links(pkg), "versions": plan.versions}
    plan.versions |= {str(doc["data_version"]) for doc in pkg.docs.values() if doc.get("data_version")}
    listings: dict[str, list[tuple[catalog.Workload, str]]] = {}  # by model slug: (workload, page) of each listing
    for work in works:
        pkg.docs.pop(work.list_rel or "", None)  # the catalog holds what the pages need of the model list
        for model in work.models:
            listings.setdefault(model.slug, []).append((work, model.page))
    for work in works:  # its frontier and index are let go as its pages are made
        frontier, axes = pkg.docs.pop(work.frontier_rel or "", None), charts.AXES[work.kind]
        listed = pkg.frontier_entries.pop(work.frontier_rel or "", {})  # each entry let go after its page
        for model in work.models:  # its document is read here, and only its summary kept
            copies, doc = plan.model_document(model.doc_rel)
            yield from copies
            schema = schemas.get(schema_for(model.doc_rel) or "")
            if schema is None:
                raise InputError(f"data/{model.doc_rel}: expected a document one of the schemas describes, found none")
            others = [(w.name, page) for w, page in listings[model.slug] if w is not work]
            with reading(f"data/{model.doc_rel}"):
                shown = None
                if doc.get("configurations"):
                    chart = charts.energy_latency(doc, gpu_order, axes)
                    shown = yield from plan.chart(model.page, "energy-latency.svg", chart)
                i, text = listed.pop(doc["slug"], (None, None))
                entry = None if text is None else json.loads(text)  # its frontier entry, for this page alone
                at = f"data/{work.frontier_rel}: /models/{i}"  # where the entry is, for a message
                found = targets.best_under(doc, frontier, at, entry) if work.kind == LLM else None
                links = {"page": model.page, "doc": model.doc_path, "schema": schema}
                context = {**common, "workload": work, "others": others, "under": found}
                view = views.model_view(doc, links, shown, context)
                html = render("model.html" if work.kind == LLM else "generic_model.html", view)
            plan.sums.setdefault(model.doc_rel, summarize(doc, found, axes))
            yield plan.file(model.page, html)
            del copies, doc, view, html  # only the summary outlives the page
        index = pkg.docs.pop(work.index_rel or "", {})
        with reading(f"data/{work.index_rel}"):
            shown = None
            if index.get("rows"):
                chart = charts.energy_by_model(index, gpu_order, work.name, axes.energy)
                shown = yield from plan.chart(work.page, "energy-by-model.svg", chart)
            view = pages.workload_view(work, index, plan.sums, shown, common)
        yield plan.file(work.page, render("workload.html", view))
    for rel in pkg.files:  # model documents no list names are published all the same
        if API_PREFIX + rel not in plan.sizes:
            yield from plan.model_document(rel)[0]
    for path, template, view in pages.gathering(pkg, works, plan.sums, common, plan.sizes):
        with reading("data/"):  # these pages gather every document: an unsound one is named by validate
            html = render(template, view)
        yield plan.file(path, html)
    yield plan.file("sitemap.xml", pages.sitemap(plan.sizes, pkg.base_url, common["data_version"]))
    yield plan.file("robots.txt", pages.robots(pkg.base_url))
