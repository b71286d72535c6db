"""The leadgreen-data builder; importing it takes the current folder (maybe an unpacked archive) off the path."""

import os
import sys


def _is_current_folder(entry: str, here: str | None) -> bool:
    try:
        return entry in ("", ".") or (here is not None and os.path.realpath(entry) == here)
    except (OSError, ValueError):  # a NUL, or a relative entry once the current folder is removed
        return False


def _drop_current_folder() -> None:
    try:
        here: str | None = os.path.realpath(os.getcwd())
    except OSError:  # the current folder was removed
        here = None
    sys.path[:] = [entry for entry in sys.path if not _is_current_folder(entry, here)]


_drop_current_folder()
