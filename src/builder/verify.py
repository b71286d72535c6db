"""Is the committed package sound? What `builder validate`, `builder drift` and `builder release`
check; reads only."""

import difflib
import os
from pathlib import Path
from typing import Any

from builder.build import build
from builder.errors import InputError, Problem, ValidationError
from builder.files import Refused, is_folder, lookup_error, read_file
from builder.layout import (
    CSV,
    DESCRIPTOR,
    INDEX,
    LOCK,
    METADATA,
    MODEL_LIST,
    SCHEMAS,
    WORKLOAD_LIST,
    require_repo_root,
)
from builder.metadata import load_metadata
from builder.package import curated_parts
from builder.pin import load_lock
from builder.scratch import scratch_folder
from builder.validate.run import check_published
from builder.validate.tree import load_tree, scan
from builder.write import stages


def validate_committed(data: Path) -> None:
    """Every check of `data` and the descriptor beside it; ValidationError listing every problem."""
    refuse_half_published(data)
    require_data_folder(data)
    try:
        tree = load_tree(data)
        curated, base_url = provenance(data.parent, tree.descriptor)
        problems = check_published(tree, base_url, curated)
    # a schema no check can start on
    except (
        KeyError,
        TypeError,
        AttributeError,
        ValueError,
        RecursionError,
    ) as exc:
        raise InputError(
            f"{SCHEMAS}/: cannot check {data} with these schemas ({type(exc).__name__}: {exc})"
        ) from exc
    if problems:
        raise ValidationError(f"{data}: {len(problems)} problem(s)", problems)


def refuse_half_published(data: Path) -> None:
    """One line naming the repair when a publish into `data` was interrupted (its stage is still
    beside it)."""
    if left := stages(data):
        fault = (
            f"{data}: half-published: {left[0]} was left by an interrupted publish; run "
            f"`builder build` to finish"
        )
        raise ValidationError(fault, [])


def require_data_folder(data: Path, *, absent_ok: bool = False) -> None:
    """InputError unless `data` is a folder (or absent, if `absent_ok`) with one of a data
    folder's top files."""
    if (error := lookup_error(data)) is not None:
        raise InputError(f"{data}: expected a data folder, found an error ({error})")
    if not is_folder(data):
        if absent_ok:
            return
        raise InputError(f"{data}: expected a data folder, found none")
    if not any(os.path.lexists(data / name) for name in (INDEX, MODEL_LIST, WORKLOAD_LIST, CSV)):
        names = f"{INDEX}, {MODEL_LIST}, {WORKLOAD_LIST} or {CSV}"
        raise InputError(
            f"{data}: expected a data folder, with {names} at its top, found none of them"
        )


def provenance(root: Path, descriptor: Any) -> tuple[dict[str, Any] | None, str]:
    """What the descriptor's curated keys must be (None in a release archive), and the base URL."""
    if (root / METADATA).is_file():
        meta = load_metadata(root / METADATA)
        return curated_parts(load_lock(root / LOCK), meta), meta["base_url"]
    homepage = descriptor.get("homepage") if isinstance(descriptor, dict) else None
    return None, homepage if isinstance(homepage, str) else ""


def check_drift(data: Path, date: str) -> dict[str, str]:
    """A unified diff per file that a fresh build of the pin, in a scratch copy of the committed
    tree, changes."""
    require_repo_root()
    require_data_folder(data, absent_ok=True)
    committed = (
        {f"{data.name}/{k}": v for k, v in files_below(data).items()}
        if os.path.lexists(data)
        else {}
    )
    descriptor = data.parent / DESCRIPTOR
    if os.path.lexists(descriptor):
        committed[DESCRIPTOR] = _read(descriptor, DESCRIPTOR, descriptor)
    # the committed dates seed the date rule
    with scratch_folder("builder-drift-", committed) as scratch:
        copy = Path(scratch) / data.name
        descriptor_bytes = build(copy, None, date).descriptor
        rebuilt = {f"{data.name}/{k}": v for k, v in files_below(copy).items()} | {
            DESCRIPTOR: descriptor_bytes
        }
    names = sorted(committed.keys() | rebuilt.keys())
    return {
        n: _diff(n, committed.get(n), rebuilt.get(n))
        for n in names
        if committed.get(n) != rebuilt.get(n)
    }


def drift_error(diffs: dict[str, str]) -> ValidationError:
    """The error naming every file that drifted."""
    want = "the bytes a fresh build of the pin makes"
    problems = [Problem.mismatch(name, "/", "drift.bytes", want, "others") for name in diffs]
    return ValidationError(
        f"{len(diffs)} file(s) differ from a fresh build: run `builder build` and commit", problems
    )


def check_committed(data: Path, date: str) -> None:
    """Valid and free of drift, or the first error: what a release requires."""
    validate_committed(data)
    if diffs := check_drift(data, date):
        raise drift_error(diffs)


def files_below(folder: Path) -> dict[str, bytes]:
    """Every file below `folder`, by relative path, if all are regular files within the size
    limit."""
    files, problems = scan(folder, folder.name)
    if problems:
        raise _refusal(folder, problems)
    return {rel: _read(folder / rel, f"{folder.name}/{rel}", folder) for rel in files}


def _read(path: Path, name: str, refused: Path) -> bytes:
    """The file's bytes, or the refusal of `refused` naming it (a file can change since the walk
    that listed it)."""
    try:
        return read_file(path)
    except Refused as exc:
        raise _refusal(refused, [Problem.of(name, "/", "tree.refused", exc.said)]) from None


def _refusal(path: Path, problems: list[Problem]) -> ValidationError:
    return ValidationError(
        f"{path}: {len(problems)} problem(s); refused before reading or copying anything", problems
    )


def _diff(name: str, old: bytes | None, new: bytes | None) -> str:
    before, after = (
        (b or b"").decode("utf-8", errors="replace").splitlines(keepends=True) for b in (old, new)
    )
    label_old = f"committed/{name}" if old is not None else "/dev/null"
    label_new = f"rebuilt/{name}" if new is not None else "/dev/null"
    return "".join(difflib.unified_diff(before, after, label_old, label_new, n=2))
