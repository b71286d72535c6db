"""Canonical JSON, and the one publish step of every writer: stage beside, sync, swap, remove."""

import fcntl
import io
import math
import os
import re
import shutil
import signal
import stat
import tempfile
from _json import encode_basestring, make_encoder
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager, suppress
from functools import cache
from itertools import repeat
from pathlib import Path
from typing import Any

from builder.errors import InputError, OutputError, pointer
from builder.files import Refused, is_folder, read_parts
from builder.layout import is_hidden

# made first in every stage: only a folder holding it is removed or restored
STAGE_MARK = ".builder-stage"
HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # held back while a swap runs
# a Path: a regular file of the package, copied part by part (never held whole); an iterator: a
# file's parts as they are made
Content = bytes | bytearray | Path | Iterator[bytes]
# path -> content, or pairs made as they are written
Files = Mapping[str, Content] | Iterable[tuple[str, Content]]
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


CONTAINERS = (dict, list, tuple)  # what json writes as an object or an array
# pieces joined and encoded at a time: never a list of a whole document's pieces
JOIN_PIECES = 8192


@cache
def _encoder(depth: int) -> Callable[[Any], str]:
    """json's C encoder for a scalar, or a container of scalars at `depth`: its items one a line,
    as json.dumps(indent=2) writes them, less the line breaks inside its two brackets."""
    between = ",\n" + "  " * (depth + 1)
    encode = make_encoder(
        None, _unknown, encode_basestring, None, ": ", between, False, False, False
    )
    return lambda value: "".join(encode(value, 0))


def _unknown(value: Any) -> Any:
    """What json says of a value it cannot write."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


class _Indented:
    """json.dumps(indent=2, ensure_ascii=False) text in UTF-8, made in pieces: a scalar or a
    container of scalars (most of a document) is one piece by json's C encoder; a container of
    containers gets its brackets and keys here, its items in turn. Pieces are encoded into `out`
    JOIN_PIECES at a time."""

    def __init__(self) -> None:
        self.out = io.BytesIO()
        self.pieces: list[str] = []

    def flush(self) -> None:
        self.out.write("".join(self.pieces).encode("utf-8"))
        self.pieces.clear()

    def add(self, value: Any, depth: int) -> None:
        """Add `value`, written at `depth` (its closing bracket indented depth x 2 spaces)."""
        if not isinstance(value, CONTAINERS):
            self.pieces.append(_encoder(depth)(value))
            return
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not value:
            self.pieces.append(opening + closing)
            return
        inner, outer = "\n" + "  " * (depth + 1), "\n" + "  " * depth
        items = value.values() if isinstance(value, dict) else value
        if not any(map(isinstance, items, repeat(CONTAINERS))):
            self.pieces.append(f"{opening}{inner}{_encoder(depth)(value)[1:-1]}{outer}{closing}")
            return
        head = opening + inner
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            self.pieces.append(f"{head}{_key(key)}: " if opening == "{" else head)
            self.add(item, depth + 1)
            head = "," + inner
            if len(self.pieces) >= JOIN_PIECES:
                self.flush()
        self.pieces.append(outer + closing)


def _key(key: Any) -> str:
    """A key as json writes it: a str, or an int, float, bool or None made one. Any other key is
    json's TypeError: the key is written by json's encoder inside {key: 0}, less `{` and `: 0}`."""
    return encode_basestring(key) if isinstance(key, str) else _encoder(0)({key: 0})[1:-4]


def dumps(doc: Any) -> bytes:
    """UTF-8, 2-space indent, keys in insertion order, one trailing newline (json.dumps's text with
    indent=2 and ensure_ascii=False); NaN and Infinity refused."""
    writer = _Indented()
    try:
        writer.add(doc, 0)
        writer.pieces.append("\n")
        writer.flush()  # a lone surrogate is refused here, in encoding (a UnicodeEncodeError)
    except ValueError as exc:
        where = f" at {found}" if (found := _non_finite(doc, ())) else ""
        said = f"expected strict JSON, found a value it cannot hold{where} ({exc})"
        raise OutputError(f"{said}; nothing was written") from exc
    return writer.out.getvalue()  # the buffer itself, not a copy


def _non_finite(value: Any, parts: tuple[Any, ...]) -> str | None:
    """The pointer and value of the first number in `value` that JSON cannot carry, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{pointer(parts)} ({value!r})"
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list | tuple)
        else ()
    )
    for key, item in items:
        if found := _non_finite(item, (*parts, key)):
            return found
    return None


