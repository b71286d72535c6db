"""The home page: per workload a chart and the index table; the data version; pin, cite, download."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from builder.errors import InputError
from builder.release.rules import Version
from builder.site import charts, genviews, load, render, views
from builder.site.checks import put, reading
from builder.site.load import Package
from builder.site.urls import api_path, href

PAGE = "index.html"
CHART_DIR = "charts/"
DOWNLOAD = "download/"
CITATION = f"{DOWNLOAD}CITATION.cff"
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def render_home(pkg: Package, files: dict[str, bytes], pages: dict[str, dict[str, str]], ctx: dict[str, Any]) -> bytes:
    """Adds each workload's chart to files and returns the page. pages: model list -> slug -> page path."""
    sections, seen = [], set()
    for rel in load.indexes(pkg):
        doc = pkg.docs[rel]
        folder = posixpath.dirname(rel)
        workload = str(doc.get("workload") or folder.replace("/", "-") or "index")
        if workload in seen:
            continue  # one workload published twice (at the root and in its own folder) is shown once
        if not SLUG.fullmatch(workload):
            raise InputError(f"data/{rel}: /workload: expected a slug, found {workload!r}")
        seen.add(workload)
        list_rel = posixpath.join(folder, "models.json")
        links = {"index (JSON)": api_path(rel)}
        if list_rel in pkg.docs:
            links["model list (JSON)"] = api_path(list_rel)
        if genviews.is_generation(doc):  # no chart yet
            with reading(f"data/{rel}"):
                sections.append(genviews.workload_view(doc, PAGE, pages.get(list_rel, {}), links))
            continue
        chart_path, chart_view = f"{CHART_DIR}{workload}.svg", None
        with reading(f"data/{rel}"):
            if doc["rows"]:
                chart = charts.energy_by_model(doc, ctx["gpu_order"], workload)
                put(files, chart_path, chart.svg)
                caption = f"{doc['unit']} of the best configuration per model and GPU, lowest first (log scale)."
                chart_view = views.chart_view(PAGE, chart_path, chart, caption)
            sections.append(views.workload_view(doc, PAGE, pages.get(list_rel, {}), links, chart_view))
    version = load.data_version(pkg)
    context = {
        "title": "LeadGreen: GPU energy per output token of large language models",
        "sections": sections,
        "data_version": version,
        "tag": Version(version).tag,
        "downloads": [
            {"label": path.removeprefix(DOWNLOAD), "href": href(PAGE, path)}
            for path in sorted(files)
            if path.startswith(DOWNLOAD) and (path.count("/") == 1 or path.endswith(".csv"))
        ],
        "api": [{"label": f"/{api_path(rel)}", "href": href(PAGE, api_path(rel))} for rel in sorted(ctx["api_docs"])],
        "schemas": [{"label": posixpath.basename(p), "href": href(PAGE, p)} for p in sorted(ctx["schemas"].values())],
        "source": ctx["source"],
        "base_url": pkg.base_url,
        "citation_href": href(PAGE, CITATION) if CITATION in files else None,
        "home_href": "./",
        "css_href": href(PAGE, render.STYLESHEET),
        "icon_href": href(PAGE, render.ICON),
    }
    return render.render("index.html", context)
