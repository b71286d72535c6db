"""The workloads as the site sees them (listed, then any unlisted index), their pages and links
(pure)."""

import posixpath
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from builder.errors import InputError
from builder.layout import FRONTIER, INDEX, MODEL_LIST, ROOT_WORKLOAD, WORKLOAD_LIST, is_workload_id
from builder.names import slugify
from builder.site.load import Package

API_PREFIX = "api/v1/"
LLM = "llm"
KINDS = (LLM, "image", "video")
# of a workload list entry
URL_KEYS = {
    "index_url": INDEX,
    "models_url": MODEL_LIST,
    "frontier_url": FRONTIER,
}


def require_path(url: object, base_url: str, where: str) -> str:
    """The site path a public URL names (`<base>/models/x/` -> `models/x/index.html`), or an
    InputError naming where."""
    rest = None
    if url == base_url:
        rest = "index.html"
    elif isinstance(url, str) and url.startswith(base_url + "/"):
        rest = urlsplit(url[len(base_url) + 1 :]).path
        if rest == "" or rest.endswith("/"):
            rest += "index.html"
    if rest is None or any(part in ("", ".", "..") for part in rest.split("/")):
        raise InputError(f"{where}: expected a URL under {base_url}/, found {url!r}")
    return rest


def href(from_path: str, to_path: str) -> str:
    """A relative link from one site file to another; `x/index.html` is linked as `x/`."""
    start = posixpath.dirname(from_path) or "."
    if to_path == "index.html" or to_path.endswith("/index.html"):
        rel = posixpath.relpath(posixpath.dirname(to_path) or ".", start)
        return "./" if rel == "." else rel + "/"
    return posixpath.relpath(to_path, start)


@dataclass(slots=True)  # one per model and workload: no __dict__ each
class Model:
    """One model of one workload: its list entry, its document and its page."""

    slug: str
    name: str
    doc_rel: str
    doc_path: str  # site path of its JSON document
    page: str  # site path of its page


@dataclass
class SiteWorkload:
    """One workload as the site shows it: its list entry, documents, source and page."""

    id: str
    name: str
    description: str
    kind: str  # llm, image or video: the list entry's, else its index document's, else llm
    index_rel: str | None
    list_rel: str | None
    frontier_rel: str | None
    source: dict[str, Any]
    commit: str
    page: str  # site path of the workload's page
    unit: str = ""  # of its energy figures
    count: int = 0  # its model list's entries
    models: list[Model] = field(default_factory=list)  # its model list's entries, in order


def data_rel(url: object, pkg: Package, where: str, published: Any, name: str = "") -> str:
    """The file of data/ (one of published, called name if given) a public API URL names, or an
    InputError naming where the URL is."""
    path = require_path(url, pkg.base_url, where)
    rel = path.removeprefix(API_PREFIX)
    if rel == path or rel not in published:
        raise InputError(f"{where}: expected a published document at {url}, found none")
    if name and posixpath.basename(rel) != name:
        raise InputError(f"{where}: expected the URL of a {name}, found {url}")
    return rel


def site_workloads(pkg: Package) -> list[SiteWorkload]:
    """Every workload, in the list's order, each with its models in their list's order."""
    sources = pkg.descriptor_doc.get("sources")
    pinned = {  # upstream file URL -> the commit it was pinned at
        str(item["path"]): str(item["version"])
        for item in (sources if isinstance(sources, list) else [])
        if isinstance(item, dict) and "path" in item and "version" in item
    }
    listed = pkg.heads.get(WORKLOAD_LIST, {}).get("workloads")
    entries = [e if isinstance(e, dict) else {} for e in listed] if isinstance(listed, list) else []
    named, api = {e.get("index_url") for e in entries}, f"{pkg.base_url}/{API_PREFIX}"
    for rel in pkg.indexes:  # then an entry for each index document the list does not name
        folder = posixpath.dirname(rel)
        if api + rel not in named:
            wid = str(pkg.heads[rel].get("workload") or folder.rsplit("/", 1)[-1] or ROOT_WORKLOAD)
            entries.append(
                {
                    "id": wid,
                    "index_url": api + rel,
                    "models_url": api + posixpath.join(folder, MODEL_LIST),
                }
            )
    found: list[SiteWorkload] = []
    seen: set[str] = set()
    published = set(pkg.files)
    for i, entry in enumerate(entries):
        where = f"data/{WORKLOAD_LIST}: /workloads/{i}"
        wid = str(entry.get("id", ""))
        if not is_workload_id(wid) or wid in seen:
            raise InputError(f"{where}/id: expected a slug of its own, found {wid!r}")
        seen.add(wid)
        rels = [
            data_rel(entry[key], pkg, f"{where}/{key}", pkg.heads, name) if key in entry else None
            for key, name in URL_KEYS.items()
        ]
        head = pkg.heads.get(rels[0] or rels[1] or "", {})
        found_source = head.get("source")
        source: dict[str, Any] = found_source if isinstance(found_source, dict) else {}
        index_rel, list_rel, frontier_rel = rels
        work = SiteWorkload(
            wid,
            str(entry.get("name") or wid.replace("-", " ").capitalize()),
            str(entry.get("description", "")),
            str(entry.get("kind") or head.get("kind") or LLM),
            index_rel,
            list_rel,
            frontier_rel,
            source=source,
            commit=pinned.get(str(source.get("data_url", "")), ""),
            page=f"workloads/{wid}/index.html",
            unit=str(entry.get("unit") or head.get("unit") or ""),
        )
        if work.kind not in KINDS:
            raise InputError(
                f"{where}/kind: expected one of {', '.join(KINDS)}, found {work.kind!r}"
            )
        models = []
        for j, item in enumerate(pkg.parts.get(work.list_rel, []) if work.list_rel else ()):
            at = f"data/{work.list_rel}: /models/{j}"
            if not isinstance(item, dict):
                raise InputError(f"{at}: expected an object, found {item!r}")
            page = require_path(item.get("page"), pkg.base_url, f"{at}/page")
            rel = data_rel(item.get("url"), pkg, f"{at}/url", published)
            models.append(
                Model(
                    str(item.get("slug", "")),
                    str(item.get("name", "")),
                    rel,
                    API_PREFIX + rel,
                    page,
                )
            )
        work.count, work.models = len(models), models
        found.append(work)
    return found


def gpu_slug(gpu: str) -> str:
    """The slug of a GPU type's name (the one slug rule), "gpu" for a name with none."""
    return slugify(gpu) or "gpu"


def gpu_page(gpu: str) -> str:
    """The site path of a GPU type's page."""
    return f"gpus/{gpu_slug(gpu)}/index.html"
