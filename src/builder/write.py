"""Canonical JSON, the date rule, and the one publish step of every command that writes, with its guards.

A folder is published by writing the new one, synced, in a hidden stage folder beside it
(`.NAME.stage-XXXXXXXX`), then, with SIGINT, SIGTERM and SIGHUP held back, renaming the old folder
into the stage, the new one into place and each file beside it (the descriptor) over its own, and
last removing the stage. Files that cannot travel in a folder (upstream snapshots and their lock)
are staged beside each and renamed in order, the lock last. A killed run leaves its stage:
`builder validate` reports it, the next run removes it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from builder.errors import OutputError
from builder.files import Refused, is_folder, kind, read_regular
from builder.layout import (
    DATA,
    DESCRIPTOR,
    GIT,
    MAX_FILE_BYTES,
    PACKAGE_NAME,
    SCHEMAS,
    UPSTREAM,
    is_hidden,
    is_published,
    is_published_folder,
)

DATE_KEYS = ("updated", "data_version")
STAGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile's random part, 8 of them
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


def stages(target: Path) -> list[Path]:
    """The stage folders and files beside `target` (by name only; nothing is opened)."""
    prefix = stage_prefix(target)
    try:
        names = os.listdir(target.parent)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [n for n in names if n.startswith(prefix) and len(n) == len(prefix) + 8]
    return [target.parent / n for n in sorted(found) if set(n[len(prefix) :]) <= STAGE_CHARS]


def remove_stages(target: Path) -> None:
    """Remove what a killed run left beside `target`, first putting back an old folder it had moved away."""
    for stage in stages(target):
        mode = stage.lstat().st_mode
        if stat.S_ISDIR(mode):
            if not os.path.lexists(target) and is_folder(stage / "old"):
                os.rename(stage / "old", target)  # killed between its two renames: the old folder goes back
            shutil.rmtree(stage)
        else:  # a file, or a link or FIFO planted under a stage's name: the entry goes, never what it names
            os.unlink(stage)


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
            stage = Path(tempfile.mkdtemp(prefix=stage_prefix(out), dir=out.parent))
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
                    shutil.rmtree(stage, ignore_errors=True)
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
            fd, tmp = tempfile.mkstemp(prefix=stage_prefix(final), dir=final.parent)
            staged.append(Path(tmp))
            _write_fd(fd, data)
        with signals_held():
            for tmp, final in zip(staged, files, strict=True):
                os.replace(tmp, final)
                done.append(str(final))
            for parent in {final.parent for final in files}:
                _fsync(parent)
    except OSError as exc:
        left = f"only {', '.join(done)} replaced; run the command again" if done else "nothing was changed"
        raise OutputError(f"{exc.filename or 'output'}: cannot write ({exc.strerror}); {left}") from exc
    finally:
        for tmp in staged:
            with suppress(OSError):
                tmp.unlink()


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


# Guards: which folders a command may replace.

FOREIGN_SHOWN = 5  # offending entries named in a refusal
DIST_FILE = re.compile(
    r"leadgreen-data-v[0-9.]+\.(tar\.gz|manifest\.json)|leadgreen_data-[0-9.]+-py3-none-any\.whl|SHA256SUMS"
)


def _built(rel: str) -> bool:
    return is_published(rel) or (is_hidden(rel) and rel.rsplit("/", 1)[-1] != ".git")


def check_dist_output(out: Path) -> None:
    """Refuse a dist folder that `builder dist` would damage: it may hold only release files, and not lie in data/."""
    check_output(out, owned=lambda rel: bool(DIST_FILE.fullmatch(rel)), owned_folder=lambda rel: False,
                 what="a folder of release files", data=False)  # fmt: skip


def check_output(
    out: Path,
    owned: Callable[[str], bool] = _built,
    owned_folder: Callable[[str], bool] = is_published_folder,
    what: str = "a data folder",
    data: bool = True,
) -> None:
    """Refuse, naming why, an output folder that is not missing, empty or holding only what `owned` accepts,
    that holds the current folder, or lies in upstream/, schemas/, .git/ or data/ (real paths, lstat kinds);
    and, for a data folder, a descriptor beside it that is no regular file or another package's."""
    try:
        mode = out.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # missing: the build creates it (or says why it cannot)
    except OSError as exc:
        raise OutputError(f"{out}: cannot read the output folder ({exc.strerror}); refusing to write") from exc
    if mode is not None and not stat.S_ISDIR(mode):
        raise OutputError(f"{out}: expected a folder, found {kind(mode)}; refusing to replace it")
    try:
        real = out.resolve()
        here = Path.cwd().resolve()
        protected = {name: (here / name).resolve() for name in (UPSTREAM, SCHEMAS, GIT)}
        inside_only = (here / DATA).resolve()  # the committed data folder itself is the default output
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise OutputError(f"{out}: cannot resolve the output folder ({exc}); refusing to write") from exc
    if here.is_relative_to(real):
        which = "the current folder" if real == here else "a folder that contains the current folder"
        raise OutputError(f"{out}: is {which} ({real}); refusing to replace it")
    for name, folder in protected.items():
        if real.is_relative_to(folder):
            where = f"the {name}/ folder" if real == folder else f"inside the {name}/ folder"
            raise OutputError(f"{out}: is {where} ({real}); refusing to write there")
    if real.is_relative_to(inside_only) and (real != inside_only or not data):
        where = "inside the" if real != inside_only else "the"
        raise OutputError(f"{out}: is {where} {DATA}/ folder ({real}); refusing to write there")
    foreign = _foreign_entries(out, owned, owned_folder) if mode is not None else []
    if foreign:
        more = " ..." if len(foreign) > FOREIGN_SHOWN else ""
        raise OutputError(
            f"{out}: expected an empty folder or {what}, found {', '.join(foreign[:FOREIGN_SHOWN])}{more}; "
            "refusing to replace it"
        )
    if data:
        _check_descriptor_beside(out)


