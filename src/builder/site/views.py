"""What each page shows, as plain values for the templates (pure: documents in, strings out).

Every link is relative to the page it is on, so the site works under any path prefix.
"""

from __future__ import annotations

from typing import Any

from builder.site import words
from builder.site.render import ICON, STYLESHEET
from builder.site.urls import href

# (key, column heading, decimals; None for text, "yes/no" for booleans)
CONFIG_COLUMNS: tuple[tuple[str, str, int | str | None], ...] = (
    ("gpu", "GPU", None),
    ("num_gpus", "GPUs", 0),
    ("tensor_parallel", "TP", 0),
    ("data_parallel", "DP", 0),
    ("expert_parallel", "EP", 0),
    ("precision", "Precision", None),
    ("max_num_seqs", "Max sequences", 0),
    ("avg_requests_in_flight", "Requests in flight", 1),
    ("wh_per_million_output_tokens", "Wh / M output tokens", 2),
    ("joules_per_output_token", "J / output token", 7),
    ("median_itl_ms", "Median ITL (ms)", 1),
    ("p90_itl_ms", "p90 ITL (ms)", 1),
    ("p95_itl_ms", "p95 ITL (ms)", 1),
    ("p99_itl_ms", "p99 ITL (ms)", 1),
    ("tokens_per_second", "Output tokens / s", 1),
    ("gpu_power_watts_total", "GPU power (W)", 0),
    ("avg_output_tokens", "Avg output tokens", 0),
    ("under_itl_deadline", "Under deadline", "yes/no"),
    ("repeat", "Repeat", 0),
)
INDEX_KEYS = (
    "precision",
    "wh_per_million_output_tokens",
    "joules_per_output_token",
    "median_itl_ms",
    "avg_requests_in_flight",
    "gpu_power_watts_total",
    "max_num_seqs",
)
INDEX_COLUMNS = tuple(column for key in INDEX_KEYS for column in CONFIG_COLUMNS if column[0] == key)


def cell(value: Any, kind: int | str | None) -> str:
    if kind == "yes/no":
        return "yes" if value else "no"
    if isinstance(kind, int) and isinstance(value, int | float) and not isinstance(value, bool):
        return words.fixed(value, kind)
    return str(value)


def source_view(source: dict[str, Any], licences: list[tuple[str, str]]) -> dict[str, Any]:
    keys = ("name", "publisher", "version", "workload", "method", "licence", "cite", "url", "data_url", "cite_url")
    view = {key: str(source.get(key, "")) for key in keys}
    for key in ("url", "data_url", "cite_url"):  # a link only where it is https; otherwise the text alone
        view[f"{key}_href"] = view[key] if view[key].startswith("https://") else None
    view["licence_evidence"] = [str(item) for item in source.get("licence_evidence", [])]
    view["licence_links"] = [{"name": name, "href": url} for name, url in licences]
    return view


def chart_view(page: str, chart_path: str, chart: Any, caption: str) -> dict[str, str]:
    return {"src": href(page, chart_path), "alt": chart.alt, "title": chart.title, "caption": caption}


def model_view(doc: dict[str, Any], links: dict[str, str], chart: dict[str, str], common: dict) -> dict[str, Any]:
    """A model page. links: site paths of page, doc and schema; common: source and package data version."""
    page = links["page"]
    best = []
    for gpu in doc["gpus"]:
        cfg = doc["best"].get(gpu)
        if cfg is None:
            sentence, detail = words.no_best_sentence(gpu, doc["itl_deadline_ms"]), ""
        else:
            sentence, detail = words.best_sentence(cfg, doc["unit"]), words.best_detail(cfg)
        best.append({"sentence": sentence[:1].upper() + sentence[1:], "detail": detail})
    bests = list(doc["best"].values())
    rows = [
        {"best": cfg in bests, "cells": [cell(cfg[key], kind) for key, _, kind in CONFIG_COLUMNS]}
        for cfg in doc["configurations"]
    ]
    return {
        "title": doc["name"],
        "name": doc["name"],
        "model_id": doc["model_id"],
        "parameters": words.parameters(doc["params_b"], doc["active_params_b"]),
        "architecture": doc["architecture"],
        "gpus": ", ".join(doc["gpus"]),
        "best": best,
        "deadline": f"{doc['itl_deadline_ms']:g}",
        "unit": doc["unit"],
        "chart": chart,
        "columns": [heading for _, heading, _ in CONFIG_COLUMNS],
        "rows": rows,
        "caveat": doc["caveat"],
        "updated": doc["updated"],
        "data_version": common["data_version"],
        "source": common["source"],
        "doc_href": href(page, links["doc"]),
        "doc_name": links["doc"],
        "schema_href": href(page, links["schema"]),
        "schema_name": links["schema"].rsplit("/", 1)[-1],
        "home_href": href(page, "index.html"),
        "css_href": href(page, STYLESHEET),
        "icon_href": href(page, ICON),
    }


def workload_view(doc: dict[str, Any], page: str, pages: dict[str, str], links: dict[str, str], chart: dict) -> dict:
    """One workload's section of the home page. pages: slug -> site path of its model page."""
    rows = []
    for rank, row in enumerate(doc["rows"], start=1):
        target = pages.get(row["slug"])
        rows.append(
            {
                "rank": rank,
                "model": row["model"],
                "href": href(page, target) if target else None,
                "gpus": words.gpus(row["num_gpus"], row["gpu"]),
                "cells": [cell(row[key], kind) for key, _, kind in INDEX_COLUMNS],
            }
        )
    return {
        "workload": doc.get("workload", ""),
        "description": doc.get("source", {}).get("workload", ""),
        "selection": doc.get("selection", ""),
        "deadline": f"{doc['itl_deadline_ms']:g}",
        "unit": doc["unit"],
        "caveat": doc.get("caveat", ""),
        "chart": chart,
        "columns": ["#", "Model", "GPUs", *[heading for _, heading, _ in INDEX_COLUMNS]],
        "rows": rows,
        "links": [{"label": label, "href": href(page, path)} for label, path in links.items()],
    }
