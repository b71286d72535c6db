"""The build: load inputs, derive the documents, check them, publish atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.csvview import configurations_csv
from builder.errors import InputError, ValidationError
from builder.layout import CSV, DESCRIPTOR, LOCK, METADATA, is_model
from builder.metadata import load_metadata, workloads
from builder.package import descriptor
from builder.pin import Lock, read_pinned, sha256
from builder.transform import build_documents
from builder.upstream import parse_upstream
from builder.validate.run import check_built
from builder.validate.schema import load_schemas
from builder.validate.tree import Tree
from builder.write import dumps, keep_dates, parse_or_none, publish


@dataclass(frozen=True)
class BuildResult:
    files: dict[str, bytes]  # by path relative to the data folder
    descriptor: bytes  # datapackage.json, written beside the data folder
    written: dict[str, str]  # path as shown to the user -> "new", "changed" or "removed"; unchanged files absent
    warnings: list[str]

    @property
    def changed(self) -> list[str]:
        return [path for path, state in self.written.items() if state == "changed"]


def load_upstream(upstream: Path | None, task: str) -> tuple[Lock, bytes, str]:
    """The upstream bytes to build from: the task's pin (checked against its lock) or a given file."""
    if upstream is None:
        pin = read_pinned(LOCK, [task])[task]
        return pin.lock, pin.data, str(pin.path)
    try:
        data = upstream.read_bytes()
    except OSError as exc:
        raise InputError(f"{upstream}: cannot read upstream ({exc.strerror})") from exc
    lock = Lock(file=str(upstream), url="", commit=None, sha256=sha256(data), size=len(data), retrieved="")
    return lock, data, str(upstream)


def render(out: Path, upstream: Path | None, date: str) -> BuildResult:
    """Every output file's bytes, dates kept where content is unchanged, checked; writes nothing."""
    meta = load_metadata(METADATA)
    lock, data, name = load_upstream(upstream, workloads(meta)[0].task)
    parsed = parse_upstream(data, name)
    docs = build_documents(parsed.rows, meta, date)
    old = {rel: _read_or_none(out / rel) for rel in [*docs, CSV]}  # each old file read once
    docs = {rel: keep_dates(doc, parse_or_none(old[rel])) for rel, doc in docs.items()}
    files = {rel: dumps(doc) for rel, doc in docs.items()}
    files[CSV] = configurations_csv([d for rel, d in docs.items() if is_model(rel)])
    version = max(doc["data_version"] for doc in docs.values())
    package = descriptor(files, out.name, version, lock, meta, load_schemas())
    tree = Tree(root=out.parent, data_dir=out.name, raw=files, docs=docs, descriptor=package)
    problems = check_built(tree, meta["base_url"])
    if problems:
        raise ValidationError(f"{out}: the new build fails its own checks; nothing was written", problems)
    package_bytes = dumps(package)
    written = {f"{out.name}/{rel}": _state(old[rel], b) for rel, b in sorted(files.items())}
    existing = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} if out.is_dir() else set()
    written |= {f"{out.name}/{rel}": "removed" for rel in sorted(existing - files.keys())}
    written[DESCRIPTOR] = _state(_read_or_none(out.parent / DESCRIPTOR), package_bytes)
    written = {path: state for path, state in written.items() if state}
    return BuildResult(files, package_bytes, written, parsed.warnings)


def build(out: Path, upstream: Path | None, date: str) -> BuildResult:
    """Regenerate `out` and the descriptor beside it; on any error both are left as they were."""
    result = render(out, upstream, date)
    publish(out, result.files, {DESCRIPTOR: result.descriptor})
    return result


def _state(old: bytes | None, new: bytes) -> str:
    return "new" if old is None else "changed" if old != new else ""


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
