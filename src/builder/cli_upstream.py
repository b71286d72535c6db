"""The commands that reach upstream: `fetch` (pin new snapshots, all or none) and
`check-upstream` (has it moved?)."""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from builder.errors import BuilderError, FetchError, UnreachableError, UpstreamError
from builder.fetch import Limits  # light: httpx is imported only when a download starts
from builder.layout import LOCK, METADATA, require_repo_root
from builder.report import say

if TYPE_CHECKING:
    from builder.pin import Lock

UPSTREAM_MOVED = 4  # `builder check-upstream`: upstream serves other bytes than the pin


def _lockable(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The value, if the lock schema's definition the option names allows it, else a usage error."""
    from builder.jsonschemas import LOCK_SCHEMA, input_problems

    if value is not None and (
        problems := input_problems(LOCK_SCHEMA, value, "", ("$defs", str(param.name)))
    ):
        raise click.BadParameter(problems[0].message)
    return value


def _finite(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if value != value:  # NaN passes every range check
        raise click.BadParameter(f"expected a number of seconds, found {value}")
    return value


MAX_BYTES_HELP = "Refuse a body larger than this (at most the default)."
TIMEOUT_HELP = "Connect and read timeout, seconds."
RETRIES_HELP = "Retries on connection errors and 5xx (never on 4xx)."
DEADLINE_HELP = "Give up after this many seconds in all (per task)."


def _limit(
    name: str, kind: click.IntRange | click.FloatRange, default: float, text: str
) -> Callable[..., Any]:
    """A limit option of fetch.Limits: a number in a range (seconds never NaN), default shown."""
    finite = _finite if isinstance(kind, click.FloatRange) else None
    return click.option(
        name, type=kind, callback=finite, default=default, show_default=True, help=text
    )


def _fetch_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by fetch and check-upstream; defaults are those of fetch.Limits."""
    d = Limits()
    options = [
        click.option(
            "--task",
            help="One upstream task (e.g. gpqa) [default: every task in upstream/lock.json].",
        ),
        click.option(
            "--url",
            callback=_lockable,
            help="URL, http(s), to fetch the task from [default: the URL its lock entry records]. "
            "Without --task, the text-conversation task (lm-arena-chat).",
        ),
        _limit("--max-bytes", click.IntRange(min=1, max=d.max_bytes), d.max_bytes, MAX_BYTES_HELP),
        _limit("--timeout", click.FloatRange(min=0.01, max=3600), d.timeout, TIMEOUT_HELP),
        _limit("--retries", click.IntRange(min=0, max=10), d.retries, RETRIES_HELP),
        _limit("--deadline", click.FloatRange(min=0.1, max=86400), d.deadline, DEADLINE_HELP),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _fetch_urls(task: str | None, url: str | None) -> dict[str, str | None]:
    """Task -> URL to fetch (None: its lock entry's): every task, or the one named (--url alone:
    the first)."""
    from builder.metadata import load_metadata, upstream_tasks

    require_repo_root()
    tasks = upstream_tasks(load_metadata(METADATA))
    if task is None and url is None:
        return dict.fromkeys(tasks)
    task = task or tasks[0]
    if task not in tasks:
        raise click.BadParameter(
            f"expected one of {', '.join(tasks)}, found {task!r}", param_hint="--task"
        )
    return {task: url}


@click.command()
@_fetch_options
@click.option(
    "--commit",
    callback=_lockable,
    help="Upstream commit (40-hex sha) of the files; needed when a file's bytes are new.",
)
def fetch(task: str | None, url: str | None, commit: str | None, **limits: Any) -> None:
    """Fetch upstream (every task and per-model file, or one task), check it in full, then replace
    the pin and its lock atomically. With --task or --url, the task's per-model files stay pinned
    while they agree with its new content; else they are unpinned (a full fetch pins them again).

    The same bytes change no file. New bytes need --commit; fetched from a --url that is not the
    lock's, that URL is recorded as a mirror beside upstream's own URL and commit.
    Exits 0 when pinned, 3 when a task file is unreachable, 1 when one is refused, 2 on usage
    errors.
    """
    from builder.build import build_in_memory
    from builder.dates import today_utc
    from builder.errors import InputError, UpstreamError, ValidationError
    from builder.fetch import download
    from builder.layout import DATA
    from builder.pin import (
        Pinned,
        dump_lock,
        load_lock,
        load_model_locks,
        lock_entry,
        moved,
        refreshed,
    )
    from builder.write import remove_stages, replace_files

    today, old, old_models = today_utc(), load_lock(LOCK), load_model_locks(LOCK)
    urls = {
        name: asked or lock_entry(old, name, LOCK).url
        for name, asked in _fetch_urls(task, url).items()
    }
    bodies = {name: download(where, Limits(**limits)) for name, where in urls.items()}
    every = task is None and url is None  # the per-model files too, from their own URLs
    # the ones the task files name now: a model added or renamed has its file fetched, one gone not
    targets = _model_targets(old_models, {n: (bodies[n], urls[n]) for n in bodies}) if every else {}
    model_bodies = {name: download(lock.url, Limits(**limits)) for name, lock in targets.items()}
    new_bytes = [name for name, data in bodies.items() if moved(old[name], data)]
    new_bytes += [name for name, data in model_bodies.items() if moved(targets[name], data)]
    new = old | {
        name: refreshed(old[name], urls[name], commit, data, today) for name, data in bodies.items()
    }
    new_models = (targets if every else old_models) | {
        name: refreshed(targets[name], targets[name].url, commit, data, today)
        for name, data in model_bodies.items()
    }
    models = {
        name: Pinned(new_models[name], new_models[name].url, data)
        for name, data in model_bodies.items()
    }
    pins = {name: Pinned(new[name], urls[name], data) for name, data in bodies.items()}
    try:  # messages name the URLs
        if every:
            result = build_in_memory(DATA, pins, today, models)
        else:
            result, new_models = _build_keeping_models(pins, today, new_bytes, old_models)
    except ValidationError as exc:
        summary = (
            f"{', '.join(bodies)}: the fetched files fail the build's own checks; nothing "
            f"was pinned"
        )
        raise UpstreamError(summary, exc.problems) from None
    if new_bytes and commit is None:
        said = (
            "expected --commit SHA, upstream's commit of the new bytes (every pin records "
            "one), found none"
        )
        raise InputError(f"{', '.join(new_bytes)}: {said}; nothing was pinned")
    files = {LOCK.parent / old[name].file: data for name, data in bodies.items()}
    files |= {LOCK.parent / targets[name].file: data for name, data in model_bodies.items()}
    # what a stopped fetch left beside a file this one may not need to write
    for path in [
        *files,
        LOCK,
    ]:
        remove_stages(path)
    # an edited pin is repaired
    files = {path: data for path, data in files.items() if _differs(path, data)}
    # the lock last: it names the others' sha256; each field checked
    if new != old or new_models != old_models:
        files[LOCK] = dump_lock(new, new_models)
    if files:  # the same bytes as pinned: no file is written
        replace_files(files)
    # the others' came at their pinning
    for warning in (w for name in urls for w in result.warnings.get(name, [])):
        say(f"warning: {warning}", err=True)
    for name in urls:
        state = "moved" if name in new_bytes else "unchanged"
        via = (
            f"; from the mirror {new[name].mirror}"
            if name in new_bytes and new[name].mirror
            else ""
        )
        say(
            f"{LOCK}: pinned {name}: {new[name].size} bytes, sha256 {new[name].sha256} "
            f"({state}{via})"
        )
    if every and (gone := [name for name in old_models if name not in new_models]):
        say(f"{LOCK}: unpinned {len(gone)} per-model files whose model is gone: {', '.join(gone)}")
    elif unpinned := len(old_models) - len(new_models):
        say(
            f"{LOCK}: unpinned {unpinned} per-model files that disagree with the task file "
            f"fetched; `builder fetch` pins them again"
        )
    if model_bodies:
        count = sum(name in new_bytes for name in model_bodies)
        say(f"{LOCK}: pinned {len(model_bodies)} per-model files ({count} moved)")


def _model_targets(
    pinned: dict[str, "Lock"], tasks: dict[str, tuple[bytes, str]]
) -> dict[str, "Lock"]:
    """The per-model files to fetch: each one the task files (bytes, name shown) name, its pinned
    entry or, new, one to fetch beside its task's pinned files; as pinned if a task file is refused
    (the build that checks the fetched files says why)."""
    from builder.metadata import load_metadata
    from builder.pin import Lock, model_file
    from builder.upstream import parse_all
    from builder.upstream_models import expected_files, model_urls, task_of

    wanted = {task: file for task, file in tasks.items() if task in map(task_of, pinned)}
    try:
        needed = expected_files(parse_all(wanted, load_metadata(METADATA))[0])
    except UpstreamError:
        return pinned
    urls = model_urls({name: lock.url for name, lock in pinned.items()}, needed)
    kept = {name: lock for name, lock in pinned.items() if name in needed}
    added = {name: Lock(model_file(name), urls[name], None, "", 0, "") for name in needed}
    return kept | {name: lock for name, lock in added.items() if name not in kept}


def _build_keeping_models(
    pins: dict[str, Any], today: str, new_bytes: list[str], old_models: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """A build with the tasks fetched alone and every per-model file pinned, checked again: they
    stay while they agree with their task file's content (new bytes, same rows). Else the per-model
    files of the tasks whose bytes moved are unpinned; the build and the per-model locks kept."""
    from builder.build import build_in_memory
    from builder.errors import ModelFilesError
    from builder.layout import DATA
    from builder.pin import read_pinned_models
    from builder.upstream_models import task_of

    pinned = read_pinned_models(LOCK)
    try:
        models = {name: pin for name, pin in pinned.items() if task_of(name) in pins}
        return build_in_memory(DATA, pins, today, models), old_models
    except ModelFilesError:
        moved = set(new_bytes)
        models = {n: pin for n, pin in pinned.items() if task_of(n) in pins.keys() - moved}
        kept = {n: lock for n, lock in old_models.items() if task_of(n) not in moved}
        return build_in_memory(DATA, pins, today, models), kept


def _differs(path: Path, data: bytes) -> bool:
    """False when `path` is a regular file holding exactly `data`."""
    from builder.files import Refused, read_file

    try:
        return read_file(path, len(data)) != data
    except Refused:
        return True


@click.command("check-upstream")
@_fetch_options
def check_upstream(task: str | None, url: str | None, **limits: Any) -> None:
    """Has upstream moved since the pin? One line per task (and per-model file, without --task or
    --url); writes nothing, tries every one.

    A moved file is checked as fetch would check it (a per-model file against its task file as
    upstream serves it); its problems are listed, one a line. Without --task or --url, a per-model
    file the task files now name but the lock lacks is fetched, checked and reported `added`, and a
    pinned one whose model its task file lost is reported `removed`. Exits 0 when every task is
    unchanged, 4 when any moved (a per-model file added or removed too), 3 when any is unreachable,
    1 when a moved file is refused and on other errors, 2 on usage errors.
    """
    from builder.metadata import load_metadata
    from builder.pin import load_lock, load_model_locks, lock_entry, sha256

    old, moved, meta = load_lock(LOCK), False, load_metadata(METADATA)
    errors: list[int] = []
    every = task is None and url is None
    wanted = {
        name: (asked, lock_entry(old, name, LOCK)) for name, asked in _fetch_urls(task, url).items()
    }
    if every:
        wanted |= {name: (None, pin) for name, pin in load_model_locks(LOCK).items()}
    served: dict[str, tuple[bytes, str]] = {}  # each file that moved: its bytes, where from
    for name, (asked, pin) in wanted.items():
        where = asked or pin.url
        if (data := _download(name, where, Limits(**limits), errors)) is None:
            continue
        if (found := sha256(data)) == pin.sha256:
            say(f"unchanged: {name}: {where} serves the pinned sha256 {pin.sha256}")
        else:
            moved = True
            served[name] = (data, where)
            said = f"sha256 {found} ({len(data)} bytes), the pin is {pin.sha256} ({pin.size} bytes)"
            say(f"moved: {name}: {where} serves {said}")
    rows = {name: _task_rows(name, served[name], meta, errors) for name in old if name in served}
    if every:
        moved |= _check_models(served, rows, meta, Limits(**limits), errors)
    if errors or moved:
        # an error before a move; unreachable (3) before others (1)
        sys.exit(max(errors) if errors else UPSTREAM_MOVED)


def _download(name: str, where: str, limits: Limits, errors: list[int]) -> bytes | None:
    """The bytes at `where`, or None after saying why not (its exit code added to `errors`)."""
    from builder.fetch import download

    try:
        return download(where, limits)
    except FetchError as exc:
        state = "unreachable" if isinstance(exc, UnreachableError) else "error"
        say(f"{state}: {name}: {exc}", err=True)
        errors.append(exc.exit_code)
        return None


def _report(name: str, exc: BuilderError, errors: list[int]) -> None:
    """A refused file's problems, one a line, then its error (its exit code added to `errors`)."""
    for problem in getattr(exc, "problems", []):
        say(str(problem), err=True)
    say(f"error: {name}: {exc}", err=True)
    errors.append(exc.exit_code)


def _task_rows(
    task: str, file: tuple[bytes, str], meta: dict[str, Any], errors: list[int]
) -> list[Any] | None:
    """A task file's checked rows, or None after reporting why it is refused."""
    from builder.upstream import parse_all

    try:
        return parse_all({task: file}, meta)[0][task]
    except UpstreamError as exc:
        _report(task, exc, errors)
        return None


def _check_models(
    served: dict[str, tuple[bytes, str]],
    rows: dict[str, list[Any] | None],
    meta: dict[str, Any],
    limits: Limits,
    errors: list[int],
) -> bool:
    """Check each per-model file that moved against its task file's rows (`rows`: of the task files
    that moved; else the pinned ones'); fetch, check and report each one a task file names that the
    lock lacks; report each pinned one whose model is gone. True when any is added or removed."""
    from builder.pin import load_model_locks, read_pinned, sha256
    from builder.upstream_models import expected_files, model_urls, parse_model_file, task_of

    pinned = {name: lock.url for name, lock in load_model_locks(LOCK).items()}
    tasks = list(dict.fromkeys(map(task_of, pinned)))
    at_pin = {t: (pin.data, pin.name) for t, pin in read_pinned(LOCK, tasks).items()}
    task_files = {task: served.get(task, at_pin[task]) for task in tasks}
    for task in tasks:  # a task file that moved was parsed; its pin is parsed here
        if task not in rows:
            rows[task] = _task_rows(task, at_pin[task], meta, errors)
    known = {task: own for task in tasks if (own := rows[task]) is not None}
    needed = expected_files(known)
    urls = model_urls(pinned, needed)
    gone = [name for name in pinned if task_of(name) in known and name not in needed]
    for name in gone:
        say(f"removed: {name}: {task_files[task_of(name)][1]} no longer has its model")
    added = [name for name in needed if name not in pinned]
    for name in added:
        if (data := _download(name, urls[name], limits, errors)) is not None:
            size = f"sha256 {sha256(data)} ({len(data)} bytes)"
            say(f"added: {name}: {urls[name]} serves {size}, which the lock does not pin")
            served[name] = (data, urls[name])
    for name, (data, where) in served.items():
        if name in needed and (name in added or name in pinned):
            try:
                parse_model_file(data, where, name, known[needed[name]])
            except UpstreamError as exc:
                _report(name, exc, errors)
    return bool(gone or added)
