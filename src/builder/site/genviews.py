"""The site's views of the generation workloads (text to image, text to video): a model page with its
best configurations and every configuration, and a home-page section with its index (pure)."""

from __future__ import annotations

from typing import Any

from builder.site import words
from builder.site.render import ICON, STYLESHEET
from builder.site.urls import href
from builder.site.views import cell


def is_generation(doc: Any) -> bool:
    """Whether a document is a generation workload's (its kind is image or video)."""
    return isinstance(doc, dict) and doc.get("kind") in ("image", "video")


def columns(kind: str) -> tuple[tuple[str, str, int | str | None], ...]:
    """(key, column heading, decimals; None for text, "yes/no" for booleans) of a configuration."""
    noun = "image" if kind == "image" else "video"
    headline = (
        ("wh_per_thousand_images", "Wh / 1,000 images", 2) if kind == "image" else ("wh_per_video", "Wh / video", 2)
    )
    media = (("width", "Width", 0), ("height", "Height", 0))
    if kind == "video":
        media += (("num_frames", "Frames", 0), ("fps", "FPS", 0))
    return (
        ("gpu", "GPU", None),
        ("num_gpus", "GPUs", 0),
        ("batch_size", "Batch size", 0),
        ("ulysses_degree", "Ulysses", 0),
        ("ring_degree", "Ring", 0),
        ("inference_steps", "Steps", 0),
        ("precision", "Precision", None),
        *media,
        headline,
        (f"joules_per_{noun}", f"J / {noun}", 4),
        ("batch_latency_s", "Batch latency (s)", 3),
        (f"{noun}s_per_second", f"{noun.capitalize()}s / s", None),
        ("gpu_power_watts_total", "GPU power (W)", 0),
        ("under_latency_limit", "Within limit", "yes/no"),
        ("repeat", "Repeat", 0),
    )


def _best_sentence(cfg: dict[str, Any], doc: dict[str, Any]) -> str:
    headline = cfg["wh_per_thousand_images"] if doc["kind"] == "image" else cfg["wh_per_video"]
    return (
        f"On {words.gpus(cfg['num_gpus'], cfg['gpu'])}, {words.fixed(headline, 2)} {doc['unit']} "
        f"in batches of {cfg['batch_size']} taking {words.fixed(cfg['batch_latency_s'], 3)} s"
    )


def model_view(doc: dict[str, Any], links: dict[str, str], common: dict) -> dict[str, Any]:
    """A generation model page. links: site paths of page, doc and schema; common: source and data version."""
    page, cols = links["page"], columns(doc["kind"])
    best = [
        _best_sentence(doc["best"][gpu], doc)
        if gpu in doc["best"]
        else f"On {gpu}, no measured configuration is within {doc['latency_limit_s']:g} s"
        for gpu in doc["gpus"]
    ]
    bests = list(doc["best"].values())
    rows = [
        {"best": cfg in bests, "cells": [cell(cfg[key], kind) for key, _, kind in cols]}
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
        "limit": f"{doc['latency_limit_s']:g}",
        "unit": doc["unit"],
        "columns": [heading for _, heading, _ in cols],
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


def workload_view(doc: dict[str, Any], page: str, pages: dict[str, str], links: dict[str, str]) -> dict[str, Any]:
    """A generation workload's section of the home page (no chart). pages: slug -> site path of its model page."""
    cols = [c for c in columns(doc["kind"]) if c[0] not in ("gpu", "num_gpus", "under_latency_limit", "repeat")]
    rows = []
    for rank, row in enumerate(doc["rows"], start=1):
        target = pages.get(row["slug"])
        rows.append(
            {
                "rank": rank,
                "model": row["model"],
                "href": href(page, target) if target else None,
                "gpus": words.gpus(row["num_gpus"], row["gpu"]),
                "cells": [cell(row[key], kind) for key, _, kind in cols if key in row],
            }
        )
    return {
        "workload": doc["workload"],
        "description": doc.get("source", {}).get("workload", ""),
        "selection": doc["selection"],
        "limit": f"{doc['latency_limit_s']:g} s per batch",
        "unit": doc["unit"],
        "caveat": doc.get("caveat", ""),
        "chart": None,
        "columns": ["#", "Model", "GPUs", *[heading for key, heading, _ in cols if key in doc["rows"][0]]]
        if doc["rows"]
        else ["#", "Model", "GPUs"],
        "rows": rows,
        "links": [{"label": label, "href": href(page, path)} for label, path in links.items()],
    }
