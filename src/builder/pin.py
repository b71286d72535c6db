"""The pinned upstream snapshot and its lock file (url, commit, sha256, size, retrieval date)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from builder.errors import InputError

LOCK_KEYS = ("file", "url", "commit", "sha256", "size", "retrieved")


@dataclass(frozen=True)
class Lock:
    file: str
    url: str
    commit: str | None
    sha256: str
    size: int
    retrieved: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"


def load_lock(path: Path) -> Lock:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the upstream lock ({exc.strerror})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: expected a JSON lock file, found invalid JSON ({exc})") from exc
    if not isinstance(raw, dict) or sorted(raw) != sorted(LOCK_KEYS):
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise InputError(f"{path}: expected exactly the keys {list(LOCK_KEYS)}, found {found}")
    return Lock(**raw)


def read_pinned(lock_path: Path) -> tuple[Lock, Path, bytes]:
    """The lock, the snapshot's path and its bytes, refused unless sha256 and size match the lock."""
    lock = load_lock(lock_path)
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
    return lock, snapshot, data


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
