"""What a model page shows, and the parts every page shares, as plain values for the templates (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.site import targets, words
from builder.site.render import ICON, STYLESHEET
from builder.site.urls import href

SITE_NAME = "LeadGreen"
GLOSSARY = "glossary/index.html"
MODELS_PAGE = "models/index.html"
GPUS_PAGE = "gpus/index.html"
WORKLOADS_PAGE = "workloads/index.html"


@dataclass(frozen=True)
class Column:
    """A table column: the field, its heading, its unit, how to show it, and the full words of an abbreviation."""

    key: str
    label: str
    unit: str = ""
    kind: int | str | None = None  # decimals; "sig" for 4 significant digits; "yes/no"; None for text
    abbr: str = ""


ENERGY = Column("wh_per_million_output_tokens", "Energy", "Wh per million output tokens", 2)
MEDIAN = Column("median_itl_ms", "Median ITL", "ms", 1, "inter-token latency")
PER_RESPONSE = Column("joules_per_response", "Energy per response", "J", 1)
MAX_SEQS = Column("max_num_seqs", "Max sequences", "batch limit", 0)
GPU_POWER = Column("gpu_power_watts_total", "GPU power", "W, all GPUs", 0)
KEY_COLUMNS = (
    ENERGY,
    MEDIAN,
    PER_RESPONSE,
    MAX_SEQS,
    Column("tokens_per_second", "Output", "tokens per s", 1),
    GPU_POWER,
)
DETAIL_COLUMNS = (
    MAX_SEQS,
    Column("tensor_parallel", "TP", "GPUs", 0, "tensor parallelism: GPUs that split each layer"),
    Column("data_parallel", "DP", "copies", 0, "data parallelism: copies of the model serving requests"),
    Column("expert_parallel", "EP", "GPUs", 0, "expert parallelism: GPUs the experts are spread over"),
    Column("precision", "Precision", "weights"),
    Column("avg_requests_in_flight", "Requests in flight", "average", 1),
    Column("joules_per_output_token", "Energy", "J per output token", "sig"),
    Column("p90_itl_ms", "p90 ITL", "ms", 1, "90th percentile inter-token latency"),
    Column("p95_itl_ms", "p95 ITL", "ms", 1, "95th percentile inter-token latency"),
    Column("p99_itl_ms", "p99 ITL", "ms", 1, "99th percentile inter-token latency"),
    Column("avg_output_tokens", "Response length", "output tokens, average", 0),
    Column("repeat", "Repeat", "run", 0),
)


def cell(value: Any, kind: int | str | None) -> str:
    if value is None:
        return "\N{EN DASH}"
    if kind == "yes/no":
        return "yes" if value else "no"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if kind == "sig":
            return words.significant(value)
        if isinstance(kind, int):
            return words.fixed(value, kind)
    return str(value)


def heading(column: Column) -> dict[str, str]:
    return {"label": column.label, "unit": column.unit, "abbr": column.abbr}


def present(columns: tuple[Column, ...], rows: list[dict[str, Any]]) -> list[Column]:
    """The columns at least one row has a value for (energy per response only where the data has it)."""
    return [c for c in columns if any(c.key in row for row in rows)]


def table(columns: list[Column], rows: list[dict[str, Any]], first: str = "setup") -> dict[str, Any]:
    """A table view whose first cell of each row is its heading (a sticky column); the rest are cells."""
    body = []
    for row in rows:
        label = words.setup(row["num_gpus"], row["gpu"]) if first == "setup" else str(row[first])
        body.append({"label": label, "cells": [cell(row.get(c.key), c.kind) for c in columns]})
    return {"columns": [heading(c) for c in columns], "rows": body}


def marked(columns: list[Column], configs: list[dict[str, Any]], best: Any) -> dict[str, Any]:
    """A table of configurations, each row marked when it is one of best (a document's best configurations)."""
    found, keys = table(columns, configs), {(c["row_id"], c.get("repeat")) for c in best if c}
    for row, conf in zip(found["rows"], configs, strict=True):
        row["best"] = (conf["row_id"], conf.get("repeat")) in keys
    return found


def frame(page: str, title: str, description: str, crumbs: list[tuple[str, str]], common: dict) -> dict[str, Any]:
    """What base.html needs, links relative to page; crumbs: (label, site path) from Home to the parent."""
    link = common.get("link") or (lambda path: href(page, path))
    nav = [("Workloads", WORKLOADS_PAGE), ("Models", MODELS_PAGE), ("GPUs", GPUS_PAGE), ("Glossary", GLOSSARY)]
    return {
        "title": title,
        "full_title": title if title.startswith(SITE_NAME) else f"{title} · {SITE_NAME}",
        "description": " ".join(description.split()),
        "crumbs": [{"label": label, "href": link(path)} for label, path in crumbs],
        "nav": [{"label": label, "href": link(path), "current": path == page} for label, path in nav],
        "home_href": link("index.html"),
        "css_href": link(STYLESHEET),
        "icon_href": link(ICON),
        "glossary_href": link(GLOSSARY),
        "data_version": common["data_version"],
    }


def source_view(source: dict[str, Any], licences: list[tuple[str, str]], workload: Any = None) -> dict[str, Any]:
    """The provenance of one workload's figures: upstream, task, file, commit, licence, citation."""
    keys = ("name", "publisher", "version", "workload", "method", "licence", "cite", "url", "data_url", "cite_url")
    view = {key: str(source.get(key, "")) for key in keys}
    view["method"] = words.plain(view["method"])
    for key in ("url", "data_url", "cite_url"):  # a link only where it is https; otherwise the text alone
        view[f"{key}_href"] = view[key] if view[key].startswith("https://") else None
    view["file"] = view["data_url"].rsplit("/", 1)[-1]
    view["task"] = view["file"].removesuffix(".json")
    view["commit"] = getattr(workload, "commit", "")
    view["workload_name"] = getattr(workload, "name", view["workload"])
    view["licence_evidence"] = [str(item) for item in source.get("licence_evidence", [])]
    view["licence_links"] = [{"name": name, "href": url} for name, url in licences]
    view["workloads"] = []  # the home page lists every workload's upstream file here
    return view


def chart_view(page: str, chart_path: str, chart: Any, caption: str) -> dict[str, str]:
    return {"src": href(page, chart_path), "alt": chart.alt, "title": chart.title, "caption": caption}


def target_rows(doc: dict[str, Any], found: tuple[tuple[int, ...], targets.Under, bool]) -> dict[str, Any]:
    """The latency-target table of a model page (found: targets.best_under), a column per GPU type."""
    chosen, under, from_frontier = found
    gpus = list(doc["gpus"])
    rows = []
    for target in chosen:
        picks = [under.get(gpu, {}).get(str(target)) for gpu in gpus]
        rows.append({"id": f"target-{target}", "label": f"Under {target} ms", "cells": [pick(p) for p in picks]})
    overall = [doc["best"].get(gpu) for gpu in gpus]
    rows.append({"id": "target-any", "label": "Any latency", "cells": [pick(p) for p in overall]})
    return {"gpus": gpus, "rows": rows, "from_frontier": from_frontier}


def pick(conf: dict[str, Any] | None) -> dict[str, str] | None:
    if conf is None:
        return None
    setup, itl = words.setup(conf["num_gpus"], conf["gpu"]), words.fixed(conf["median_itl_ms"], 1)
    return {
        "energy": words.fixed(conf["wh_per_million_output_tokens"], 2),
        "setup": setup,
        "itl": itl,
        "how": f"{setup}, {conf['max_num_seqs']:,} seqs, {itl} ms",
        "brief": f"{setup}, {itl} ms",
    }


def generation_pick(conf: dict[str, Any], energy: str) -> dict[str, Any]:
    """A generation configuration as a cell shows it: energy (the field `energy`), setup, batch and latency."""
    setup, latency = words.setup(conf["num_gpus"], conf["gpu"]), words.fixed(conf["batch_latency_s"], 1)
    return {
        "value": conf[energy],
        "energy": words.fixed(conf[energy], 2),
        "setup": setup,
        "how": f"{setup}, batch of {conf['batch_size']:,}, {latency} s",
        "brief": f"{setup}, {latency} s",
    }


def model_page(doc: dict[str, Any], links: dict[str, str], description: str, common: dict) -> dict[str, Any]:
    """What every model page shows: frame, name, workload, its other workloads, caveat, source and document."""
    page, work = links["page"], common.get("workload")
    work_name = work.name if work else ""
    title = f"{doc['name']} — {work_name}" if work_name else doc["name"]
    crumbs = [("Home", "index.html")] + ([(work_name, work.page)] if work else [])
    return {
        **frame(page, title, description, crumbs, common),
        "name": doc["name"],
        "workload_name": work_name,
        "workload_href": href(page, work.page) if work else None,
        "others": [{"label": name, "href": href(page, path)} for name, path in common.get("others", [])],
        "caveat": doc.get("caveat", ""),
        "source": common["source"],
        "doc_href": href(page, links["doc"]),
        "doc_name": links["doc"],
    }


def model_view(doc: dict[str, Any], links: dict[str, str], chart: dict | None, common: dict) -> dict[str, Any]:
    """A language model's page. links: site paths of page, doc, schema; common: workload, others, source."""
    page, work = links["page"], common.get("workload")
    configs = doc["configurations"]
    key = marked(present(KEY_COLUMNS, configs), configs, doc["best"].values())
    detail = table(present(DETAIL_COLUMNS, configs), configs)
    description = (
        f"GPU energy of {doc['name']} in the {(work.name if work else '') or 'LLM'} workload: {len(configs)} measured "
        f"configurations on {', '.join(doc['gpus'])}, the best under 50, 100 and 200 ms, and the source."
    )
    return {
        **model_page(doc, links, description, common),
        "workload_description": work.description if work else "",
        "model_id": doc["model_id"],
        "parameters": words.parameters(doc["params_b"], doc["active_params_b"]),
        "architecture": doc["architecture"],
        "gpus": ", ".join(doc["gpus"]),
        "targets": target_rows(doc, common.get("under") or targets.best_under(doc, None)),
        "unit": doc["unit"],
        "chart": chart,
        "key": key,
        "detail": detail,
        "doc_version": doc.get("data_version", doc["updated"]),
        "schema_href": href(page, links["schema"]),
        "schema_name": links["schema"].rsplit("/", 1)[-1],
        "frontier_href": href(page, common["frontier_path"]) if common.get("frontier_path") else None,
    }
