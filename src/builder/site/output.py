"""Write the planned site: refuse a target that is not ours, then publish it (builder.write).

A built site carries MARKER, which lists every file `builder site` wrote. A folder is replaced
only when it is absent, empty, or such a site holding nothing but the files its marker lists.
"""

from __future__ import annotations

import os
from pathlib import Path

from builder.errors import OutputError
from builder.layout import DATA, SCHEMAS, UPSTREAM
from builder.write import publish

MARKER = ".leadgreen-site"
HEADER = "leadgreen-data site, written by `builder site`; every file it wrote, one a line:"


def marker(paths: list[str]) -> bytes:
    return "\n".join([HEADER, *sorted(paths)]).encode("utf-8") + b"\n"


def _present(folder: Path) -> set[str]:
    """Every file and symbolic link below folder (links are not followed), by relative path."""
    found = set()
    for top, dirs, names in os.walk(folder):
        links = [d for d in dirs if os.path.islink(os.path.join(top, d))]
        for name in names + links:
            found.add(Path(top, name).relative_to(folder).as_posix())
    return found


def check_target(out: Path, root: Path) -> None:
    """Refuse a target that is not ours to replace."""
    target, cwd, root = out.resolve(), Path.cwd().resolve(), root.resolve()
    if target in (cwd, root) or target in cwd.parents or target in root.parents:
        raise OutputError(f"{out}: refusing to build the site into the repository or a folder that holds it; "
                          "choose a folder of its own, such as site/")  # fmt: skip
    for name in (DATA, SCHEMAS, UPSTREAM, Path(".git")):
        if target == root / name or root / name in target.parents:
            raise OutputError(f"{out}: refusing to build the site inside the package's {name}/ folder")
    if out.is_symlink():
        raise OutputError(f"{out}: expected a folder, found a symbolic link; give the real path")
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputError(f"{out}: expected a folder to build the site in, found a file")
    present = _present(out)
    if not present:
        return
    listed = _listed(out / MARKER)
    if listed is None:
        raise OutputError(f"{out}: expected an empty folder or a site `builder site` built (with {MARKER}), "
                          "found other files; refusing to replace files it did not write")  # fmt: skip
    extra = sorted(present - listed - {MARKER})
    if extra:
        shown = ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        raise OutputError(f"{out}: holds files `builder site` did not write ({shown}); move them away first")


def _listed(path: Path) -> set[str] | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return set(lines[1:]) if lines[:1] == [HEADER] else None


def write_site(out: Path, files: dict[str, bytes], root: Path) -> None:
    """Replace out with exactly files (plus MARKER), or leave it as it was."""
    out = Path(os.path.abspath(out))
    check_target(out, root)
    publish(out, {**files, MARKER: marker(list(files))})
