"""Refresh the pin: fetch upstream task files, check them in full, then replace snapshots and lock together."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.errors import FetchError, InputError, UpstreamError, ValidationError
from builder.fetch import Limits, download
from builder.genpackage import parse_every_task
from builder.layout import DATA
from builder.pin import Lock, dump_lock, load_lock, parse_lock, read_pinned, sha256
from builder.scratch import scratch_folder
from builder.write import replace_files


@dataclass(frozen=True)
class Refresh:
    """One task's pin before and after (after: what upstream serves now), or the error that stopped its fetch."""

    task: str
    old: Lock
    new: Lock | None
    error: FetchError | None = None

    @property
    def moved(self) -> bool:
        return self.new is not None and self.old.sha256 != self.new.sha256


def recorded_urls(lock_path: Path, tasks: list[str] | None = None) -> dict[str, str]:
    """The URL each task (every task of the lock when None) was last fetched from, as the lock records it."""
    locks = load_lock(lock_path)
    return {task: _entry(locks, task, lock_path).url for task in (tasks if tasks is not None else locks)}


def fetch_and_pin(
    urls: dict[str, str],
    commit: str | None,
    lock_path: Path,
    today: str,
    limits: Limits,
) -> tuple[list[Refresh], list[str]]:
    """Download every task in `urls`, check each and all of them together with the rest of the pin, then pin
    them; each task's Refresh, and the warnings.

    All or nothing: one unreachable, refused or inconsistent file leaves every snapshot and the lock as they were.
    """
    old = load_lock(lock_path)
    for task in urls:
        _entry(old, task, lock_path)
    bodies = {task: download(url, limits) for task, url in urls.items()}
    others = read_pinned(lock_path, [task for task in old if task not in urls])
    inputs = {task: (pin.data, str(pin.path)) for task, pin in others.items()}
    inputs |= {task: (bodies[task], urls[task]) for task in urls}
    warnings_of = parse_every_task(inputs)  # the generation tasks by their own parser
    check_builds(bodies, old, today)
    new = old | {
        task: Lock(old[task].file, urls[task], commit, sha256(data), len(data), today) for task, data in bodies.items()
    }
    lock = dump_lock(new)
    parse_lock(lock, str(lock_path), lock_path.name)  # what load_lock will accept
    files = {lock_path.parent / old[task].file: data for task, data in bodies.items()}
    replace_files({**files, lock_path: lock})
    warnings = [w for task in urls for w in warnings_of[task]]
    return [Refresh(task, old[task], new[task]) for task in urls], warnings


def check_builds(bodies: dict[str, bytes], locks: dict[str, Lock], today: str, out: Path = DATA) -> None:
    """The whole build, with all its checks (physics included), on the pin with `bodies` in place of
    their tasks' snapshots, from copies in a scratch folder; writes nothing, or UpstreamError."""
    from builder.build import render

    with scratch_folder("builder-fetch-") as scratch:
        files = {task: scratch / locks[task].file for task in bodies}
        for task, path in files.items():
            path.write_bytes(bodies[task])
        try:
            render(out, files, today)  # writes nothing
        except ValidationError as exc:
            summary = f"{', '.join(bodies)}: the fetched files fail the build's own checks; nothing was pinned"
            raise UpstreamError(summary, exc.problems) from None


def compare_upstream(urls: dict[str, str], lock_path: Path, limits: Limits) -> list[Refresh]:
    """What each task's URL serves now against the pin, without writing anything; every task is tried."""
    old = load_lock(lock_path)
    found = []
    for task, url in urls.items():
        lock = _entry(old, task, lock_path)
        try:
            data = download(url, limits)
        except FetchError as exc:
            found.append(Refresh(task, lock, None, exc))
            continue
        new = Lock(file=lock.file, url=url, commit=None, sha256=sha256(data), size=len(data), retrieved="")
        found.append(Refresh(task, lock, new))
    return found


def _entry(locks: dict[str, Lock], task: str, lock_path: Path) -> Lock:
    if task not in locks:
        raise InputError(f"{lock_path}: expected an entry for task {task}, found none (tasks: {', '.join(locks)})")
    return locks[task]
