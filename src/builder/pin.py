"""The pinned upstream snapshots, one file per task, and their lock (url, commit, sha256, size, date each).

The lock is `{"tasks": {TASK: {"file", "url", "commit", "sha256", "size", "retrieved"}, ...}}`.
It is an input like any other: each entry's fields are checked before they are used, so that a
`file` cannot name a path outside upstream/ and a URL cannot carry credentials.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError, Problem, ProblemsError
from builder.fetch import Limits, url_problem
from builder.files import Refused, read_regular
from builder.layout import is_workload_id

LOCK_KEYS = ("file", "url", "commit", "sha256", "size", "retrieved")
LOCK_MAX_BYTES = 64 * 1024
COMMIT = re.compile(r"[0-9a-f]{40}")
SHA256 = re.compile(r"[0-9a-f]{64}")
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,254}")


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


def is_iso_date(value: Any) -> bool:
    """A string YYYY-MM-DD naming a real date."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_commit(value: Any) -> bool:
    return isinstance(value, str) and COMMIT.fullmatch(value) is not None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain_name(value: Any, lock_name: str) -> bool:
    return isinstance(value, str) and bool(FILE_NAME.fullmatch(value)) and ".." not in value and value != lock_name


def lock_rules(lock_name: str = "lock.json") -> dict[str, tuple[str, Callable[[Any], bool]]]:
    """Each lock field: what it must be, in words, and the test of it."""
    cap = Limits().max_bytes
    return {
        "file": (
            f"a plain file name inside the lock's folder (no '/', no '..', no leading dot, not {lock_name})",
            lambda v: _plain_name(v, lock_name),
        ),
        "url": (
            "an http(s) URL with a host and no credentials",
            lambda v: isinstance(v, str) and url_problem(v) is None,
        ),
        "commit": ("a 40-character lowercase hex commit sha, or null", lambda v: v is None or is_commit(v)),
        "sha256": ("64 lowercase hex characters", lambda v: isinstance(v, str) and bool(SHA256.fullmatch(v))),
        "size": (f"an integer from 0 to {cap} bytes", lambda v: _is_int(v) and 0 <= v <= cap),
        "retrieved": ('a date as a string "YYYY-MM-DD"', is_iso_date),
    }


def entry_problems(raw: Any, where: str, lock_name: str = "lock.json") -> list[Problem]:
    """Every way one task's lock entry (as parsed JSON) is wrong, one Problem a field."""
    problems = []
    for key, (expected, test) in lock_rules(lock_name).items():
        if not test(raw[key]):
            shown = repr(raw[key]) if len(repr(raw[key])) <= 120 else repr(raw[key])[:117] + "..."
            problems.append(Problem(where, key, f"expected {expected}, found {shown}"))
    return problems


def check_entry(raw: Any, where: str, lock_name: str = "lock.json") -> Lock:
    """One task's lock entry, or InputError (one line a problem) unless it is sound."""
    if not isinstance(raw, dict) or sorted(raw) != sorted(LOCK_KEYS):
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise InputError(f"{where}: expected exactly the keys {list(LOCK_KEYS)}, found {found}")
    problems = entry_problems(raw, where, lock_name)
    if len(problems) == 1:
        raise InputError(str(problems[0]))
    if problems:
        raise ProblemsError(f"{where}: {len(problems)} problems in the upstream lock; nothing was written", problems)
    return Lock(**raw)


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
        raw = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, duplicate keys, long ints
        raise InputError(f"{where}: expected a JSON lock file, found invalid JSON ({exc})") from exc
    tasks = raw.get("tasks") if isinstance(raw, dict) and list(raw) == ["tasks"] else None
    if not isinstance(tasks, dict) or not tasks:
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise InputError(f'{where}: expected {{"tasks": {{TASK: entry, ...}}}} with at least one task, found {found}')
    bad = [task for task in tasks if not is_workload_id(task)]
    if bad:
        raise InputError(f"{where}: expected task names of [a-z0-9] and single '-', found {bad}")
    locks = {task: check_entry(entry, f"{where}: /tasks/{task}", lock_name) for task, entry in tasks.items()}
    files = [lock.file for lock in locks.values()]
    twice = sorted({f for f in files if files.count(f) > 1})
    if twice:
        raise InputError(f"{where}: expected one file per task, found {', '.join(twice)} named by several tasks")
    return locks


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    twice = sorted(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
    if twice:
        raise ValueError(f"expected each key once, found {', '.join(map(repr, twice))} more than once")
    return dict(pairs)


def read_regular_file(path: Path, max_bytes: int, what: str) -> bytes:
    """The bytes of a regular file (a link to one counts) of at most `max_bytes`.

    Anything else is refused without being read: a FIFO, a device such as /dev/zero, a folder, a
    larger file (by its size on disk, then by what is read, in case it grows meanwhile).
    """
    try:
        return read_regular(path, max_bytes, follow_links=True)
    except Refused as exc:
        if exc.error is not None:
            raise InputError(f"{path}: cannot read {what} ({exc.error})") from exc
        if exc.found_kind is not None:
            raise InputError(f"{path}: expected {what} as a regular file, found {exc.found_kind}; not read") from exc
        raise InputError(f"{path}: expected {what} of at most {max_bytes} bytes, found {exc.size}; not read") from exc


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
            raise InputError(f"{snapshot}: sha256 expected {lock.sha256} (from {lock_path}), found {digest}")
        if len(data) != lock.size:
            raise InputError(f"{snapshot}: size expected {lock.size} bytes (from {lock_path}), found {len(data)}")
        pinned[task] = Pinned(lock, snapshot, data)
    return pinned


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
