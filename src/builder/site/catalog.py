"""The workloads as the site sees them (listed, then any unlisted index), with documents and pages (pure)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from builder.errors import InputError
from builder.layout import MODEL_LIST, ROOT_WORKLOAD, WORKLOAD_LIST
from builder.site import load
from builder.site.load import Package
from builder.site.urls import API_PREFIX, require_path

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
LLM = "llm"
KINDS = (LLM, "image", "video")
URL_KEYS = ("index_url", "models_url", "frontier_url")  # of a workload list entry


@dataclass
class Model:
    """One model of one workload: its list entry, its document and its page."""

    slug: str
    name: str
    doc_rel: str
    doc_path: str  # site path of its JSON document
    page: str  # site path of its page


@dataclass
class Workload:
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
    models: list[Model] = field(default_factory=list)


def data_rel(url: object, pkg: Package, where: str, published: Any) -> str:
    """The file of data/ (one of published) a public API URL names, or an InputError naming where the URL is."""
    path = require_path(url, pkg.base_url, where)
    rel = path.removeprefix(API_PREFIX)
    if rel == path or rel not in published:
        raise InputError(f"{where}: expected a published document at {url}, found none")
    return rel


def _entries(pkg: Package) -> list[dict[str, Any]]:
    """The workload list's entries, then one for each index document the list does not name."""
    listed = pkg.docs.get(WORKLOAD_LIST)
    entries = []
    if isinstance(listed, dict) and isinstance(listed.get("workloads"), list):
        entries = [e if isinstance(e, dict) else {} for e in listed["workloads"]]
    named = {e.get("index_url") for e in entries}
    for rel in load.indexes(pkg):
        url = f"{pkg.base_url}/{API_PREFIX}{rel}"
        if url in named:
            continue
        folder = posixpath.dirname(rel)
        doc = pkg.docs[rel]
        wid = str(doc.get("workload") or folder.rsplit("/", 1)[-1] or ROOT_WORKLOAD)
        models_url = f"{pkg.base_url}/{API_PREFIX}{posixpath.join(folder, MODEL_LIST)}"
        entries.append({"id": wid, "index_url": url, "models_url": models_url})
    return entries


def workloads(pkg: Package) -> list[Workload]:
    """Every workload, in the list's order, with its models in their list's order."""
    sources = pkg.descriptor_doc.get("sources")
    pinned = {  # upstream file URL -> the commit it was pinned at
        str(item["path"]): str(item["version"])
        for item in (sources if isinstance(sources, list) else [])
        if isinstance(item, dict) and "path" in item and "version" in item
    }
    found, seen = [], set()
    for i, entry in enumerate(_entries(pkg)):
        where = f"data/{WORKLOAD_LIST}: /workloads/{i}"
        wid = str(entry.get("id", ""))
        if not SLUG.fullmatch(wid) or wid in seen:
            raise InputError(f"{where}/id: expected a slug of its own, found {wid!r}")
        seen.add(wid)
        rels = [data_rel(entry[key], pkg, f"{where}/{key}", pkg.docs) if key in entry else None for key in URL_KEYS]
        head = pkg.docs.get(rels[0] or rels[1] or "", {})
        source = head.get("source") if isinstance(head.get("source"), dict) else {}
        work = Workload(
            wid,
            str(entry.get("name") or wid.replace("-", " ").capitalize()),
            str(entry.get("description", "")),
            str(entry.get("kind") or head.get("kind") or LLM),
            *rels,
            source=source,
            commit=pinned.get(str(source.get("data_url", "")), ""),
            page=f"workloads/{wid}/index.html",
            unit=str(entry.get("unit") or head.get("unit") or ""),
        )
        if work.kind not in KINDS:
            raise InputError(f"{where}/kind: expected one of {', '.join(KINDS)}, found {work.kind!r}")
        work.models = _models(pkg, work)
        found.append(work)
    return found


def _models(pkg: Package, work: Workload) -> list[Model]:
    if work.list_rel is None:
        return []
    models, published = [], set(pkg.files)
    for i, entry in enumerate(pkg.docs[work.list_rel].get("models", [])):
        where = f"data/{work.list_rel}: /models/{i}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: expected an object, found {entry!r}")
        page = require_path(entry.get("page"), pkg.base_url, f"{where}/page")
        rel = data_rel(entry.get("url"), pkg, f"{where}/url", published)
        models.append(Model(str(entry.get("slug", "")), str(entry.get("name", "")), rel, API_PREFIX + rel, page))
    return models


def gpu_order(pkg: Package) -> list[str]:
    """Every GPU type measured anywhere in the package (the index rows' and the model lists'), sorted."""
    found = set()
    for doc in pkg.docs.values():
        for row in doc.get("rows", []) if isinstance(doc.get("rows"), list) else []:
            if isinstance(row, dict) and "gpu" in row:
                found.add(str(row["gpu"]))
        for entry in doc.get("models", []) if isinstance(doc.get("models"), list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("gpus"), list):
                found |= {str(gpu) for gpu in entry["gpus"]}
    return sorted(found)


def gpu_slug(gpu: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "gpu"
