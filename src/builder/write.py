"""Canonical JSON, the date rule, and atomic replacement of the output tree."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from builder.errors import OutputError

DATE_KEYS = ("updated", "data_version")


def dumps(doc: Any) -> bytes:
    """UTF-8, 2-space indent, keys in insertion order, one trailing newline; strict JSON only.

    NaN and Infinity are refused (OutputError naming where), never written as `NaN`/`Infinity`:
    the last guard behind the checks of upstream and metadata, which refuse them first.
    """
    try:
        return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except ValueError as exc:
        import math

        todo, where = [("", doc)], ""
        while todo:  # find the first value JSON cannot carry, to name it
            at, value = todo.pop(0)
            if isinstance(value, float) and not math.isfinite(value):
                where = f" at {at or '/'} ({value!r})"
                break
            if isinstance(value, dict):
                todo += [(f"{at}/{k}", v) for k, v in value.items()]
            elif isinstance(value, list | tuple):
                todo += [(f"{at}/{i}", v) for i, v in enumerate(value)]
        msg = f"expected strict JSON, found a value it cannot hold{where} ({exc}); nothing was written"
        raise OutputError(msg) from exc


def undated(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in DATE_KEYS}


def keep_dates(new: dict[str, Any], old: Any) -> dict[str, Any]:
    """New content keeps the old dates when nothing else changed; otherwise it keeps its own."""
    if not isinstance(old, dict) or not all(isinstance(old.get(k), str) for k in DATE_KEYS):
        return new
    if undated(old) != undated(new):
        return new
    return {**new, **{k: old[k] for k in DATE_KEYS}}  # existing keys keep their position


def parse_or_none(data: bytes | None) -> Any:
    """A previous output file's content, or None when absent or unparseable (then it counts as changed)."""
    try:
        return json.loads(data) if data is not None else None
    except ValueError:
        return None


def publish(out: Path, files: dict[str, bytes], beside: dict[str, bytes]) -> None:
    """Make `out` hold exactly `files`, and write `beside` next to it, or change nothing.

    The new tree is written in full next to `out`, then swapped in with one rename (an atomic
    exchange where the kernel has one). Files in `beside` are then replaced by `replace_files`;
    if that fails, it restores them and the old tree is swapped back.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: expected a folder to write into, found a file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        stage.chmod(0o777 & ~_umask())  # mkdtemp makes 0700; the published tree gets normal modes
    except OSError as exc:
        raise OutputError(f"{out}: cannot write beside the output folder ({exc.strerror})") from exc
    try:
        for rel, data in sorted(files.items()):
            target = stage / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        swapped = _swap_in(stage, out)
        try:
            replace_files({out.parent / name: data for name, data in sorted(beside.items())})
        except OutputError:
            _swap_back(stage, out, swapped)
            raise
    except OSError as exc:
        raise OutputError(f"{exc.filename or out}: cannot write output ({exc.strerror}); {out} is unchanged") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)


_RENAME_EXCHANGE = 2


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: the file system cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(stage: Path, out: Path) -> str:
    """Put `stage` at `out`; afterwards `stage` holds the old tree, if there was one."""
    if not out.exists():
        os.rename(stage, out)
        stage.mkdir()
        return "new"
    if _exchange(stage, out):
        return "exchanged"
    backup = stage.with_name(stage.name + ".old")
    os.rename(out, backup)
    try:
        os.rename(stage, out)
    except OSError:
        os.rename(backup, out)
        raise
    os.rename(backup, stage)
    return "renamed"


def _swap_back(stage: Path, out: Path, how: str) -> None:
    if how == "new":
        shutil.rmtree(out)
    elif not _exchange(stage, out):
        shutil.rmtree(out)
        os.rename(stage, out)
        stage.mkdir()


def replace_files(files: dict[Path, bytes]) -> None:
    """Replace several files together: all are staged first; if any replace fails, the rest are restored."""
    staged: list[tuple[Path, Path]] = []
    done: list[tuple[Path, bytes | None]] = []
    try:
        for final, data in files.items():
            tmp = final.with_name(f".{final.name}.new-{os.getpid()}")
            tmp.write_bytes(data)
            staged.append((tmp, final))
        for tmp, final in staged:
            before = final.read_bytes() if final.exists() else None
            os.replace(tmp, final)
            done.append((final, before))
    except OSError as exc:
        for final, before in reversed(done):
            if before is None:
                final.unlink(missing_ok=True)
            else:
                final.write_bytes(before)
        raise OutputError(f"{exc.filename or 'output'}: cannot write ({exc.strerror}); nothing was changed") from exc
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
