"""The leadgreen-data builder.

Importing it takes the current folder off the import path, however it got there (`python -m`,
`python -c`, an empty part of PYTHONPATH, `.`): the current folder may be an archive unpacked
from anywhere, and no module in it may run (frictionless imports every `frictionless_*` module
on the path as a plugin). This runs before any other module of the builder, for every entry point.
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
