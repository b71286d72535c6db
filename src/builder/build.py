"""The build: load inputs, derive the documents, check them, publish them."""

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from builder.citation import write_citation
from builder.configurations import keyed_rows
from builder.csvview import configurations_csv, csv_rel, generation_csv, response_energies
from builder.dates import (
    date_fault,
    keep_dates,
    latest_date,
    newest_data_version,
    parse_or_none,
    today_utc,
)
from builder.errors import InputError, OutputError, Said, ValidationError
from builder.files import read_or_none
from builder.guards import check_output
from builder.jsonschemas import load_schemas, refuse
from builder.layout import CSV, DESCRIPTOR, LOCK, METADATA, is_hidden
from builder.lengths import build_output_lengths, with_response_quantiles
from builder.metadata import generation_workloads, load_metadata, upstream_tasks
from builder.package import descriptor
from builder.pin import (
    Pinned,
    commit_problems,
    load_lock,
    local_pin,
    read_pinned,
    read_pinned_models,
)
from builder.transform import build_package
from builder.upstream import parse_all
from builder.upstream_models import parse_model_files, task_of
from builder.validate.run import check_built
from builder.validate.tree import Tree
from builder.write import dumps, remove_stages, staging


@dataclass(frozen=True)
class BuildResult:
    files: Mapping[str, bytes]  # by path relative to the data folder
    descriptor: bytes  # datapackage.json, written beside the data folder
    # path as shown to the user -> "new", "changed" or "removed"; unchanged files absent
    written: dict[str, str]
    warnings: dict[str, list[str]]  # by upstream task; the build's own under ""


