"""Write the planned site: refuse unsafe targets, build beside the target, swap in with renames.

A built site carries MARKER, which lists every file `builder site` wrote. A folder is replaced
only when it is absent, empty, or such a site holding nothing but the files its marker lists;
of the old site, only those files (and the folders they leave empty) are removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from builder.errors import OutputError
from builder.layout import DATA, SCHEMAS, UPSTREAM

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


def check_target(out: Path, root: Path) -> set[str]:
    """Refuse a target that is not ours to replace; return the old site's files (empty if none)."""
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
        return set()
    if not out.is_dir():
        raise OutputError(f"{out}: expected a folder to build the site in, found a file")
    present = _present(out)
    if not present:
        return set()
    listed = _listed(out / MARKER)
    if listed is None:
        raise OutputError(f"{out}: expected an empty folder or a site `builder site` built (with {MARKER}), "
                          "found other files; refusing to replace files it did not write")  # fmt: skip
    extra = sorted(present - listed - {MARKER})
    if extra:
        shown = ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        raise OutputError(f"{out}: holds files `builder site` did not write ({shown}); move them away first")
    return present


def _listed(path: Path) -> set[str] | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return set(lines[1:]) if lines[:1] == [HEADER] else None


def write_site(out: Path, files: dict[str, bytes], root: Path) -> list[str]:
    """Replace out with exactly files (plus MARKER), or leave it as it was. Returns old files left in place."""
    out = Path(os.path.abspath(out))
    previous = check_target(out, root)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as exc:
        raise OutputError(f"{out}: cannot write beside the site folder ({exc.strerror})") from exc
    try:
        stage.chmod(0o755)  # mkdtemp makes 0700; a web server must read the site
        for rel, data in [*files.items(), (MARKER, marker(list(files)))]:
            target = stage / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if not out.exists():
            os.rename(stage, out)
            return []
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, old)  # replaces the empty folder mkdtemp reserved
        try:
            os.rename(stage, out)
        except OSError:
            os.rename(old, out)
            raise
        return _remove(old, previous)
    except OSError as exc:
        raise OutputError(f"{exc.filename or out}: cannot write the site ({exc.strerror}); {out} is unchanged") from exc
    finally:
        if stage.exists():
            shutil.rmtree(stage)  # the stage holds only what this run wrote


def _remove(old: Path, files: set[str]) -> list[str]:
    """Remove the old site's own files, then the folders they leave empty; report anything else."""
    for rel in sorted(files):
        (old / rel).unlink(missing_ok=True)
    for top, _dirs, _names in os.walk(old, topdown=False):
        with contextlib.suppress(OSError):  # not empty: something is left, reported below
            os.rmdir(top)
    if not old.exists():
        return []
    return [f"{old}/{rel}" for rel in sorted(_present(old))] or [str(old)]
