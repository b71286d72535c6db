"""Load the curated metadata (editorial text with provenance) from its TOML file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError
from builder.layout import METADATA, ROOT_WORKLOAD
from builder.slug import slugify

# The source block, in the order every document shows it. Three of its fields are each
# workload's own ([[workload]] tables); the rest are shared ([source]).
SOURCE_KEYS = (
    "name",
    "publisher",
    "url",
    "data_url",
    "version",
    "released",
    "compiled",
    "compiled_evidence",
    "retrieved",
    "licence",
    "licence_evidence",
    "workload",
    "method",
    "selection",
    "cite",
    "cite_url",
    "used_for",
    "configurations",
)
WORKLOAD_SOURCE_KEYS = ("data_url", "workload", "configurations")

REQUIRED = {
    "header": ("version", "unit", "itl_deadline_ms", "caveat", "boundary"),
    "index": ("selection",),
    "source": tuple(key for key in SOURCE_KEYS if key not in WORKLOAD_SOURCE_KEYS),
}
WORKLOAD_KEYS = ("id", "name", "task", "description", "data_url", "configurations", "reference_row")
REFERENCE_ROW_KEYS = ("model", "gpu", "num_gpus")


@dataclass(frozen=True)
class Workload:
    """One published workload: an upstream task file and its curated text."""

    id: str  # the slug of the leaderboard's tab label, `name`
    name: str
    task: str  # the upstream task, whose file the documents are derived from
    description: str
    data_url: str
    configurations: str
    reference_row: dict[str, Any]


def load_metadata(path: Path) -> dict[str, Any]:
    """Read the metadata file and check that every curated field is there."""
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read curated metadata ({exc.strerror})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: expected TOML, found a syntax error ({exc})") from exc
    missing = [f"{table}.{key}" for table, keys in REQUIRED.items() for key in keys if key not in meta.get(table, {})]
    missing += [key for key in ("base_url", "source") if key not in meta]
    if missing:
        raise InputError(f"{path}: expected curated fields {', '.join(missing)}, found them missing")
    workloads(meta, path)
    return meta


def workloads(meta: dict[str, Any], path: Path = METADATA) -> list[Workload]:
    """The curated workloads in publishing order (the [[workload]] tables), checked."""
    tables = meta.get("workload")
    if not isinstance(tables, list) or not tables:
        raise InputError(f"{path}: expected [[workload]] tables, found none")
    found: list[Workload] = []
    for i, table in enumerate(tables):
        where = f"{path}: [[workload]] {i + 1}"
        table = table if isinstance(table, dict) else {}
        row = table.get("reference_row") if isinstance(table.get("reference_row"), dict) else {}
        missing = [key for key in WORKLOAD_KEYS if key not in table]
        missing += [f"reference_row.{key}" for key in REFERENCE_ROW_KEYS if key not in row]
        if missing:
            raise InputError(f"{where}: expected curated fields {', '.join(missing)}, found them missing")
        workload = Workload(**{key: table[key] for key in WORKLOAD_KEYS})
        if not isinstance(workload.name, str) or workload.id != slugify(workload.name):
            want = slugify(workload.name) if isinstance(workload.name, str) else "the slug of its name"
            raise InputError(f"{where}: expected id {want!r} (the slug of its name), found {workload.id!r}")
        found.append(workload)
    for field in ("id", "task"):
        values = [getattr(w, field) for w in found]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise InputError(f"{path}: expected one [[workload]] per {field}, found {', '.join(twice)} more than once")
    if found[0].id != ROOT_WORKLOAD:
        raise InputError(f"{path}: expected the first [[workload]] to be {ROOT_WORKLOAD}, found {found[0].id}")
    return found


def source_for(meta: dict[str, Any], workload: Workload) -> dict[str, Any]:
    """The source block of a workload's documents: the shared fields and the workload's own, in order."""
    own = {
        "data_url": workload.data_url,
        "workload": f"{workload.name} ({workload.task})",
        "configurations": workload.configurations,
    }
    merged = {**meta["source"], **own}
    return {key: merged[key] for key in SOURCE_KEYS}
