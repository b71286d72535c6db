"""The scratch folder of drift and release: in TMPDIR, removed afterwards; a full TMPDIR is one
line."""

import errno
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from builder.errors import OutputError, printable


@contextmanager
def scratch_folder(prefix: str, files: dict[str, bytes] | None = None) -> Iterator[Path]:
    """A new folder in TMPDIR holding `files` (path: bytes) for the block; an OSError below it is
    an OutputError."""
    try:
        folder = tempfile.mkdtemp(prefix=prefix)
    except OSError as exc:
        raise tmpdir_error(exc) from None
    try:
        for rel, data in (files or {}).items():
            target = Path(folder, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(0o644)
        yield Path(folder)
    except (OSError, OutputError) as exc:
        cause = exc if isinstance(exc, OSError) else exc.__cause__
        below = isinstance(cause, OSError) and str(cause.filename or "").startswith(folder)
        full = (
            isinstance(cause, OSError)
            and cause.filename is None
            and cause.errno in (errno.ENOSPC, errno.EDQUOT)
        )
        # a write that fills the disk names no file
        if (below or full) and isinstance(cause, OSError):
            raise tmpdir_error(cause) from None
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tmpdir_error(exc: OSError) -> OutputError:
    where, reason = (
        printable(str(exc.filename or tempfile.gettempdir())),
        exc.strerror or type(exc).__name__,
    )
    return OutputError(
        f"TMPDIR ({printable(tempfile.gettempdir())}): expected a writable folder with free space "
        f"for a scratch copy, "
        f"found {reason} at {where}; set TMPDIR to another folder"
    )
