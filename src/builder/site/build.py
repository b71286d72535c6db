"""`builder site`: load the package, plan the site, write it page by page into a folder that is
ours to replace."""

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from builder.files import Refused, read_file
from builder.guards import check_output
from builder.site import quiet
from builder.site.load import data_version, load_package
from builder.write import Content, publish

MARKER = ".leadgreen-site"
HEADER = "leadgreen-data site, written by `builder site`; every file it wrote, one a line:"


@dataclass(frozen=True)
class SiteResult:
    files: int
    pages: int
    data_version: str


def build_site(out: Path, root: Path = Path(".")) -> SiteResult:
    """Build the site of the package at root into out; the old site stays whole if anything
    fails."""
    check_target(out)  # refuse before spending time on charts
    pkg = load_package(root)
    quiet.matplotlib_home()  # before matplotlib is imported: no warning about an unwritable HOME
    # matplotlib after the load: its memory is given back before
    from builder.site.plan import plan_site

    written = write_site(out, plan_site(pkg))
    pages = sum(1 for path in written if path.endswith(".html"))
    return SiteResult(len(written) + 1, pages, data_version(pkg))  # + 1: the file list


def marker(paths: list[str]) -> bytes:
    return "\n".join([HEADER, *sorted(paths)]).encode("utf-8") + b"\n"


def check_target(out: Path) -> None:
    """Refuse a target that is not ours to replace: the repository, a package folder, or other
    files."""
    try:
        lines = read_file(out / MARKER).decode("utf-8").splitlines()
    except (Refused, UnicodeDecodeError):
        lines = []
    # the files the marker of an earlier site lists
    owned = set(lines[1:]) if lines[:1] == [HEADER] else set()
    folders = {
        str(folder)
        for path in owned
        for folder in PurePosixPath(path).parents
        if str(folder) != "."
    }
    check_output(
        out,
        owned=lambda rel: rel == MARKER or rel in owned,
        owned_folder=folders.__contains__,
        what=f"a site `builder site` built (its file list {MARKER} names every file)",
        data=False,
    )


def write_site(out: Path, files: Iterable[tuple[str, Content]]) -> list[str]:
    """Replace out with the files (plus MARKER), written as they come, or leave it as it was; the
    paths."""
    out = Path(os.path.abspath(out))
    check_target(out)
    written: list[str] = []

    def recorded() -> Iterator[tuple[str, Content]]:
        for path, data in files:
            written.append(path)
            yield path, data
        yield MARKER, marker(written)

    publish(out, recorded())
    return written
