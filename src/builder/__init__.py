"""The leadgreen-data builder; importing it takes the current folder (maybe an unpacked archive)
off the path."""

import os
import sys


def _is_current_folder(entry: str) -> bool:
    try:
        return entry in ("", ".") or os.path.samefile(entry, ".")
    except (OSError, ValueError):  # missing, a NUL, or the current folder was removed
        return False


def _drop_current_folder() -> None:
    sys.path[:] = [entry for entry in sys.path if not _is_current_folder(entry)]


_drop_current_folder()
