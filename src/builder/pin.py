"""The pinned upstream snapshots, one file per task, and their lock (url, commit, sha256, size, date each).

The lock is `{"tasks": {TASK: {"file", "url", "commit", "sha256", "size", "retrieved"}, ...}}`;
each entry is checked on its own, and its file is a plain name beside the lock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError
from builder.layout import is_plain_file_name, is_workload_id

LOCK_KEYS = ("file", "url", "commit", "sha256", "size", "retrieved")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Lock:
    file: str
    url: str
    commit: str | None
    sha256: str
    size: int
    retrieved: str


@dataclass(frozen=True)
class Pinned:
    """A task's lock entry and its snapshot, read and checked against the entry."""

    lock: Lock
    path: Path
    data: bytes


def lock_json(locks: dict[str, Lock]) -> dict[str, Any]:
    """The lock file's content: every task's entry, in the order given."""
    return {"tasks": {task: asdict(lock) for task, lock in locks.items()}}


def dump_lock(locks: dict[str, Lock]) -> bytes:
    return (json.dumps(lock_json(locks), indent=2) + "\n").encode()


def load_lock(path: Path) -> dict[str, Lock]:
    """Every task's lock entry, in file order; refused unless each entry is sound and files are distinct."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the upstream lock ({exc.strerror})") from exc
    return parse_lock(data, str(path))


def parse_lock(data: bytes, where: str) -> dict[str, Lock]:
    """The lock file's bytes (`where`: how to name it in a message, e.g. a path at a commit), checked."""
    try:
        raw = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicate_keys)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: expected a JSON lock file, found invalid JSON ({exc})") from exc
    tasks = raw.get("tasks") if isinstance(raw, dict) and list(raw) == ["tasks"] else None
    if not isinstance(tasks, dict) or not tasks:
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise InputError(f'{where}: expected {{"tasks": {{TASK: entry, ...}}}} with at least one task, found {found}')
    locks = {task: lock_entry(entry, f"{where}: /tasks/{task}") for task, entry in tasks.items()}
    bad = [task for task in locks if not is_workload_id(task)]
    if bad:
        raise InputError(f"{where}: expected task names of [a-z0-9] and single '-', found {bad}")
    files = [lock.file for lock in locks.values()]
    twice = sorted({f for f in files if files.count(f) > 1})
    if twice:
        raise InputError(f"{where}: expected one file per task, found {', '.join(twice)} named by several tasks")
    return locks


def lock_entry(raw: Any, where: str) -> Lock:
    """One task's lock entry: exactly the six keys, each of its type."""
    if not isinstance(raw, dict) or sorted(raw) != sorted(LOCK_KEYS):
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise InputError(f"{where}: expected exactly the keys {list(LOCK_KEYS)}, found {found}")
    faults = []
    if not isinstance(raw["file"], str) or not is_plain_file_name(raw["file"]):
        faults.append(f"file: expected a plain file name beside the lock, found {raw['file']!r}")
    if not isinstance(raw["url"], str) or not raw["url"].startswith(("https://", "http://")):
        faults.append(f"url: expected an http(s) URL, found {raw['url']!r}")
    if raw["commit"] is not None and not isinstance(raw["commit"], str):
        faults.append(f"commit: expected a string or null, found {raw['commit']!r}")
    if not isinstance(raw["sha256"], str) or not _SHA256.fullmatch(raw["sha256"]):
        faults.append(f"sha256: expected 64 lower-case hex digits, found {raw['sha256']!r}")
    if not isinstance(raw["size"], int) or isinstance(raw["size"], bool) or raw["size"] < 0:
        faults.append(f"size: expected an integer >= 0, found {raw['size']!r}")
    if not _is_date(raw["retrieved"]):
        faults.append(f"retrieved: expected a date YYYY-MM-DD, found {raw['retrieved']!r}")
    if faults:
        raise InputError(f"{where}: " + "; ".join(faults))
    return Lock(**raw)


def read_pinned(lock_path: Path, tasks: Iterable[str]) -> dict[str, Pinned]:
    """The given tasks' snapshots, each refused unless its sha256 and size match its lock entry."""
    locks = load_lock(lock_path)
    pinned = {}
    for task in tasks:
        lock = locks.get(task)
        if lock is None:
            raise InputError(f"{lock_path}: expected an entry for task {task}, found none")
        snapshot = lock_path.parent / lock.file
        try:
            data = snapshot.read_bytes()
        except OSError as exc:
            raise InputError(f"{snapshot}: cannot read the pinned upstream ({exc.strerror})") from exc
        digest = sha256(data)
        if digest != lock.sha256:
            raise InputError(f"{snapshot}: sha256 expected {lock.sha256} (from {lock_path}), found {digest}")
        if len(data) != lock.size:
            raise InputError(f"{snapshot}: size expected {lock.size} bytes (from {lock_path}), found {len(data)}")
        pinned[task] = Pinned(lock, snapshot, data)
    return pinned


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_date(value: Any) -> bool:
    try:
        return isinstance(value, str) and len(value) == 10 and bool(dt.date.fromisoformat(value))
    except ValueError:
        return False


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(f"duplicate key(s) {', '.join(twice)}")
    return dict(pairs)
