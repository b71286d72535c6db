"""The site, file by file, each handed on to be written when made: a model document is read for its
page alone, and only its summary kept for the pages that gather models."""

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
from builder.site import (
    catalog,
    changelog,
    charts,
    load,
    pages,
    provenance,
    targets,
    views,
    words,
)
from builder.site.catalog import API_PREFIX, LLM, href, require_path
from builder.site.listing import Listing
from builder.site.load import Package
from builder.site.pages import DOWNLOAD
from builder.site.targets import Summaries, summarize
from builder.write import Content

TEMPLATES = "templates"
PART = 64 * 1024  # bytes of a page handed to the writer at a time
# copied as they are to the site root; base.html links them
STATIC = (
    "style.css",
    "favicon.svg",
    "latency.js",
)
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
    env.filters["cell"], env.filters["fixed"], env.globals["setup"] = (
        views.cell,
        words.fixed,
        words.setup,
    )
    env.globals["gpu_page"] = catalog.gpu_page
    return env


def render_template(template: str, context: dict[str, Any]) -> Iterator[bytes]:
    """A page in parts of about 64 KiB, each encoded as the template renders it (a long page is
    never held whole)."""
    part = bytearray()
    for piece in environment().get_template(template).generate(context):
        part += piece.encode("utf-8")
        if len(part) >= PART:
            yield bytes(part)
            part.clear()
    yield bytes(part)


@contextmanager
def reading(shown: str) -> Iterator[None]:
    """A document without the fields a page needs is an InputError naming it, never a traceback."""
    try:
        yield
    except (
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
        IndexError,
        jinja2.UndefinedError,
    ) as exc:
        raise InputError(
            f"{shown}: expected a valid v1 document (`builder validate` says what is wrong), "
            f"found {type(exc).__name__}: {exc}"
        ) from exc


class Planner:
    """Records each site file and the data versions of the documents read so far."""

    def __init__(self, pkg: Package) -> None:
        self.pkg, self.listing = pkg, Listing()
        self.versions: set[str] = set(pkg.versions)  # the data versions of every document
        # a page's own data date, where it shows one document's figures
        self.dates: dict[str, str] = {}

    def file(self, path: str, data: Content, copy_of: str | None = None) -> File:
        """Record one site file (copy_of: the file of data/ it copies) and hand it on to be written;
        two files for one path is an error."""
        try:  # a Path: a file of the package, copied as it stands
            size = data.lstat().st_size if isinstance(data, Path) else len(data)  # type: ignore[arg-type]
        except OSError as exc:
            raise InputError(f"{data!s}: {Refused(error=exc.strerror)}") from exc
        if not self.listing.add(path, size, copy_of):
            raise _twice(path)
        return path, data

    def publish(self, rel: str, raw: Content) -> Iterator[File]:
        """A file of data/ where the API serves it and in the download folder, byte for byte
        (once)."""
        if self.listing.copy_of(API_PREFIX + rel) != rel:  # a page at that path is two files there
            yield self.file(API_PREFIX + rel, raw, rel)
            yield self.file(f"{DOWNLOAD}{DATA.as_posix()}/{rel}", raw, rel)

    def model_document(self, rel: str) -> tuple[list[File], dict[str, Any]]:
        """A model document, read now, with its copies if not yet published."""
        doc = self.pkg.read(rel)
        if doc.get("data_version"):
            self.versions.add(str(doc["data_version"]))
        return list(self.publish(rel, self.pkg.path(rel))), doc

    def page(
        self, path: str, template: str, view: dict[str, Any], shown: str, date: Any = None
    ) -> File:
        """A page handed on as it renders, in parts; a template that finds the view unsound raises
        as `reading` does."""
        if isinstance(date, str) and date:
            self.dates[path] = date
        return self.made(path, render_template(template, view), shown)

    def made(self, path: str, parts: Iterator[bytes], shown: str) -> File:
        """A file handed on in parts as they are made; its size is recorded when its last part
        is."""
        self.file(path, b"")

        def counted() -> Iterator[bytes]:
            size = 0
            with reading(shown):
                for part in parts:
                    size += len(part)
                    yield part
            self.listing.sizes[path] = size

        return path, counted()

    def chart(
        self, page: str, name: str, chart: charts.Chart
    ) -> Generator[File, None, dict[str, str]]:
        """A chart beside its page; returns how the page shows it (each template writes its
        caption)."""
        path = posixpath.join(posixpath.dirname(page), name)
        yield self.file(path, chart.svg)
        return {"src": href(page, path), "alt": chart.alt}