def _named_like_stages(target: Path) -> list[Path]:
    named = re.compile(re.escape(f".{target.name}.stage-") + "[a-z0-9_]{8}")
    try:
        names = os.listdir(target.parent)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [target.parent / name for name in sorted(names) if named.fullmatch(name)]


def _is_stage(path: Path) -> bool:
    """A folder (not a link to one) that holds the stage mark as a regular file; looked up, never
    opened."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode) and stat.S_ISREG(
            (path / STAGE_MARK).lstat().st_mode
        )
    except OSError:
        return False


def stages(target: Path) -> list[Path]:
    """The stages a publish left beside `target` (nothing is opened)."""
    return [path for path in _named_like_stages(target) if _is_stage(path)]


def remove_stages(target: Path) -> list[Path]:
    """Remove the stages beside `target` (an old folder one moved away goes back first) and empty
    folders named like one; the other entries named like a stage stay, and are returned."""
    foreign = []
    for path in _named_like_stages(target):
        if _is_stage(path):
            if not os.path.lexists(target) and is_folder(path / "old"):
                # killed between its two renames: the old folder goes back
                os.rename(path / "old", target)
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
            shutil.rmtree(entry.path) if entry.is_dir(follow_symlinks=False) else os.unlink(
                entry.path
            )
    os.unlink(stage / STAGE_MARK)
    os.rmdir(stage)


def _new_stage(target: Path) -> Path:
    """A new stage folder beside `target`, marked before anything goes in."""
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.stage-", dir=target.parent))
    os.close(os.open(stage / STAGE_MARK, NEW_FILE, 0o644))
    return stage


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back until the block ends: the renames inside are never
    split."""
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


