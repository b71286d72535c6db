"""Matplotlib without warning lines: a configuration folder of the site's own when the user's is not
writable, and no word about glyphs the measuring font lacks (the SVG keeps text as text: the browser
draws it in its own fonts)."""

import atexit
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MISSING_GLYPH = (
    r"Glyph \d+ .* missing from font"  # matplotlib's warning when DejaVu Sans lacks a character
)


def _writable(folder: Path) -> bool:
    """Whether matplotlib could make and write in folder, as it tries before warning."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def matplotlib_home() -> None:
    """Before matplotlib is imported: MPLCONFIGDIR set to a temporary folder, removed at exit,
    unless the folders matplotlib would use (MPLCONFIGDIR, else its configuration and cache
    folders) are writable."""
    home = Path.home()
    wanted = (
        [Path(configured)]
        if (configured := os.environ.get("MPLCONFIGDIR"))
        else [
            Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib",
            Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib",
        ]
    )
    if all(_writable(folder) for folder in wanted):
        return
    folder = tempfile.mkdtemp(prefix="leadgreen-matplotlib-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = folder
    # its font list is made anew: unsaid
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)


@contextmanager
def glyphs_unsaid() -> Iterator[None]:
    """Within: matplotlib's missing-glyph warnings are not shown; every other warning is."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", MISSING_GLYPH, UserWarning)
        yield