def _twice(path: str) -> InputError:
    return InputError(
        f"site: two files would be written at {path}; expected each page and document at its own "
        f"path"
    )


def marks(kind: str, doc: dict[str, Any]) -> tuple[tuple[float, str], ...]:
    """What a model chart marks: the latency targets (LLM), or the workload's batch latency
    limit."""
    if kind == LLM:
        return tuple((float(t), f"{t} ms target") for t in targets.TARGETS_MS)
    limit = doc.get("latency_limit_s")
    return ((float(limit), f"{limit:g} s limit"),) if isinstance(limit, int | float) else ()


def shared_context(pkg: Package, versions: set[str]) -> dict[str, Any]:
    """What every page shows: data version, licence, provenance, papers, changelog entry, and the
    Dataset markup."""
    version, licences = load.data_version(pkg), load.licence_links(pkg)
    logged = changelog.blocks(pkg.changelog.decode("utf-8")) if pkg.changelog else []
    downloads = [
        DOWNLOAD + DESCRIPTOR,
        *(f"{DOWNLOAD}{DATA.as_posix()}/{r}" for r in pkg.files if r.endswith(".csv")),
    ]
    trees: dict[str, set[str]] = {}  # a commit once, with each upstream folder pinned at it
    for source in provenance.sources(pkg):
        if source["tree"]:
            trees.setdefault(source["commit"], set()).add(source["tree"])
    commits = [(commit, sorted(trees[commit])) for commit in sorted(trees)]
    return {
        "data_version": version,
        "licences": licences,
        "versions": versions,
        "base_url": pkg.base_url,
        "commits": commits,
        "papers": provenance.PAPERS,
        "changelog": logged,
        "changelog_page": changelog.PAGE,
        "changelog_entry": changelog.version_anchor(logged, version),
        "download_page": DOWNLOAD + "index.html",
        "download": DOWNLOAD,
        "api_page": API_PREFIX + "index.html",
        "dataset": provenance.dataset(pkg, version, licences, downloads),
    }


