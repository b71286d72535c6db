"""The curated metadata of the image and video workloads: [[workload]] tables of kind "image" or "video"."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from builder.errors import InputError, Problem
from builder.inputs import schema_problems
from builder.layout import GENERATION_WORKLOADS, METADATA
from builder.slug import slugify

KINDS = ("image", "video")
INPUT_SCHEMA = "generation-workload.schema.json"  # in schemas/inputs/
UNIT_OF_KIND = {"image": "Wh per 1,000 images", "video": "Wh per video"}
LATENCY_METRIC = "batch_latency_s"  # what the limit of a generation workload applies to


@dataclass(frozen=True)
class GenerationWorkload:
    """One image or video generation workload: an upstream task file, its curated text and latency rule."""

    id: str
    name: str
    task: str
    kind: str  # "image" or "video"
    description: str
    data_url: str
    configurations: str
    unit: str
    latency_limit_s: float
    latency_limit_source: str
    method: str
    selection: str
    used_for: str
    reference_row: dict[str, Any]


def is_generation_table(table: Any) -> bool:
    """Whether a [[workload]] table is a generation workload's (kind image or video)."""
    return isinstance(table, dict) and table.get("kind") in KINDS


def table_problems(table: dict[str, Any], path: str, at: str) -> list[Problem]:
    """Every way a generation [[workload]] table (at pointer `at`) breaks its input schema or the rules beside it."""
    problems = [replace(p, where=at + p.where.rstrip("/")) for p in schema_problems(INPUT_SCHEMA, table, path)]
    if problems:
        return problems
    workload, kind, slug = table["id"], table["kind"], slugify(table["name"])
    if workload != slug:
        problems.append(Problem(path, f"{at}/id", f"expected {slug!r} (the slug of its name), found {workload!r}"))
    if GENERATION_WORKLOADS.get(workload) != kind:
        known = ", ".join(f"{w} ({k})" for w, k in GENERATION_WORKLOADS.items())
        msg = f"expected a generation workload among {known}, found {workload} ({kind})"
        problems.append(Problem(path, f"{at}/kind", msg))
    return problems


def generation_workloads(meta: dict[str, Any], path: Path = METADATA) -> list[GenerationWorkload]:
    """The generation workloads of checked metadata, in publishing order (after the LLM workloads)."""
    tables = meta.get("workload") if isinstance(meta.get("workload"), list) else []
    found = [GenerationWorkload(**table) for table in tables if is_generation_table(table)]
    for field in ("id", "task"):
        values = [t.get(field) for t in tables if isinstance(t, dict)]
        if twice := sorted({str(v) for v in values if values.count(v) > 1}):
            msg = f"expected one [[workload]] per {field}, found {', '.join(twice)} more than once"
            raise InputError(f"{path}: /workload: {msg}")
    return found
