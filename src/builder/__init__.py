"""The leadgreen-data builder.

Importing it takes the current folder off the import path, however it got there: the current folder may
be an unpacked archive, and no module in it may run (frictionless imports `frictionless_*` as plugins).
"""

import os
import sys


def _is_current_folder(entry: str, here: str | None) -> bool:
    if entry in ("", "."):
        return True
    try:
        return here is not None and os.path.realpath(entry) == here
    except (OSError, ValueError):  # a NUL or an unreadable part: not a folder Python can import from
        return False


def _drop_current_folder() -> None:
    try:
        here: str | None = os.path.realpath(os.getcwd())
    except OSError:  # the current folder was removed
        here = None
    sys.path[:] = [entry for entry in sys.path if not _is_current_folder(entry, here)]


_drop_current_folder()
