"""Canonical JSON, the date rule, and the one publish step of every command that writes.

A folder is published by writing the new one, synced, in a hidden stage folder beside it
(`.NAME.stage-XXXXXXXX`, marked by a `.builder-stage` file made first), then, with SIGINT, SIGTERM
and SIGHUP held back, renaming the old folder into the stage, the new one into place and each file
beside it (the descriptor) over its own, and last removing the stage. Files that cannot travel in a
folder (upstream snapshots and their lock) are staged beside each and renamed in order, the lock
last. A killed run leaves its stage: `builder validate` reports it, the next run removes it. An entry
named like a stage without the mark is never removed.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from builder.errors import OutputError
from builder.files import is_folder
from builder.layout import (
    is_hidden,
)

DATE_KEYS = ("updated", "data_version")
STAGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile's random part, 8 of them
STAGE_MARK = ".builder-stage"  # made first in every stage: only a folder holding it is removed or restored
HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # held back while a swap runs


def dumps(doc: Any) -> bytes:
    """UTF-8, 2-space indent, keys in insertion order, one trailing newline; NaN and Infinity refused."""
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


def newest_data_version(docs: Iterable[Any]) -> str | None:
    """The newest `data_version` among documents (every workload's), or None when none has one."""
    dated = (d["data_version"] for d in docs if isinstance(d, dict) and isinstance(d.get("data_version"), str))
    return max(dated, default=None)


def undated(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in DATE_KEYS}


def keep_dates(new: dict[str, Any], old: Any) -> dict[str, Any]:
    """New content keeps the old dates when nothing else changed; otherwise it keeps its own."""
    keys = [k for k in DATE_KEYS if k in new]  # a frontier has data_version alone
    if not isinstance(old, dict) or not all(isinstance(old.get(k), str) for k in keys):
        return new
    if undated(old) != undated(new):
        return new
    return {**new, **{k: old[k] for k in keys}}  # existing keys keep their position


def parse_or_none(data: bytes | None) -> Any:
    """A previous output file's content, or None when absent or unparseable (then it counts as changed)."""
    try:
        return json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        return None


# Stages: the hidden entries beside a target that a publish works in.


def stage_prefix(target: Path) -> str:
    return f".{target.name}.stage-"


def _named_like_stages(target: Path) -> list[Path]:
    prefix = stage_prefix(target)
    try:
        names = os.listdir(target.parent)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [n for n in names if n.startswith(prefix) and len(n) == len(prefix) + 8]
    return [target.parent / n for n in sorted(found) if set(n[len(prefix) :]) <= STAGE_CHARS]


def _is_stage(path: Path) -> bool:
    """A folder (not a link to one) that holds the stage mark as a regular file; looked up, never opened."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode) and stat.S_ISREG((path / STAGE_MARK).lstat().st_mode)
    except OSError:
        return False


def stages(target: Path) -> list[Path]:
    """The stages a publish left beside `target`: named like one and marked (nothing is opened)."""
    return [path for path in _named_like_stages(target) if _is_stage(path)]


def remove_stages(target: Path) -> list[Path]:
    """Remove the stages a killed run left beside `target`, first putting back an old folder it had moved
    away; an empty folder of a stage's name goes too (killed before its mark). Returns what is named like a
    stage but is none: it is left in place."""
    foreign = []
    for path in _named_like_stages(target):
        if _is_stage(path):
            if not os.path.lexists(target) and is_folder(path / "old"):
                os.rename(path / "old", target)  # killed between its two renames: the old folder goes back
            _remove_stage(path)
            continue
        try:
            os.rmdir(path)  # only ever removes an empty folder, never a link, file or what it names
        except OSError:
            foreign.append(path)
    return foreign


def _remove_stage(stage: Path) -> None:
    """Remove a stage, its mark last: a removal cut short leaves a stage still known as one."""
    for entry in os.scandir(stage):
        if entry.name != STAGE_MARK:
            shutil.rmtree(entry.path) if entry.is_dir(follow_symlinks=False) else os.unlink(entry.path)
    os.unlink(stage / STAGE_MARK)
    os.rmdir(stage)


def _new_stage(target: Path) -> Path:
    """A new stage folder beside `target`, marked before anything goes in."""
    stage = Path(tempfile.mkdtemp(prefix=stage_prefix(target), dir=target.parent))
    os.close(os.open(stage / STAGE_MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))
    return stage


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back until the block ends: the renames inside are never split."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive flock on `folder` itself: two publishes into it run one after the other."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


# Publishing.


def publish(
    out: Path,
    files: dict[str, bytes] | Iterable[tuple[str, bytes]],
    beside: dict[str, bytes] | None = None,
    keep_hidden: bool = False,
) -> None:
    """Make `out` hold exactly `files` (and, if `keep_hidden`, its old hidden files), and put `beside` next to it.

    `files` may be (path, bytes) pairs that are made as they are written (the site, page by page).

    On an error or a signal, `out` and the files beside it are left as they were.
    """
    out, beside = Path(out), beside or {}
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write beside the output folder ({exc.strerror})") from exc
    try:
        with _locked(out.parent):
            remove_stages(out)
            stage = _new_stage(out)
            try:
                _stage(stage, out, files, beside, keep_hidden)
                with signals_held():
                    try:
                        if os.path.lexists(out):
                            os.rename(out, stage / "old")
                        os.rename(stage / "new", out)
                        for name in beside:
                            os.replace(stage / name, out.parent / name)
                    except OSError:  # undo: the new folder out again, the old one back
                        if not os.path.lexists(stage / "new") and is_folder(out):
                            os.rename(out, stage / "new")
                        if is_folder(stage / "old"):
                            os.rename(stage / "old", out)
                        raise
                    _fsync(out.parent)
            finally:
                if is_folder(out) or not is_folder(stage / "old"):
                    with suppress(OSError):
                        _remove_stage(stage)
    except OSError as exc:
        raise OutputError(f"{exc.filename or out}: cannot write output ({exc.strerror}); {out} is unchanged") from exc


def _stage(
    stage: Path,
    out: Path,
    files: dict[str, bytes] | Iterable[tuple[str, bytes]],
    beside: dict[str, bytes],
    keep_hidden: bool,
) -> None:
    """Write the new folder as `stage/new` and the files beside it in `stage`, all synced."""
    new = stage / "new"
    _mkdir(new)
    for rel, data in sorted(files.items()) if isinstance(files, dict) else files:
        for folder in reversed(Path(rel).parents[:-1]):
            if not (new / folder).is_dir():
                _mkdir(new / folder)
        _write(new / rel, data)
    if keep_hidden:
        _carry_hidden(out, new)
    for name, data in beside.items():
        _write(stage / name, data)
    for folder, _dirs, _names in os.walk(stage):
        _fsync(Path(folder))


def _carry_hidden(out: Path, new: Path) -> None:
    """Hard-link (or copy) the old folder's hidden regular files into the new one."""
    if not is_folder(out):
        return
    for folder, dirs, names in os.walk(out):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # hidden folders: refused by check_output
        for name in names:
            source = Path(folder) / name
            rel = source.relative_to(out)
            if not is_hidden(rel.as_posix()) or not stat.S_ISREG(source.lstat().st_mode):
                continue
            if not (new / rel).parent.is_dir():
                _mkdir((new / rel).parent)
            try:
                os.link(source, new / rel, follow_symlinks=False)
            except OSError:
                shutil.copy2(source, new / rel, follow_symlinks=False)


def replace_files(files: dict[Path, bytes]) -> None:
    """Replace files that cannot travel in one folder: stage each beside its target and sync it, then
    rename them in order with signals held, the last one last (the lock, which names the others' sha256)."""
    staged: list[Path] = []
    done: list[str] = []
    try:
        for final in files:
            remove_stages(final)
        for final, data in files.items():
            staged.append(_new_stage(final))
            _write(staged[-1] / final.name, data)
        with signals_held():
            for stage, final in zip(staged, files, strict=True):
                os.replace(stage / final.name, final)
                done.append(str(final))
            for parent in {final.parent for final in files}:
                _fsync(parent)
    except OSError as exc:
        left = f"only {', '.join(done)} replaced; run the command again" if done else "nothing was changed"
        raise OutputError(f"{exc.filename or 'output'}: cannot write ({exc.strerror}); {left}") from exc
    finally:
        for stage in staged:
            with suppress(OSError):
                _remove_stage(stage)


def _mkdir(path: Path) -> None:
    path.mkdir()
    path.chmod(0o755)  # whatever the umask


def _write(path: Path, data: bytes) -> None:
    _write_fd(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644), data)


def _write_fd(fd: int, data: bytes) -> None:
    """Write, chmod 0644 (whatever the umask), fsync and close a new file."""
    try:
        os.fchmod(fd, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def today_utc() -> str:
    """Today's date in UTC (YYYY-MM-DD): the date a build or release gives what it changes."""
    return dt.datetime.now(dt.UTC).date().isoformat()
