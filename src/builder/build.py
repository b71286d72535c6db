"""The build: load inputs, derive the documents, check them, publish atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.csvview import CSV_NAME, configurations_csv
from builder.errors import InputError, ValidationError
from builder.metadata import load_metadata
from builder.package import descriptor
from builder.pin import Lock, read_pinned, sha256
from builder.transform import build_documents
from builder.upstream import parse_upstream
from builder.validate.run import check_tree
from builder.validate.schema import load_schemas
from builder.validate.tree import DESCRIPTOR, Tree
from builder.write import dumps, keep_dates, parse_or_none, publish

LOCK = Path("upstream/lock.json")
METADATA = Path("metadata.toml")


@dataclass(frozen=True)
class BuildResult:
    files: dict[str, bytes]  # by path relative to the data folder
    descriptor: bytes  # datapackage.json, written beside the data folder
    changed: list[str]  # paths as shown to the user
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
    """Every output file's bytes, dates kept where content is unchanged, checked; writes nothing."""
    meta = load_metadata(metadata)
    lock, data, name = load_upstream(upstream, lock_path)
    parsed = parse_upstream(data, name)
    docs = build_documents(parsed.rows, meta, date)
    old = {rel: _read_or_none(out / rel) for rel in [*docs, CSV_NAME]}  # each old file read once
    docs = {rel: keep_dates(doc, parse_or_none(old[rel])) for rel, doc in docs.items()}
    files = {rel: dumps(doc) for rel, doc in docs.items()}
    files[CSV_NAME] = configurations_csv([d for rel, d in docs.items() if rel.startswith("models/")])
    version = max(doc["data_version"] for doc in docs.values())
    package = descriptor(files, out.name, version, lock, meta, load_schemas())
    tree = Tree(root=out.parent, data_dir=out.name, raw=files, docs=docs, descriptor=package)
    problems = check_tree(tree, meta["base_url"], own_output=True)
    if problems:
        raise ValidationError(f"{out}: the new build fails its own checks; nothing was written", problems)
    package_bytes = dumps(package)
    changed = [f"{out.name}/{rel}" for rel, b in sorted(files.items()) if old[rel] != b]
    existing = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} if out.is_dir() else set()
    changed += [f"{out.name}/{rel} (removed)" for rel in sorted(existing - files.keys())]
    if _read_or_none(out.parent / DESCRIPTOR) != package_bytes:
        changed.append(DESCRIPTOR)
    return BuildResult(files, package_bytes, changed, parsed.warnings)


def build(
    out: Path, upstream: Path | None, date: str, lock_path: Path = LOCK, metadata: Path = METADATA
) -> BuildResult:
    """Regenerate `out` and the descriptor beside it; on any error both are left as they were."""
    result = render(out, upstream, date, lock_path, metadata)
    publish(out, result.files, {DESCRIPTOR: result.descriptor})
    return result


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
