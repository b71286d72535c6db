"""The pinned upstream snapshots, one file per task, and their lock (url, commit, sha256, size, date each).

The lock is `{"tasks": {TASK: {"file", "url", "commit", "sha256", "size", "retrieved"}, ...}}`, checked
against schemas/inputs/lock.schema.json before it is used; code adds the rules across entries and files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError, Problem
from builder.fetch import Limits
from builder.files import read_regular_file
from builder.inputs import LOCK_SCHEMA, refuse, schema_problems
from builder.strictjson import StrictJSONError, parse_json

LOCK_MAX_BYTES = 64 * 1024
COMMIT = re.compile(r"[0-9a-f]{40}")
# A snapshot that is not the one its lock names: edited, or a fetch stopped between its two renames.
REPAIR = "run `builder fetch` to refetch the pin, or `git checkout {lock.parent}/` to restore it"


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


def is_commit(value: Any) -> bool:
    return isinstance(value, str) and COMMIT.fullmatch(value) is not None


def lock_json(locks: dict[str, Lock]) -> dict[str, Any]:
    """The lock file's content: every task's entry, in the order given."""
    return {"tasks": {task: asdict(lock) for task, lock in locks.items()}}


def dump_lock(locks: dict[str, Lock]) -> bytes:
    return (json.dumps(lock_json(locks), indent=2, allow_nan=False) + "\n").encode()


def load_lock(path: Path) -> dict[str, Lock]:
    """Every task's lock entry, in file order; refused unless each entry is sound and files are distinct."""
    return parse_lock(read_regular_file(path, LOCK_MAX_BYTES, "the upstream lock"), str(path), path.name)


def parse_lock(data: bytes, where: str, lock_name: str = "lock.json") -> dict[str, Lock]:
    """The lock file's bytes (`where`: how to name it in a message, e.g. a path at a commit), checked."""
    try:
        raw = parse_json(data)
    except StrictJSONError as exc:
        problems = exc.problems(where)
    else:
        problems = schema_problems(LOCK_SCHEMA, raw, where)
    refuse(where, problems, "the upstream lock")
    tasks = raw["tasks"]
    files = [entry["file"] for entry in tasks.values()]
    own = f"expected a snapshot's file name, found {lock_name!r}, the lock's own"
    problems = [Problem(where, f"/tasks/{task}/file", own) for task, e in tasks.items() if e["file"] == lock_name]
    twice = sorted({f for f in files if files.count(f) > 1})
    if twice:
        problems.append(
            Problem(where, "/tasks", f"expected one file per task, found {', '.join(twice)} named by several tasks")
        )
    refuse(where, problems, "the upstream lock")
    return {task: Lock(**entry) for task, entry in tasks.items()}


def read_pinned(lock_path: Path, tasks: Iterable[str]) -> dict[str, Pinned]:
    """The given tasks' snapshots, each refused unless its sha256 and size match its lock entry."""
    locks = load_lock(lock_path)
    pinned = {}
    for task in tasks:
        lock = locks.get(task)
        if lock is None:
            raise InputError(f"{lock_path}: expected an entry for task {task}, found none")
        snapshot = lock_path.parent / lock.file
        data = read_regular_file(snapshot, Limits().max_bytes, "the pinned upstream")
        digest = sha256(data)
        if digest != lock.sha256:
            found = f"sha256 expected {lock.sha256} (from {lock_path}), found {digest}"
            raise InputError(f"{snapshot}: {found}; {REPAIR.format(lock=lock_path)}")
        if len(data) != lock.size:
            found = f"size expected {lock.size} bytes (from {lock_path}), found {len(data)}"
            raise InputError(f"{snapshot}: {found}; {REPAIR.format(lock=lock_path)}")
        pinned[task] = Pinned(lock, snapshot, data)
    return pinned


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
