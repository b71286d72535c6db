"""Which folders a command may replace: the guards `build` and `dist` run before they publish."""

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from builder import layout
from builder.errors import OutputError
from builder.files import Refused, kind, read_file

# never written into, but a build may be data/
PROTECTED = (
    layout.UPSTREAM,
    layout.SCHEMAS,
    layout.GIT,
    layout.DATA,
)
FOREIGN_SHOWN = 5  # offending entries named in a refusal
DIST_FILE = re.compile(
    r"leadgreen-data-v[0-9.]+\.(tar\.gz|manifest\.json)|leadgreen_data-[0-9.]+(-py3-none-any\.whl|\.tar\.gz)|SHA256SUMS"
)


def _built(rel: str) -> bool:
    return layout.place(rel) is not None or (
        layout.is_hidden(rel) and rel.rsplit("/", 1)[-1] != ".git"
    )


def check_dist_output(out: Path) -> None:
    """Refuse a dist folder holding more than release files, or lying in data/."""
    check_output(
        out,
        owned=lambda rel: bool(DIST_FILE.fullmatch(rel)),
        owned_folder=lambda rel: False,
        what="a folder of release files",
        data=False,
    )


def check_output(
    out: Path,
    owned: Callable[[str], bool] = _built,
    owned_folder: Callable[[str], bool] = layout.is_published_folder,
    what: str = "a data folder",
    data: bool = True,
) -> None:
    """Refuse an output folder holding more than `owned` accepts, holding the current folder, or
    in a folder of ours."""
    try:
        mode = out.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # missing: the build creates it (or says why it cannot)
    except OSError as exc:
        raise OutputError(
            f"{out}: cannot read the output folder ({exc.strerror}); refusing to write"
        ) from exc
    if mode is not None and not stat.S_ISDIR(mode):
        raise OutputError(f"{out}: expected a folder, found {kind(mode)}; refusing to replace it")
    try:
        real, here = out.resolve(), Path.cwd().resolve()
        protected = {name: (here / name).resolve() for name in PROTECTED}
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise OutputError(
            f"{out}: cannot resolve the output folder ({exc}); refusing to write"
        ) from exc
    if here.is_relative_to(real):
        which = (
            "the current folder" if real == here else "a folder that contains the current folder"
        )
        raise OutputError(f"{out}: is {which} ({real}); refusing to replace it")
    for name, folder in protected.items():
        if real.is_relative_to(folder) and not (data and name == layout.DATA and real == folder):
            where = f"the {name}/ folder" if real == folder else f"inside the {name}/ folder"
            raise OutputError(f"{out}: is {where} ({real}); refusing to write there")
    # entries a build did not publish, breadth first, at most FOREIGN_SHOWN + 1
    found: list[str] = []
    folders = [""] if mode is not None else []
    while folders and len(found) <= FOREIGN_SHOWN:
        prefix = folders.pop(0)
        try:
            with os.scandir(out / prefix if prefix else out) as listing:
                entries = sorted((e.name, e.stat(follow_symlinks=False).st_mode) for e in listing)
        except OSError as exc:
            raise OutputError(
                f"{out}: cannot read {out / prefix} ({exc.strerror}); refusing to write"
            ) from exc
        for entry, entry_mode in entries:
            rel = f"{prefix}{entry}"
            if stat.S_ISDIR(entry_mode) and owned_folder(rel):
                folders.append(f"{rel}/")
            elif stat.S_ISDIR(entry_mode):
                found.append(f"{rel}/")
            elif not stat.S_ISREG(entry_mode):
                found.append(f"{rel} ({kind(entry_mode)})")
            elif not owned(rel):
                found.append(rel)
    if found:
        listed = ", ".join(found[:FOREIGN_SHOWN]) + (" ..." if len(found) > FOREIGN_SHOWN else "")
        raise OutputError(
            f"{out}: expected an empty folder or {what}, found {listed}; refusing to replace it"
        )
    if not data:
        return
    path = out.parent / layout.DESCRIPTOR
    try:
        name = json.loads(read_file(path)).get("name")
    except Refused as exc:
        if exc.found_kind or (exc.error and os.path.lexists(path)):
            why = (
                f"cannot read ({exc.error})"
                if exc.error
                else f"expected a regular file, found {exc.found_kind}"
            )
            raise OutputError(f"{path}: {why}; refusing to replace it ({out})") from None
        return  # missing, or too large: a build writes it
    except (ValueError, AttributeError, RecursionError):
        return  # broken (a merge conflict, say): a build may repair it
    if isinstance(name, str) and name != layout.PACKAGE_NAME:
        raise OutputError(
            f"{path}: expected the descriptor of {layout.PACKAGE_NAME}, found the package "
            f"{name!r}; "
            f"refusing to replace it ({out})"
        )
