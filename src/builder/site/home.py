"""The home page (a short overview that links the workloads; pin, cite, download) and the 404 page."""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import urlsplit

from builder.release.rules import Version
from builder.site import listing, pages, render, views
from builder.site.catalog import Workload
from builder.site.load import Package
from builder.site.summary import Summary
from builder.site.urls import API_PREFIX, href

PAGE = "index.html"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"
TITLE = "LeadGreen: GPU energy of AI models, per configuration"


def provenance(works: list[Workload], licences: list[tuple[str, str]], page: str) -> dict[str, Any]:
    """The shared source block, and per workload its upstream task, file and commit."""
    first = next((w.source for w in works if w.source), {})
    view = views.source_view(first, licences)
    view["workloads"] = [{**views.source_view(w.source, [], w), "href": href(page, w.page)} for w in works if w.source]
    return view


def render_home(
    pkg: Package, files: dict[str, int], works: list[Workload], sums: dict[str, Summary], ctx: dict
) -> bytes:
    """The overview, then how to use the data; files: every site file written so far, by path and size."""
    version = ctx["data_version"]
    dated = [str(doc["data_version"]) for doc in pkg.docs.values() if doc.get("data_version")]
    versions = sorted({*dated, *ctx["versions"]})  # ctx["versions"]: the model documents' data versions
    rows = pages.workloads_view(works, sums, PAGE)
    description = (
        f"GPU energy per output token of {sum(r['models'] for r in rows)} model pages in {len(works)} workloads, "
        "per GPU setup and latency target, from the ML.ENERGY Leaderboard: tables, charts, JSON and CSV."
    )
    downloads = [
        {"label": path.removeprefix(DOWNLOAD), "href": href(PAGE, path), "size": listing.size(files[path])}
        for path in sorted(files)
        if path.startswith(DOWNLOAD) and (path.count("/") == 1 or path.endswith(".csv"))
    ]
    context = {
        **views.frame(PAGE, TITLE, description, [], ctx),
        "rows": rows,
        "versions": versions,
        "tag": Version(version).tag,
        "downloads": downloads,
        "download_href": href(PAGE, DOWNLOAD + "index.html"),
        "api_href": href(PAGE, API_PREFIX + "index.html"),
        "schemas_href": href(PAGE, "schemas/v1/index.html"),
        "base_url": pkg.base_url,
        "repository": pkg.repository,
        "citation_href": href(PAGE, CITATION) if CITATION in files else None,
        "source": provenance(works, ctx["licences"], PAGE),
        "schemas": [{"label": posixpath.basename(p), "href": href(PAGE, p)} for p in sorted(ctx["schemas"].values())],
    }
    return render.render("index.html", context)


def render_404(pkg: Package, common: dict) -> bytes:
    """The not-found page: served at any path, so its links start at the site root."""
    root = urlsplit(pkg.base_url).path.rstrip("/") + "/"

    def link(path: str) -> str:
        return root + (path.removesuffix("index.html") if path.endswith("index.html") else path)

    crumbs = [("Home", PAGE)]
    frame = views.frame("404.html", "Page not found", "No page at this address.", crumbs, {**common, "link": link})
    return render.render("404.html", frame)
