"""Refresh the pin: fetch upstream task files, check them in full, then replace snapshots and lock together."""

from dataclasses import dataclass

from builder.build import render
from builder.errors import FetchError, UpstreamError, ValidationError
from builder.fetch import Limits, download
from builder.layout import DATA, LOCK
from builder.pin import Lock, Pinned, dump_lock, entry, load_lock, sha256
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


def fetch_and_pin(
    urls: dict[str, str | None], commit: str | None, today: str, limits: Limits
) -> tuple[list[Refresh], list[str]]:
    """Download each task in `urls` (None: its lock entry's URL), build the pin with them, then pin all or none."""
    old = load_lock(LOCK)
    urls = {task: url or entry(old, task, LOCK).url for task, url in urls.items()}
    bodies = {task: download(url, limits) for task, url in urls.items()}
    new = old | {
        task: Lock(old[task].file, urls[task], commit, sha256(data), len(data), today) for task, data in bodies.items()
    }
    try:  # messages name the URLs
        result = render(DATA, {task: Pinned(new[task], urls[task], data) for task, data in bodies.items()}, today)
    except ValidationError as exc:
        summary = f"{', '.join(bodies)}: the fetched files fail the build's own checks; nothing was pinned"
        raise UpstreamError(summary, exc.problems) from None
    files = {LOCK.parent / old[task].file: data for task, data in bodies.items()}
    replace_files({**files, LOCK: dump_lock(new)})  # each field checked already: by its option, fetch, the lock
    warnings = [w for task in urls for w in result.warnings.get(task, [])]  # the others' were given at their pinning
    return [Refresh(task, old[task], new[task]) for task in urls], warnings


def compare_upstream(urls: dict[str, str | None], limits: Limits) -> list[Refresh]:
    """What each task's URL (None: the recorded one) serves now against the pin; writes nothing, tries every task."""
    old = load_lock(LOCK)
    found = []
    for task, url in urls.items():
        lock = entry(old, task, LOCK)
        try:
            data = download(url or lock.url, limits)
            found.append(Refresh(task, lock, Lock(lock.file, url or lock.url, None, sha256(data), len(data), "")))
        except FetchError as exc:
            found.append(Refresh(task, lock, None, exc))
    return found
