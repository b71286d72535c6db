"""Is the committed package sound? What `builder validate`, `builder drift` and `builder release` check."""

from __future__ import annotations

import difflib
import shutil
import tempfile
from pathlib import Path

from builder.build import build
from builder.errors import DriftError, InputError, Problem, ValidationError
from builder.layout import DESCRIPTOR, METADATA, require_repo_root
from builder.metadata import load_metadata
from builder.validate.run import check_published
from builder.validate.tree import load_tree
from builder.write import recover


def validate_committed(data: Path) -> None:
    """Every check of `data` and the descriptor beside it; ValidationError listing every problem."""
    require_repo_root(METADATA)
    recover(data)  # first finish a publish that a killed build had committed to (builder.write)
    if not data.is_dir():
        raise InputError(f"{data}: expected a data folder, found none")
    problems = check_published(load_tree(data), load_metadata(METADATA)["base_url"])
    if problems:
        raise ValidationError(f"{data}: {len(problems)} problem(s)", problems)


def check_drift(data: Path, date: str) -> dict[str, str]:
    """A unified diff per file that a fresh build of the pin would change; empty when there is no drift."""
    require_repo_root()
    recover(data)
    with tempfile.TemporaryDirectory(prefix="builder-drift-") as scratch:
        copy = Path(scratch) / data.name
        if data.is_dir():
            shutil.copytree(data, copy)  # the committed dates seed the date rule, as in a real build
        if (data.parent / DESCRIPTOR).is_file():
            shutil.copy2(data.parent / DESCRIPTOR, Path(scratch) / DESCRIPTOR)
        build(copy, None, date)
        committed = {f"{data.name}/{k}": v for k, v in files_below(data).items()} if data.is_dir() else {}
        rebuilt = {f"{data.name}/{k}": v for k, v in files_below(copy).items()}
        for tree, root in ((committed, data.parent), (rebuilt, Path(scratch))):
            if (root / DESCRIPTOR).is_file():
                tree[DESCRIPTOR] = (root / DESCRIPTOR).read_bytes()
    names = sorted(committed.keys() | rebuilt.keys())
    return {n: _diff(n, committed.get(n), rebuilt.get(n)) for n in names if committed.get(n) != rebuilt.get(n)}


def drift_error(diffs: dict[str, str]) -> DriftError:
    problems = [Problem(name, "/", "expected the bytes a fresh build of the pin makes, found others") for name in diffs]
    return DriftError(f"{len(diffs)} file(s) differ from a fresh build: run `builder build` and commit", problems)


def check_committed(data: Path, date: str) -> None:
    """Valid and free of drift, or the first error: what a release requires."""
    validate_committed(data)
    diffs = check_drift(data, date)
    if diffs:
        raise drift_error(diffs)


def files_below(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _diff(name: str, old: bytes | None, new: bytes | None) -> str:
    before = (old or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    after = (new or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    label_old = f"committed/{name}" if old is not None else "/dev/null"
    label_new = f"rebuilt/{name}" if new is not None else "/dev/null"
    return "".join(difflib.unified_diff(before, after, label_old, label_new, n=2))