def _foreign_entries(out: Path, owned: Callable[[str], bool], owned_folder: Callable[[str], bool]) -> list[str]:
    """Entries a build did not publish, breadth first, sorted, at most FOREIGN_SHOWN + 1 of them."""
    found: list[str] = []
    folders = [""]
    while folders and len(found) <= FOREIGN_SHOWN:
        prefix = folders.pop(0)
        try:
            with os.scandir(out / prefix if prefix else out) as listing:
                entries = sorted((e.name, e.stat(follow_symlinks=False).st_mode) for e in listing)
        except OSError as exc:
            raise OutputError(f"{out}: cannot read {out / prefix} ({exc.strerror}); refusing to write") from exc
        for name, mode in entries:
            rel = f"{prefix}{name}"
            if stat.S_ISDIR(mode) and owned_folder(rel):
                folders.append(f"{rel}/")
            elif stat.S_ISDIR(mode):
                found.append(f"{rel}/")
            elif not stat.S_ISREG(mode):
                found.append(f"{rel} ({kind(mode)})")
            elif not owned(rel):
                found.append(rel)
    return found


def _check_descriptor_beside(out: Path) -> None:
    path = out.parent / DESCRIPTOR
    try:
        name = json.loads(read_regular(path, MAX_FILE_BYTES, follow_links=False)).get("name")
    except Refused as exc:
        if exc.found_kind or (exc.error and os.path.lexists(path)):
            found = f"cannot read ({exc.error})" if exc.error else f"expected a regular file, found {exc.found_kind}"
            raise OutputError(f"{path}: {found}; refusing to replace it ({out})") from None
        return  # missing, or too large: a build writes it
    except (ValueError, AttributeError, RecursionError):
        return  # broken (a merge conflict, say): a build may repair it
    if isinstance(name, str) and name != PACKAGE_NAME:
        raise OutputError(f"{path}: expected the descriptor of {PACKAGE_NAME}, found the package {name!r}; "
                          f"refusing to replace it ({out})")  # fmt: skip