class Stage(MutableMapping[str, bytes]):
    """A new folder as it is written beside its target, by path relative to it: setting a path
    writes and syncs that file (once), reading one reads it back until it is published (no file
    is held in memory)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # the stage itself
        self.new = folder / "new"  # the new folder
        self.beside_names: list[str] = []  # files to go next to the target
        self._rels: dict[str, None] = {}  # in the order written

    def __setitem__(self, rel: str, data: Content) -> None:
        _mkdirs((self.new / rel).parent)
        _write(self.new / rel, data)
        self._rels[rel] = None

    def __getitem__(self, rel: str) -> bytes:
        if rel not in self._rels:
            raise KeyError(rel)
        return (self.new / rel).read_bytes()

    def __contains__(self, rel: object) -> bool:
        return rel in self._rels  # the record of what was written: Mapping's own reads the file

    def __delitem__(self, rel: str) -> None:
        del self._rels[rel]
        os.unlink(self.new / rel)

    def __iter__(self) -> Iterator[str]:
        return iter(self._rels)

    def __len__(self) -> int:
        return len(self._rels)

    def beside(self, name: str, data: bytes) -> None:
        """Write a file that goes next to the target when the new folder replaces it."""
        _write(self.folder / name, data)
        self.beside_names.append(name)


@contextmanager
def staging(out: Path, keep_hidden: bool = False) -> Iterator[Stage]:
    """A Stage of `out`: when the block ends, `out` holds exactly its files (and its old hidden
    files if `keep_hidden`), its beside files next to `out`; on an error or a signal, all stay as
    they were."""
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write beside the output folder ({exc.strerror})") from exc
    try:
        with _locked(out.parent):
            remove_stages(out)
            stage = Stage(_new_stage(out))
            try:
                _mkdirs(stage.new)
                yield stage
                _finish(stage, out, keep_hidden)
                _swap(stage, out)
            finally:
                if is_folder(out) or not is_folder(stage.folder / "old"):
                    with suppress(OSError):
                        _remove_stage(stage.folder)
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or out}: cannot write output ({exc.strerror}); {out} is unchanged"
        ) from exc


def publish(
    out: Path, files: Files, beside: dict[str, bytes] | None = None, keep_hidden: bool = False
) -> None:
    """Make `out` hold exactly `files` (and its old hidden files if `keep_hidden`), and put `beside`
    next to it; on an error or a signal, all stay as they were."""
    with staging(out, keep_hidden) as stage:
        for rel, data in sorted(files.items()) if isinstance(files, Mapping) else files:
            stage[rel] = data
        for name, data in (beside or {}).items():
            stage.beside(name, data)


def _swap(stage: Stage, out: Path) -> None:
    """Put the new folder in place of `out` and the beside files next to it, signals held."""
    with signals_held():
        try:
            if os.path.lexists(out):
                os.rename(out, stage.folder / "old")
            os.rename(stage.new, out)
            for name in stage.beside_names:
                os.replace(stage.folder / name, out.parent / name)
        except OSError:  # undo: the new folder out again, the old one back
            if not os.path.lexists(stage.new) and is_folder(out):
                os.rename(out, stage.new)
            if is_folder(stage.folder / "old"):
                os.rename(stage.folder / "old", out)
            raise
        _fsync(out.parent)


def _finish(stage: Stage, out: Path, keep_hidden: bool) -> None:
    """Copy the old folder's hidden regular files in if `keep_hidden`, then sync the stage."""
    if keep_hidden and is_folder(out):
        for folder, dirs, names in os.walk(out):
            # hidden folders: refused by check_output
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for rel in (Path(folder, name).relative_to(out) for name in names):
                if is_hidden(rel.as_posix()) and stat.S_ISREG((out / rel).lstat().st_mode):
                    _mkdirs((stage.new / rel).parent)
                    shutil.copy2(out / rel, stage.new / rel, follow_symlinks=False)
    for folder, _dirs, _names in os.walk(stage.folder):
        _fsync(Path(folder))


def replace_files(files: dict[Path, bytes]) -> None:
    """Replace files that cannot travel in one folder: stage each beside its target and sync it,
    then rename them in order with signals held, the last one last (the lock, which names the
    others' sha256)."""
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
        left = (
            f"only {', '.join(done)} replaced; run the command again"
            if done
            else "nothing was changed"
        )
        raise OutputError(
            f"{exc.filename or 'output'}: cannot write ({exc.strerror}); {left}"
        ) from exc
    finally:
        for stage in staged:
            with suppress(OSError):
                _remove_stage(stage)


def _mkdirs(folder: Path) -> None:
    """Make `folder` and its missing parents, each 0755 whatever the umask."""
    if not folder.is_dir():
        _mkdirs(folder.parent)
        folder.mkdir()
        folder.chmod(0o755)


def _parts(data: Content) -> Iterator[bytes | bytearray]:
    """The bytes of `data` in order: a Path read part by part, bytes as one part."""
    if isinstance(data, Path):
        yield from read_parts(data)
    elif isinstance(data, bytes | bytearray):
        yield data
    else:
        yield from data


def _write(path: Path, data: Content) -> None:
    """Write a new file, 0644 whatever the umask, and fsync it."""
    with open(os.open(path, NEW_FILE, 0o644), "wb") as file:
        os.fchmod(file.fileno(), 0o644)
        try:
            for part in _parts(data):
                file.write(part)
        except Refused as exc:
            raise InputError(f"{data!s}: {exc}") from exc
        file.flush()
        os.fsync(file.fileno())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