def plan_site(pkg: Package) -> Iterator[File]:
    """Every file of the site, each once, as (path relative to the site root, content: bytes, a file
    of the package to copy, or parts made as the writer takes them)."""
    plan = Planner(pkg)
    for rel in pkg.files:  # the small documents and the CSVs; model documents come with their pages
        if rel in pkg.heads or not rel.endswith(".json"):
            yield from plan.publish(rel, pkg.path(rel))  # copied part by part, never held whole
    schema_files = {f"{SCHEMAS.as_posix()}/{name}": raw for name, raw in pkg.schemas.items()}
    for name, raw in {**schema_files, DESCRIPTOR: pkg.descriptor, **pkg.extras}.items():
        yield plan.file(DOWNLOAD + name, raw)
    schemas = {
        n: require_path(d.get("$id"), pkg.base_url, f"schemas/{n}: /$id")
        for n, d in pkg.schema_docs.items()
    }
    for name, path in schemas.items():
        yield plan.file(path, pkg.schemas[name])
    for name in STATIC:
        yield plan.file(name, files("builder.site").joinpath(TEMPLATES, name).read_bytes())
    if pkg.changelog is not None:
        yield plan.file(DOWNLOAD + "CHANGELOG.md", pkg.changelog)
    # as the package ships it beside data/, and at the root with its files found
    if pkg.croissant is not None:
        yield plan.file(DOWNLOAD + "croissant.json", pkg.croissant)
        yield plan.file("croissant.json", provenance.served(pkg.croissant, DOWNLOAD))
    with reading("data/"):
        works = catalog.site_workloads(pkg)
    common = shared_context(pkg, plan.versions)
    overview = []  # a row per workload for the home and workloads pages
    sums: Summaries = {}  # each model document's summary
    listings = pages.listings(works)
    for work in works:
        models, axes = work.models, charts.AXES[work.kind]
        frontier = pkg.heads.get(work.frontier_rel) if work.frontier_rel else None  # no entries
        entries = pages.first_by_slug(pkg.parts.get(work.frontier_rel or "", []))
        for model in models:  # its document is read here, and only its summary kept
            copies, doc = plan.model_document(model.doc_rel)
            yield from copies
            if isinstance(doc.get("configurations"), list) and isinstance(doc.get("best"), dict):
                configs = [*doc["configurations"], *doc["best"].values()]
                pages.annotate(configs, work.kind, work.id, pkg.responses)
            schema = schemas.get(schema_for(model.doc_rel) or "")
            if schema is None:
                raise InputError(
                    f"data/{model.doc_rel}: expected a document one of the schemas describes, "
                    f"found none"
                )
            others = [
                (other.name, page) for other, page in listings[model.slug] if other is not work
            ]
            with reading(f"data/{model.doc_rel}"):
                shown = None
                if doc.get("configurations"):
                    chart = charts.energy_latency(doc, pkg.gpus, axes, marks(work.kind, doc))
                    shown = yield from plan.chart(model.page, "energy-latency.svg", chart)
                listed = entries.get(doc["slug"]) if work.frontier_rel else None
                j, entry = listed or (None, None)
                # where its frontier entry is, for a message
                at = f"data/{work.frontier_rel}: /models/{j}"
                found = targets.best_under(doc, frontier, at, entry) if work.kind == LLM else None
                links = {"page": model.page, "doc": model.doc_path, "schema": schema}
                context = {**common, "workload": work, "others": others, "under": found}
                view = views.model_view(doc, links, shown, context)
                if model.doc_rel not in sums:
                    sums[model.doc_rel] = summarize(doc, found, axes)
            template = "model.html" if work.kind == LLM else "generic_model.html"
            date = doc.get("data_version") or doc.get("updated")
            yield plan.page(model.page, template, view, f"data/{model.doc_rel}", date)
            del copies, doc, view  # only the summary outlives the page
        index = (
            {**pkg.heads[work.index_rel], "rows": pkg.parts.get(work.index_rel, [])}
            if work.index_rel
            else {}
        )
        with reading(f"data/{work.index_rel}"):
            shown = None
            pages.annotate(index.get("rows", []), work.kind, work.id, pkg.responses)
            if index.get("rows"):
                chart = charts.energy_by_model(index, pkg.gpus, work.name, axes.energy)
                shown = yield from plan.chart(work.page, "energy-by-model.svg", chart)
            view = pages.workload_view(work, models, index, sums, shown, common)
            overview.append(pages.overview_row(work, view, models, sums))
        head = pkg.heads.get(work.index_rel or work.list_rel or "", {})
        yield plan.page(
            work.page, "workload.html", view, f"data/{work.index_rel}", head.get("data_version")
        )
        del models, index, view
    for rel in pkg.files:  # model documents no list names are published all the same
        if plan.listing.copy_of(API_PREFIX + rel) != rel:
            yield from plan.model_document(rel)[0]
    for path, template, view in pages.gathering(pkg, works, overview, sums, plan.listing, common):
        # these gather every document: validate names an unsound one
        yield plan.page(path, template, view, "data/")
    made = (path for path, _ in plan.listing.files())  # read as the sitemap is written, in order
    dated = pages.sitemap(made, pkg.base_url, str(common["data_version"]), plan.dates)
    yield plan.made("sitemap.xml", dated, "data/")
    yield plan.file("robots.txt", pages.robots(pkg.base_url))
