"""Files of "a folder or a git ref": the one loader behind `diff`, `schema-diff` and the release guard."""

from __future__ import annotations

from pathlib import Path

from builder import git
from builder.errors import InputError
from builder.files import read_regular_file
from builder.layout import MAX_FILE_BYTES


def source_files(
    spec: str, below: str, suffix: str, what: str, deep: bool = True, expected: str = "a folder or a git ref"
) -> tuple[str, dict[str, bytes]]:
    """A prefix naming the place, and the bytes of files *`suffix` in `below` of folder or git ref `spec`, by path."""
    folder = Path(spec)
    if folder.is_dir():
        inner = folder / below
        root, shown = (inner, f"{spec.rstrip('/')}/{below}/") if inner.is_dir() else (folder, f"{spec.rstrip('/')}/")
        found = root.rglob(f"*{suffix}") if deep else root.glob(f"*{suffix}")
        return shown, {
            p.relative_to(root).as_posix(): read_regular_file(p, MAX_FILE_BYTES, what) for p in sorted(found)
        }
    if (commit := git.commit_of(spec)) is None:
        raise InputError(f"{spec}: expected {expected}, found neither")
    files = {rel.removeprefix(f"{below}/"): data for rel, data in git.tree_files(commit, (below,))[0].items()}
    kept = {rel: data for rel, data in files.items() if rel.endswith(suffix) and (deep or "/" not in rel)}
    return f"{spec}:{below}/", dict(sorted(kept.items()))
