"""The curated metadata: metadata.toml checked by its input schemas, then by the rules across [[workload]] tables."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError
from builder.files import read_regular_file
from builder.genmeta import is_generation_table, table_problems
from builder.inputs import METADATA_SCHEMA, refuse, schema_problems
from builder.jsonschemas import load_schemas
from builder.layout import DEFS_SCHEMA, METADATA, ROOT_WORKLOAD
from builder.slug import slugify

MAX_BYTES = 1024 * 1024  # the file is a few kilobytes of reviewed text
WORKLOAD_SOURCE_KEYS = ("data_url", "workload", "configurations")  # a source block's own to each workload


@dataclass(frozen=True)
class Workload:
    """One published workload: an upstream task file and its curated text."""

    id: str  # the slug of the leaderboard's tab label, `name`
    name: str
    task: str  # the upstream task, whose file the documents are derived from
    kind: str  # "llm": an image or video workload is a builder.genmeta.GenerationWorkload
    description: str
    data_url: str
    configurations: str
    reference_row: dict[str, Any]


def load_metadata(path: Path) -> dict[str, Any]:
    """Read the metadata file and check it; InputError (one line a problem) otherwise."""
    try:
        text = read_regular_file(path, MAX_BYTES, "curated metadata").decode("utf-8")
        meta = tomllib.loads(text, parse_float=_finite)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: expected UTF-8 text, found an invalid byte at offset {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: expected TOML, found a syntax error ({exc})") from exc
    except (ValueError, RecursionError) as exc:  # e.g. an integer of thousands of digits
        raise InputError(f"{path}: expected TOML, found a value Python cannot read ({exc})") from exc
    problems = schema_problems(METADATA_SCHEMA, meta, str(path))  # it leaves image and video tables alone
    tables = meta.get("workload")
    for i, table in enumerate(tables if isinstance(tables, list) else []):
        if is_generation_table(table):
            problems += table_problems(table, str(path), f"/workload/{i}")
    refuse(str(path), problems, "the curated metadata")
    workloads(meta, path)
    return meta


class _NonFinite:
    """A TOML inf or nan: not a number to the schema, shown as written."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _finite(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def workloads(meta: dict[str, Any], path: Path = METADATA) -> list[Workload]:
    """The curated LLM workloads in publishing order, checked by the rules across [[workload]] tables."""
    found = [Workload(**table) for table in meta["workload"] if not is_generation_table(table)]
    for i, work in enumerate(found):
        if work.id != slugify(work.name):
            expected = f"expected {slugify(work.name)!r} (the slug of its name)"
            raise InputError(f"{path}: /workload/{i}/id: {expected}, found {work.id!r}")
    for field in ("id", "task"):
        values = [getattr(w, field) for w in found]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            found_twice = f"found {', '.join(twice)} more than once"
            raise InputError(f"{path}: /workload: expected one [[workload]] per {field}, {found_twice}")
    first = found[0].id if found else "only image and video workloads"
    if first != ROOT_WORKLOAD:
        raise InputError(f"{path}: /workload/0/id: expected {ROOT_WORKLOAD}, found {first}")
    return found


def source_for(meta: dict[str, Any], workload: Workload) -> dict[str, Any]:
    """The source block of a workload's documents: the shared fields and the workload's own, in the schema's order."""
    own = {"data_url": workload.data_url, "workload": f"{workload.name} ({workload.task})"}
    merged = {**meta["source"], **own, "configurations": workload.configurations}
    return {key: merged[key] for key in load_schemas()[DEFS_SCHEMA]["$defs"]["source"]["properties"]}
