"""The pinned upstream snapshots (a file per task, per-model files) and their lock
(schemas/inputs/lock.schema.json)."""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from builder.errors import InputError, Problem, pointer, shown
from builder.fetch import Limits
from builder.files import read_regular_file
from builder.jsonschemas import LOCK_SCHEMA, input_problems, refuse
from builder.strictjson import StrictJSONError, parse_json

LOCK_MAX_BYTES = 64 * 1024
# A snapshot that is not the one its lock names: edited, or a fetch stopped between its two renames.
REPAIR = "run `builder fetch` to refetch the pin, or `git checkout {lock.parent}/` to restore it"


@dataclass(frozen=True)
class Lock:
    file: str
    url: str  # upstream's own URL of the file; a mirror never replaces it
    # upstream's commit of the bytes; null only in a lock written before fetch required one
    commit: str | None
    sha256: str
    size: int
    retrieved: str
    mirror: str | None = None  # the URL the bytes were fetched from, when not upstream's own


@dataclass(frozen=True)
class Pinned:
    """A task's lock entry and its snapshot's bytes."""

    lock: Lock
    name: str  # as messages show it: a path or a URL
    data: bytes


def lock_json(locks: dict[str, Lock], models: dict[str, Lock] | None = None) -> dict[str, Any]:
    """The lock file's content: every task's entry, then every per-model file's (if any), in the
    order given."""
    found: dict[str, Any] = {"tasks": {task: _entry_json(lock) for task, lock in locks.items()}}
    return found | (
        {"models": {name: _entry_json(lock) for name, lock in models.items()}} if models else {}
    )


def _entry_json(lock: Lock) -> dict[str, Any]:
    """A lock entry as the file holds it: `mirror` only when there is one."""
    return {
        key: value for key, value in asdict(lock).items() if key != "mirror" or value is not None
    }


def dump_lock(locks: dict[str, Lock], models: dict[str, Lock] | None = None) -> bytes:
    return (json.dumps(lock_json(locks, models), indent=2, allow_nan=False) + "\n").encode()


def load_lock(path: Path) -> dict[str, Lock]:
    """Every task's lock entry, in file order; refused unless each entry is sound and files are
    distinct."""
    return parse_lock(read_regular_file(path, LOCK_MAX_BYTES, "the upstream lock"), str(path))


def load_model_locks(path: Path) -> dict[str, Lock]:
    """Every per-model file's lock entry, in file order (none when the lock names none)."""
    return parse_locks(read_regular_file(path, LOCK_MAX_BYTES, "the upstream lock"), str(path))[1]


def parse_lock(data: bytes, where: str) -> dict[str, Lock]:
    """The tasks' entries of the lock file's bytes (`where`: how to name it in a message),
    checked."""
    return parse_locks(data, where)[0]


def parse_locks(data: bytes, where: str) -> tuple[dict[str, Lock], dict[str, Lock]]:
    """The tasks' and the per-model files' entries of the lock file's bytes, checked."""
    try:
        raw = parse_json(data)
    except StrictJSONError as exc:
        refuse(where, exc.problems(where), "the upstream lock")
    refuse(where, input_problems(LOCK_SCHEMA, raw, where), "the upstream lock")
    files = [entry["file"] for entry in raw["tasks"].values()]
    if twice := sorted({f for f in files if files.count(f) > 1}):
        found = f"{', '.join(twice)} named by several tasks"
        problem = Problem.mismatch(where, "/tasks", "lock.file", "one file per task", found)
        raise InputError(str(problem), problem)
    models = raw.get("models", {})
    # the file a name stands for: one each, distinct by construction
    for name, found_entry in models.items():
        if found_entry["file"] != model_file(name):
            at, want = pointer(("models", name, "file")), model_file(name)
            file = found_entry["file"]
            problem = Problem.mismatch(where, at, "lock.model-file", want, shown(file))
            raise InputError(str(problem), problem)
    tasks = {task: Lock(**entry) for task, entry in raw["tasks"].items()}
    return tasks, {name: Lock(**entry) for name, entry in models.items()}


def model_file(name: str) -> str:
    """Where a per-model file's snapshot is, relative to the lock's folder."""
    return f"models/{name}.json"


def lock_entry(locks: dict[str, Lock], task: str, lock_path: Path) -> Lock:
    """The lock entry of `task`, or InputError naming the tasks the lock has."""
    if task not in locks:
        raise InputError(
            f"{lock_path}: expected an entry for task {task}, found none (tasks: "
            f"{', '.join(locks)})"
        )
    return locks[task]


def read_pinned(lock_path: Path, tasks: Iterable[str]) -> dict[str, Pinned]:
    """The given tasks' snapshots, each refused unless its sha256 and size match its lock entry."""
    locks = load_lock(lock_path)
    return {task: read_snapshot(lock_path, lock_entry(locks, task, lock_path)) for task in tasks}


def read_pinned_models(lock_path: Path) -> dict[str, Pinned]:
    """Every per-model file the lock names, each refused unless its sha256 and size match its
    entry."""
    return {
        name: read_snapshot(lock_path, lock) for name, lock in load_model_locks(lock_path).items()
    }


def read_snapshot(lock_path: Path, lock: Lock) -> Pinned:
    """The snapshot a lock entry names, refused unless its sha256 and size match the entry."""
    snapshot = lock_path.parent / lock.file
    data = read_regular_file(snapshot, Limits().max_bytes, "the pinned upstream")
    for what, expected, found in (
        ("sha256", lock.sha256, sha256(data)),
        ("size", lock.size, len(data)),
    ):
        if found != expected:
            said = f"{what} expected {expected} (from {lock_path}), found {found}"
            raise InputError(f"{snapshot}: {said}; {REPAIR.format(lock=lock_path)}")
    return Pinned(lock, str(snapshot), data)


def commit_problems(lock_path: Path, locks: dict[str, Lock], group: str) -> list[Problem]:
    """A problem for each entry of `group` (tasks, models) without upstream's commit: a build would
    publish its source with no version, which validate refuses."""
    return [
        Problem.mismatch(
            str(lock_path),
            pointer((group, name, "commit")),
            "lock.commit",
            "upstream's commit of the pinned bytes, 40 lowercase hex digits",
            "null",
            "; run `builder fetch --commit SHA` (the same bytes keep their pin and gain it)",
        )
        for name, lock in locks.items()
        if lock.commit is None
    ]


def local_pin(path: Path) -> Pinned:
    """A task file given in place of its pin, read with fetch's cap (no FIFO); its lock has no
    URL, commit or date."""
    data = read_regular_file(path, Limits().max_bytes, "upstream")
    return Pinned(Lock(str(path), "", None, sha256(data), len(data), ""), str(path), data)


def moved(old: Lock, data: bytes) -> bool:
    """True when `data` is not the snapshot the entry pins."""
    return sha256(data) != old.sha256 or len(data) != old.size


def refreshed(old: Lock, fetched_from: str, commit: str | None, data: bytes, today: str) -> Lock:
    """The lock entry after a fetch of `data`: the same entry for the same bytes (a null commit
    filled from `commit`); for new bytes, their entry with upstream's URL kept, the mirror beside
    it, and `commit`."""
    if not moved(old, data):
        return replace(old, commit=commit) if old.commit is None and commit is not None else old
    mirror = None if fetched_from == old.url else fetched_from
    return Lock(old.file, old.url, commit, sha256(data), len(data), today, mirror)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
