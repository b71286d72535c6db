"""`builder site`: load the committed package, plan the site, write it (what the command runs)."""

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
    check_target(out, root)  # refuse before spending time on charts
    pkg = load_package(root)
    files = plan_site(pkg)
    write_site(out, files, root)
    pages = sum(1 for path in files if path.endswith(".html"))
    return SiteResult(len(files) + 1, pages, data_version(pkg))
