"""The build: load inputs, derive the documents, check them, publish atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.csvview import configurations_csv
from builder.errors import InputError
from builder.metadata import load_metadata
from builder.pin import Lock, read_pinned, sha256
from builder.transform import build_documents
from builder.upstream import parse_upstream
from builder.write import dumps, keep_dates, publish, read_json_or_none

LOCK = Path("upstream/lock.json")
METADATA = Path("metadata.toml")


@dataclass(frozen=True)
class BuildResult:
    files: dict[str, bytes]
    changed: list[str]
    warnings: list[str]


def load_upstream(upstream: Path | None, lock_path: Path) -> tuple[Lock, bytes, str]:
    """The upstream bytes to build from: the pin (checked against its lock) or a given file."""
    if upstream is None:
        lock, path, data = read_pinned(lock_path)
        return lock, data, str(path)
    try:
        data = upstream.read_bytes()
    except OSError as exc:
        raise InputError(f"{upstream}: cannot read upstream ({exc.strerror})") from exc
    lock = Lock(file=str(upstream), url="", commit=None, sha256=sha256(data), size=len(data), retrieved="")
    return lock, data, str(upstream)


def render(
    out: Path, upstream: Path | None, date: str, lock_path: Path = LOCK, metadata: Path = METADATA
) -> BuildResult:
    """Every output file's bytes, dates kept where content is unchanged; writes nothing."""
    meta = load_metadata(metadata)
    _lock, data, name = load_upstream(upstream, lock_path)
    parsed = parse_upstream(data, name)
    docs = build_documents(parsed.rows, meta, date)
    docs = {rel: keep_dates(doc, read_json_or_none(out / rel)) for rel, doc in docs.items()}
    files = {rel: dumps(doc) for rel, doc in docs.items()}
    files["configurations.csv"] = configurations_csv([d for rel, d in docs.items() if rel.startswith("models/")])
    changed = sorted(rel for rel, b in files.items() if _read_or_none(out / rel) != b)
    return BuildResult(files, changed, parsed.warnings)


def build(
    out: Path, upstream: Path | None, date: str, lock_path: Path = LOCK, metadata: Path = METADATA
) -> BuildResult:
    """Regenerate `out` from upstream; on any error `out` is left as it was."""
    result = render(out, upstream, date, lock_path, metadata)
    publish(out, result.files, {})
    return result


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
