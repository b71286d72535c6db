"""Load the curated metadata (editorial text with provenance) from its TOML file, and check it.

The file is checked against SCHEMA, a small declarative schema of its own (not one of the
published schemas in schemas/): every table and key it names is required, no other key is
allowed, and each value must satisfy its rule. A wrong value gives one line naming the key:
`metadata.toml: header.itl_deadline_ms: expected a finite number > 0, found inf`.
"""

from __future__ import annotations

import datetime as dt
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError, Problem, ProblemsError
from builder.fetch import url_problem
from builder.layout import METADATA, ROOT_WORKLOAD
from builder.pin import is_iso_date, read_regular_file
from builder.slug import slugify

MAX_BYTES = 1024 * 1024  # the file is a few kilobytes of reviewed text
MAX_INT = 2**53


@dataclass(frozen=True)
class Rule:
    """What a value must be (`expected`, in words) and the test of it."""

    expected: str
    test: Callable[[Any], bool]


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _https(value: Any, *, base: bool = False) -> bool:
    if not isinstance(value, str) or url_problem(value, schemes=("https",)):
        return False
    return not base or not (value.endswith("/") or "?" in value or "#" in value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value) and value > 0


def _count(value: Any) -> bool:
    return _is_int(value) and value >= 1


TEXT = Rule("a non-empty string", _text)
DATE = Rule('a date as a string "YYYY-MM-DD"', is_iso_date)
HTTPS = Rule("an https URL with a host and no credentials", _https)
BASE_URL = Rule(
    "an https URL with a host, no credentials and no trailing slash, query or fragment", lambda v: _https(v, base=True)
)
DEADLINE = Rule("a finite number > 0", _positive_number)
COUNT = Rule("an integer >= 1", _count)
TEXTS = Rule("a non-empty array of non-empty strings", lambda v: isinstance(v, list) and v and all(map(_text, v)))

Schema = dict[str, "Rule | Schema | list[Schema]"]  # a nested dict is a TOML table, [dict] an array of them

REFERENCE_ROW: Schema = {"model": TEXT, "gpu": TEXT, "num_gpus": COUNT}
SCHEMA: Schema = {
    "base_url": BASE_URL,
    "repository": HTTPS,  # where the package's git repository is cloned from; the site's "pin a version"
    "header": {"version": TEXT, "unit": TEXT, "itl_deadline_ms": DEADLINE, "caveat": TEXT, "boundary": TEXT},
    "index": {"selection": TEXT},
    "source": {
        "name": TEXT,
        "publisher": TEXT,
        "url": HTTPS,
        "version": TEXT,
        "released": DATE,
        "compiled": DATE,
        "compiled_evidence": TEXT,
        "retrieved": DATE,
        "licence": TEXT,
        "licence_evidence": TEXTS,
        "method": TEXT,
        "selection": TEXT,
        "cite": TEXT,
        "cite_url": HTTPS,
        "used_for": TEXT,
    },
    "workload": [
        {
            "id": TEXT,
            "name": TEXT,
            "task": TEXT,
            "description": TEXT,
            "data_url": HTTPS,
            "configurations": TEXT,
            "reference_row": REFERENCE_ROW,
        }
    ],
}

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
    """Read the metadata file and check it against SCHEMA; InputError (one line a problem) otherwise."""
    try:
        meta = tomllib.loads(read_regular_file(path, MAX_BYTES, "curated metadata").decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: expected UTF-8 text, found an invalid byte at offset {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: expected TOML, found a syntax error ({exc})") from exc
    except (ValueError, RecursionError) as exc:  # e.g. an integer of thousands of digits
        raise InputError(f"{path}: expected TOML, found a value Python cannot read ({exc})") from exc
    problems = check_metadata(meta, str(path))
    if len(problems) == 1:
        raise InputError(str(problems[0]))
    if problems:
        raise ProblemsError(f"{path}: {len(problems)} problems in the curated metadata; nothing was written", problems)
    workloads(meta, path)
    return meta


def check_metadata(meta: dict[str, Any], path: str, schema: Schema = SCHEMA, prefix: str = "") -> list[Problem]:
    """Every way `meta` breaks `schema`, one Problem each, named by dotted key."""
    problems = []
    for key, rule in schema.items():
        where = f"{prefix}{key}"
        if key not in meta:
            expected = "a table" if isinstance(rule, dict) else rule.expected
            problems.append(Problem(path, where, f"expected {expected}, found nothing (key missing)"))
        elif isinstance(rule, list):
            tables = meta[key]
            if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
                problems.append(Problem(path, where, f"expected [[{key}]] tables, found {_show(tables)}"))
            else:
                for i, table in enumerate(tables):
                    problems += check_metadata(table, path, rule[0], f"{where}[{i}].")
        elif isinstance(rule, dict):
            if isinstance(meta[key], dict):
                problems += check_metadata(meta[key], path, rule, f"{where}.")
            else:
                problems.append(Problem(path, where, f"expected a table, found {_show(meta[key])}"))
        elif _is_int(meta[key]) and abs(meta[key]) > MAX_INT:  # TOML allows 64 bits, JSON readers 53
            problems.append(Problem(path, where, f"expected an integer within +-2^53 ({MAX_INT}), found {meta[key]}"))
        elif not rule.test(meta[key]):
            problems.append(Problem(path, where, f"expected {rule.expected}, found {_show(meta[key])}"))
    for key in sorted(meta.keys() - schema.keys()):
        known = ", ".join(schema)
        problems.append(Problem(path, f"{prefix}{key}", f"expected only the keys {known} here, found an unknown key"))
    return problems


def _show(value: Any) -> str:
    """A value as the TOML file would read it, shortened."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dt.date | dt.time):  # TOML dates are not strings
        return f"an unquoted date or time {value.isoformat()}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


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
