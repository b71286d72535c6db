"""What kind a file system entry is, and the one safe read: a regular file within a size, via a
link only if told."""

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from builder.errors import InputError, Said
from builder.layout import MAX_FILE_BYTES

READ_PART = 1 << 20  # bytes a read asks for at a time

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISREG, "a regular file"),
)


def kind(mode: int) -> str:
    """What a file system entry is, as the messages name it."""
    return next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")


def lookup_error(path: Path) -> str | None:
    """Why `path` cannot be looked up (a name too long, a folder that cannot be searched, a NUL),
    else None."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        return getattr(exc, "strerror", None) or str(exc)
    return None


def is_folder(path: Path) -> bool:
    """Whether `path` is a folder (or a link to one); False where that cannot be told."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class Refused(Exception):
    """An entry that was not read, and why: its kind, its size, or the error that stopped the
    read; `said` keeps the two sides."""

    def __init__(
        self, found_kind: str | None = None, size: int | None = None, error: str | None = None
    ) -> None:
        if error is not None:
            said = Said("a readable file", f"an error ({error})")
        elif found_kind:
            said = Said("a regular file", found_kind, " (not read)")
        else:
            said = too_large(size or 0, " (not read)")
        super().__init__(said)
        self.said = said
        self.found_kind, self.size, self.error = found_kind, size, error


def too_large(size: int, note: str = "") -> Said:
    """A file over the size limit, as `expected ..., found ...` (then `note`)."""
    return Said(f"a file of at most {MAX_FILE_BYTES / 2**20:g} MiB", f"{size} bytes", note)


def read_file(path: Path, max_bytes: int = MAX_FILE_BYTES, *, follow_links: bool = False) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, else Refused, unread."""
    return b"".join(read_parts(path, max_bytes, follow_links=follow_links, part=None))


def read_parts(
    path: Path,
    max_bytes: int = MAX_FILE_BYTES,
    *,
    follow_links: bool = False,
    part: int | None = READ_PART,
) -> Iterator[bytes]:
    """read_file's bytes `part` at a time (None: the whole file in the first part, never copied
    by a join)."""
    try:
        # and again once open: swapped or grown
        _check(os.stat(path, follow_symlinks=follow_links), max_bytes)
        fd = os.open(
            path,
            os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW),
        )
    except OSError as exc:
        raise Refused(error=exc.strerror) from exc
    try:
        expected = os.fstat(fd)
        _check(expected, max_bytes)
        size = 0
        while True:
            # None: the rest of the file and a part more, at once
            ask = part or max(expected.st_size - size, 0) + READ_PART
            if not (chunk := os.read(fd, min(ask, max_bytes + 1 - size))):
                return
            size += len(chunk)
            if size > max_bytes:
                raise Refused(size=size)
            yield chunk
    except OSError as exc:
        raise Refused(error=exc.strerror) from exc
    finally:
        os.close(fd)


def _check(found: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(found.st_mode):
        raise Refused(found_kind=kind(found.st_mode))
    if found.st_size > max_bytes:
        raise Refused(size=found.st_size)


def read_regular_file(path: Path, max_bytes: int, what: str) -> bytes:
    """read_file through links, with InputError naming `what` for anything refused."""
    try:
        return read_file(path, max_bytes, follow_links=True)
    except Refused as exc:
        if exc.error is not None:
            raise InputError(f"{path}: cannot read {what} ({exc.error})") from exc
        if exc.found_kind is not None:
            raise InputError(
                f"{path}: expected {what} as a regular file, found {exc.found_kind}; not read"
            ) from exc
        raise InputError(
            f"{path}: expected {what} of at most {max_bytes} bytes, found {exc.size}; not read"
        ) from exc


def read_or_none(path: Path) -> bytes | None:
    """A file's bytes, or None when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError:
        return None
