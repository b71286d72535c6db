"""Refresh the pin: fetch upstream, check it in full, then replace snapshot and lock together."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from builder.fetch import Limits, Progress, download
from builder.pin import Lock, check_lock, load_lock, sha256
from builder.upstream import parse_upstream
from builder.write import replace_files


@dataclass(frozen=True)
class Refresh:
    old: Lock
    new: Lock
    warnings: list[str]

    @property
    def moved(self) -> bool:
        return self.old.sha256 != self.new.sha256


def fetch_and_pin(
    url: str, commit: str | None, lock_path: Path, today: str, limits: Limits, progress: Progress | None = None
) -> Refresh:
    """Download, run every upstream check, and only then pin; any failure leaves pin and lock as they were."""
    old = load_lock(lock_path)
    data = download(url, limits, progress)
    parsed = parse_upstream(data, url)
    new = Lock(file=old.file, url=url, commit=commit, sha256=sha256(data), size=len(data), retrieved=today)
    check_lock(asdict(new), lock_path)  # what load_lock will accept next time: url, commit, size, date
    replace_files({lock_path.parent / old.file: data, lock_path: new.to_json().encode()})
    return Refresh(old, new, parsed.warnings)


def compare_upstream(url: str, lock_path: Path, limits: Limits) -> Refresh:
    """What upstream serves now against the pin, without writing anything."""
    old = load_lock(lock_path)
    data = download(url, limits)
    new = Lock(file=old.file, url=url, commit=None, sha256=sha256(data), size=len(data), retrieved="")
    return Refresh(old, new, [])
