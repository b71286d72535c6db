"""Does the committed package match a fresh build of the pin? What `builder drift` checks, and
with validate what `builder release` requires; reads only."""

import difflib
import os
from pathlib import Path

from builder.build import build
from builder.errors import Problem, ValidationError
from builder.files import Refused, read_file
from builder.layout import DESCRIPTOR, require_repo_root
from builder.scratch import scratch_folder
from builder.validate.committed import (
    refuse_half_published,
    require_data_folder,
    validate_committed,
)
from builder.validate.tree import scan


def check_drift(data: Path, date: str) -> dict[str, str]:
    """A unified diff per file that a fresh build of the pin, in a scratch copy of the committed
    tree, changes."""
    require_repo_root()
    refuse_half_published(data)
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
    files, problems, _ = scan(folder, folder.name)
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