def build_in_memory(
    out: Path,
    upstream: dict[str, Pinned],
    date: str,
    models: dict[str, Pinned] | None = None,
    files: MutableMapping[str, bytes] | None = None,
) -> BuildResult:
    """Every output file's bytes, checked, from the pins or the task and per-model files given,
    each put in `files` as it is made (a Stage writes it; by default they are held in memory);
    writes nothing else."""
    meta = load_metadata(METADATA)
    tasks = upstream_tasks(meta)
    pinned = [task for task in tasks if task not in upstream]
    pins = (read_pinned(LOCK, pinned) if pinned else {}) | upstream
    pins = {task: pins[task] for task in tasks}
    # a task file given has no date
    retrieved = max((pins[task].lock.retrieved for task in pinned), default=None)
    if fault := date_fault(date, today := today_utc(), retrieved):
        raise InputError(f"the build date (--date, or today): {fault}; nothing was written")
    locks = {task: pin.lock for task, pin in pins.items()}
    rows, warnings = parse_all({task: (pin.data, pin.name) for task, pin in pins.items()}, meta)
    per_model = model_pins(upstream, models or {}, warnings)
    lengths = parse_model_files(
        {name: (pin.data, pin.name) for name, pin in per_model.items()}, rows, str(LOCK)
    )
    model_locks = {name: pin.lock for name, pin in per_model.items()}
    no_commit = commit_problems(LOCK, {task: locks[task] for task in pinned}, "tasks")
    no_commit += commit_problems(
        LOCK,
        {name: lock for name, lock in model_locks.items() if name not in (models or {})},
        "models",
    )
    refuse(str(LOCK), no_commit, "the upstream lock")
    del pins, per_model  # the task files' bytes: their rows and locks go on
    keyed = {task: keyed_rows(task_rows) for task, task_rows in rows.items()}  # once a task
    del rows
    docs, energies = build_package(keyed, meta, date), response_energies(keyed, meta)
    docs |= build_output_lengths(keyed, lengths, docs, meta, date)
    with_response_quantiles(keyed, docs, meta)
    # every document and energy is derived: the rows let go before the documents are written
    del keyed
    files = {} if files is None else files
    states: dict[str, str] = {}  # each file's state against the old one, read once and let go
    # The CSVs hold no date: each made before the date rule, put and let go.
    tables = {CSV: partial(configurations_csv, docs, energies)}
    for work in generation_workloads(meta):
        tables[csv_rel(work.id)] = partial(generation_csv, docs, work.id, work.kind)
    for rel, make in tables.items():
        data = make()
        states[rel], files[rel] = _state(read_or_none(out / rel), data), data
    del energies, tables
    latest = latest_date(today)
    for rel in list(docs):  # each serialised once, put and let go
        before = read_or_none(out / rel)
        docs[rel], data = dated(docs[rel], before, latest)
        states[rel], files[rel] = _state(before, data), data
    del data
    version = newest_data_version(docs.values()) or date
    changed = [f"{out.name}/{rel}" for rel in docs if states[rel] and carries(docs[rel], date)]
    old_descriptor = read_or_none(out.parent / DESCRIPTOR)
    refuse_backdating(date, previous_version(old_descriptor, latest), changed)
    package = descriptor(files, out.name, version, locks, meta, load_schemas(), model_locks)
    tree = Tree(root=out.parent, data_dir=out.name, raw=files, docs=docs, descriptor=package)
    if problems := check_built(tree, meta["base_url"]):
        raise ValidationError(
            f"{out}: the new build fails its own checks; nothing was written", problems
        )
    package_bytes = dumps(package)
    written = {f"{out.name}/{rel}": states[rel] for rel in sorted(files)}
    existing = (
        {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
        if out.is_dir()
        else set()
    )
    # hidden files are carried over, not removed
    existing = {rel for rel in existing if not is_hidden(rel)}
    written |= {f"{out.name}/{rel}": "removed" for rel in sorted(existing - files.keys())}
    written[DESCRIPTOR] = _state(old_descriptor, package_bytes)
    written = {path: state for path, state in written.items() if state}
    return BuildResult(files, package_bytes, written, warnings)


def carries(doc: dict[str, Any], date: str) -> bool:
    """Whether a built document carries the build date (its content is new or changed)."""
    return bool(doc.get("data_version", date) == date)


def previous_version(old_descriptor: bytes | None, latest: str) -> str:
    """The data version of the package before this build (its descriptor's bytes), or "" when none
    or after `latest`."""
    old = parse_or_none(old_descriptor)
    version = old.get("version") if isinstance(old, dict) else None
    return version if isinstance(version, str) and version <= latest else ""


def refuse_backdating(date: str, previous: str, changed: list[str]) -> None:
    """InputError when content changes under a date before the package's data version: the
    version would not move (or move back), and a release would say nothing changed."""
    if changed and date < previous:
        said = Said(f"a date no earlier than the package's data version {previous}", date)
        raise InputError(
            f"the build date (--date): {said} ({changed[0]} changed; content that changes dates "
            "the package); nothing was written"
        )


def model_pins(
    upstream: dict[str, Pinned], models: dict[str, Pinned], warnings: dict[str, list[str]]
) -> dict[str, Pinned]:
    """The per-model files to check: the pinned ones, a task's `models` in place of all its own;
    none of a task `upstream` replaces with other bytes, without its own (a warning says so: they
    were pinned with the task file it replaces)."""
    given = {task_of(name) for name in models}
    pinned = read_pinned_models(LOCK)
    files = {name: pin for name, pin in pinned.items() if task_of(name) not in given} | models
    locks = load_lock(LOCK)
    given |= {
        task
        for task, pin in upstream.items()
        if task in locks and pin.lock.sha256 == locks[task].sha256
    }
    left = sorted({task_of(name) for name in files} & (upstream.keys() - given))
    for task in left:
        said = (
            "per-model files not used: they were pinned with the task file given in its place; "
            "no output lengths"
        )
        warnings[task] = [*warnings.get(task, []), f"{task}: {said}"]
    return {name: pin for name, pin in files.items() if task_of(name) not in left}


def build(out: Path, upstream: dict[str, Path] | None, date: str) -> BuildResult:
    """Regenerate `out` and the descriptor beside it (see builder.write); on any error both stay
    as they were."""
    check_output(out)
    try:  # an old folder a killed run moved aside goes back first, so the date rule sees it
        foreign = remove_stages(out)
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or out}: cannot remove what a stopped run left ({exc.strerror})"
        ) from exc
    pins = {task: local_pin(path) for task, path in (upstream or {}).items()}
    with staging(out, keep_hidden=True) as stage:  # each file written as it is made
        result = build_in_memory(out, pins, date, files=stage)
        stage.beside(DESCRIPTOR, result.descriptor)
    named = "named like a stage, but the builder did not make it; left in place"
    result = replace(
        result, warnings={**result.warnings, "": [f"{path}: {named}" for path in foreign]}
    )
    write_citation(out.parent, result.descriptor)
    return result


def dated(new: dict[str, Any], before: bytes | None, latest: str) -> tuple[dict[str, Any], bytes]:
    """`new` as keep_dates dates it against an old file's bytes, and its bytes."""
    doc = keep_dates(new, parse_or_none(before), latest)
    return doc, dumps(doc)


def _state(old: bytes | None, new: bytes) -> str:
    return "new" if old is None else "changed" if old != new else ""
