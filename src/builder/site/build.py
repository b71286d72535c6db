"""`builder site`: load the committed package, then plan and write the site page by page (what the command runs)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.site.load import data_version, load_package
from builder.site.output import check_target, write_site
from builder.site.plan import plan_site


@dataclass(frozen=True)
class SiteResult:
    files: int
    pages: int
    data_version: str


def build_site(out: Path, root: Path = Path(".")) -> SiteResult:
    """Build the site of the package at root into out; the old site stays whole if anything fails."""
    check_target(out)  # refuse before spending time on charts
    pkg = load_package(root)
    written = write_site(out, plan_site(pkg))
    pages = sum(1 for path in written if path.endswith(".html"))
    return SiteResult(len(written) + 1, pages, data_version(pkg))  # + 1: the file list
