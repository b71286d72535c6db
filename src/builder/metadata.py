"""The curated metadata: metadata.toml checked by its input schemas, then by the rules across
[[workload]] tables."""

import math
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from builder.errors import InputError, Problem
from builder.files import read_regular_file
from builder.jsonschemas import (
    GENERATION_WORKLOAD_SCHEMA,
    METADATA_SCHEMA,
    input_problems,
    load_schemas,
    refuse,
)
from builder.layout import DEFS_SCHEMA, GENERATION_WORKLOADS, ROOT_WORKLOAD
from builder.names import slugify

if TYPE_CHECKING:  # the reader's types: for mypy only
    from leadgreen_data.types import Source

MAX_BYTES = 1024 * 1024  # the file is a few kilobytes of reviewed text
# a source block's own to each workload
WORKLOAD_SOURCE_KEYS = (
    "data_url",
    "workload",
    "configurations",
)
UNIT_OF_KIND = {"image": "Wh per 1,000 images", "video": "Wh per video"}


@dataclass(frozen=True)
class WorkloadMeta:
    """One published workload: an upstream task file and its curated text (a GenerationWorkloadMeta
    adds its own)."""

    id: str  # the slug of the leaderboard's tab label, `name`
    name: str
    task: str  # the upstream task, whose file the documents are derived from
    kind: str  # "llm", "image" or "video"
    description: str
    data_url: str
    configurations: str
    reference_row: dict[str, Any]


@dataclass(frozen=True)
class GenerationWorkloadMeta(WorkloadMeta):
    """One image or video generation workload: a workload with its unit and latency rule."""

    unit: str
    latency_limit_s: float
    latency_limit_source: str
    method: str
    selection: str
    used_for: str


def load_metadata(path: Path) -> dict[str, Any]:
    """Read the metadata file and check it; InputError (one line a problem) otherwise."""
    try:
        text = read_regular_file(path, MAX_BYTES, "curated metadata").decode("utf-8")
        meta = tomllib.loads(text, parse_float=_finite)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: expected UTF-8 text, found an invalid byte at offset {exc.start}"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: expected TOML, found a syntax error ({exc})") from exc
    except (ValueError, RecursionError) as exc:  # e.g. an integer of thousands of digits
        raise InputError(
            f"{path}: expected TOML, found a value Python cannot read ({exc})"
        ) from exc
    # it leaves image and video tables alone
    problems = input_problems(METADATA_SCHEMA, meta, str(path))
    tables = meta.get("workload")
    for i, table in enumerate(tables if isinstance(tables, list) else []):
        if isinstance(table, dict) and table.get("kind") in GENERATION_WORKLOADS.values():
            found = input_problems(GENERATION_WORKLOAD_SCHEMA, table, str(path))
            problems += [replace(p, where=f"/workload/{i}{p.where.rstrip('/')}") for p in found]
    refuse(str(path), problems, "the curated metadata")
    refuse(str(path), rule_problems(meta["workload"], str(path)), "the curated metadata")
    return meta


def rule_problems(tables: list[dict[str, Any]], path: str) -> list[Problem]:
    """Every way schema-checked [[workload]] tables break the rules across fields and tables."""
    problems = []
    for i, table in enumerate(tables):
        at, workload, kind, slug = (
            f"/workload/{i}",
            table["id"],
            table["kind"],
            slugify(table["name"]),
        )
        if workload != slug:
            problems.append(
                Problem.mismatch(
                    path,
                    f"{at}/id",
                    "metadata.workload-slug",
                    f"{slug!r} (the slug of its name)",
                    repr(workload),
                )
            )
        if kind != "llm" and GENERATION_WORKLOADS.get(workload) != kind:
            known = ", ".join(f"{w} ({k})" for w, k in GENERATION_WORKLOADS.items())
            want = f"a generation workload among {known}"
            problems.append(
                Problem.mismatch(
                    path, f"{at}/kind", "metadata.workload-kind", want, f"{workload} ({kind})"
                )
            )
    # an id that is not its slug is not also reported as a duplicate or the wrong first
    if problems:
        return problems
    for field in ("id", "task"):
        values = [table[field] for table in tables]
        if twice := sorted({v for v in values if values.count(v) > 1}):
            want, note = f"one [[workload]] per {field}", " more than once"
            problems.append(
                Problem.mismatch(
                    path, "/workload", "metadata.workload-unique", want, ", ".join(twice), note
                )
            )
    first = next((i for i, table in enumerate(tables) if table["kind"] == "llm"), None)
    found = "only image and video workloads" if first is None else tables[first]["id"]
    if found != ROOT_WORKLOAD:
        problems.append(
            Problem.mismatch(
                path, f"/workload/{first or 0}/id", "metadata.root-workload", ROOT_WORKLOAD, found
            )
        )
    return problems


class _NonFinite:
    """A TOML inf or nan: not a number to the schema, shown as written."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _finite(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def llm_workloads(meta: dict[str, Any]) -> list[WorkloadMeta]:
    """The LLM workloads of checked metadata, in publishing order."""
    return [WorkloadMeta(**table) for table in meta["workload"] if table["kind"] == "llm"]


def generation_workloads(meta: dict[str, Any]) -> list[GenerationWorkloadMeta]:
    """The image and video workloads of checked metadata, in publishing order (after the LLM
    workloads)."""
    return [GenerationWorkloadMeta(**table) for table in meta["workload"] if table["kind"] != "llm"]


def all_workloads(meta: dict[str, Any]) -> list[WorkloadMeta]:
    """Every workload of checked metadata in publishing order: LLM first, then image and video."""
    return [*llm_workloads(meta), *generation_workloads(meta)]


def upstream_tasks(meta: dict[str, Any]) -> list[str]:
    """The upstream tasks, in workload order."""
    return [work.task for work in all_workloads(meta)]


def source_for(meta: dict[str, Any], work: WorkloadMeta) -> "Source":
    """The source block of a workload's documents: the shared fields and the workload's own, in
    the schema's order (its keys are the schema's, so typed by a cast)."""
    merged = {**meta["source"], "data_url": work.data_url, "workload": f"{work.name} ({work.task})"}
    merged["configurations"] = work.configurations
    # an image or video workload has its own method, selection and uses
    if isinstance(work, GenerationWorkloadMeta):
        merged |= {"method": work.method, "selection": work.selection, "used_for": work.used_for}
    keys = load_schemas()[DEFS_SCHEMA]["$defs"]["source"]["properties"]
    return cast("Source", {key: merged[key] for key in keys})
