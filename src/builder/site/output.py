"""Write the site as it is planned into a folder that is absent, empty, or a site holding nothing but the
files its MARKER lists."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator
from pathlib import Path

from builder.files import Refused, read_regular
from builder.guards import check_output
from builder.layout import MAX_FILE_BYTES
from builder.write import publish

MARKER = ".leadgreen-site"
HEADER = "leadgreen-data site, written by `builder site`; every file it wrote, one a line:"


def marker(paths: list[str]) -> bytes:
    return "\n".join([HEADER, *sorted(paths)]).encode("utf-8") + b"\n"


def listed(out: Path) -> set[str]:
    """The files the marker of a site built before lists (none when there is no such marker)."""
    try:
        lines = read_regular(out / MARKER, MAX_FILE_BYTES, follow_links=False).decode("utf-8").splitlines()
    except (Refused, UnicodeDecodeError):
        return set()
    return set(lines[1:]) if lines[:1] == [HEADER] else set()


def check_target(out: Path) -> None:
    """Refuse a target that is not ours to replace: the repository, a package folder, or other files."""
    owned = listed(out)
    folders = {posixpath.dirname(path) for path in owned}
    folders = {"/".join(f.split("/")[: i + 1]) for f in folders if f for i in range(f.count("/") + 1)}
    check_output(out, owned=lambda rel: rel == MARKER or rel in owned, owned_folder=folders.__contains__,
                 what=f"a site `builder site` built (its file list {MARKER} names every file)", data=False)  # fmt: skip


def write_site(out: Path, files: Iterable[tuple[str, bytes]]) -> list[str]:
    """Replace out with the files (plus MARKER), written as they come, or leave it as it was; the paths."""
    out = Path(os.path.abspath(out))
    check_target(out)
    written: list[str] = []

    def recorded() -> Iterator[tuple[str, bytes]]:
        for path, data in files:
            written.append(path)
            yield path, data
        yield MARKER, marker(written)

    publish(out, recorded())
    return written
