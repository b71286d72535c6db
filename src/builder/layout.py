"""Where everything lives, and the rules that tie a file, a slug, a row id and a public URL together.

The one module that knows the layout: every other module asks it. Paths are relative to the
repository root, where every command runs.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.errors import InputError, OutputError
from builder.files import kind

# The repository.
DATA = Path("data")
UPSTREAM = Path("upstream")
LOCK = UPSTREAM / "lock.json"
METADATA = Path("metadata.toml")
SCHEMAS = Path("schemas")
DIST = Path("dist")
CHANGELOG = Path("CHANGELOG.md")
GIT = Path(".git")
DESCRIPTOR = "datapackage.json"  # beside the data folder, in its parent
PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"  # the Data Package standard it follows
PACKAGE_NAME = "leadgreen-data"  # the descriptor's `name`: how a build knows a descriptor is its own

# The published files, by path inside the data folder.
INDEX = "index.json"
MODEL_LIST = "models.json"
MODELS_DIR = "models"
WORKLOAD_LIST = "workloads.json"
WORKLOADS_DIR = "workloads"
CSV = "configurations.csv"
JSON = ".json"

# Workloads. The v1 documents at the top (index.json, models.json, models/<slug>.json) are the
# text-conversation workload's, as they were before there were others; every other workload
# publishes the same three kinds below workloads/<id>/.
ROOT_WORKLOAD = "text-conversation"
_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # a workload id: a slug

# Which JSON Schema (file name in SCHEMAS) defines which document.
DEFS_SCHEMA = "defs.schema.json"
INDEX_SCHEMA = "index.schema.json"
MODEL_LIST_SCHEMA = "model-list.schema.json"
MODEL_SCHEMA = "model.schema.json"
DESCRIPTOR_SCHEMA = "datapackage.schema.json"  # datapackage.json itself, as checked in a release archive

# The most bytes a file in the data folder (or the descriptor) may hold: the largest published
# file is about 50 KB today and a few MB at 100x; anything above this is reported, never read.
MAX_FILE_BYTES = 64 * 1024 * 1024
WORKLOAD_LIST_SCHEMA = "workload-list.schema.json"
SCHEMA_OF_KIND = {
    "index": INDEX_SCHEMA,
    "model-list": MODEL_LIST_SCHEMA,
    "model": MODEL_SCHEMA,
    "workload-list": WORKLOAD_LIST_SCHEMA,
}


# The generation workloads (builder.generation): their own document kinds and schemas, and a flat
# CSV each at workloads/<id>/configurations.csv. Their metadata says the same kind (builder.genmeta).
GENERATION_WORKLOADS = {"text-to-image": "image", "text-to-video": "video"}
GENERATION_SCHEMA_OF_KIND = {
    "generation-index": "generation-index.schema.json",
    "generation-model-list": "generation-model-list.schema.json",
    "generation-model": "generation-model.schema.json",
    "generation-csv": "generation-configuration.schema.json",  # the JSON Schema of one CSV row
}
SCHEMA_OF_KIND |= GENERATION_SCHEMA_OF_KIND


def workload_dir(workload: str) -> str:
    """The folder of a workload's documents inside the data folder, with its trailing '/' ('' for the root)."""
    return "" if workload == ROOT_WORKLOAD else f"{WORKLOADS_DIR}/{workload}/"


def index_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + INDEX


def model_list_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + MODEL_LIST


def model_rel(slug: str, workload: str = ROOT_WORKLOAD) -> str:
    """The path of a model's document inside the data folder."""
    return f"{workload_dir(workload)}{MODELS_DIR}/{slug}{JSON}"


@dataclass(frozen=True)
class Place:
    """What a path inside the data folder holds: its kind, its workload (None for workloads.json) and slug."""

    kind: str  # "index", "model-list", "model", "workload-list" or "csv"
    workload: str | None = None
    slug: str | None = None


def place(rel: str) -> Place | None:
    """What is published at a path inside the data folder, or None where nothing is."""
    if rel in (WORKLOAD_LIST, CSV):
        return Place("workload-list" if rel == WORKLOAD_LIST else "csv")
    workload, rest = ROOT_WORKLOAD, rel
    head, _, tail = rel.partition("/")
    if head == WORKLOADS_DIR:
        workload, _, rest = tail.partition("/")
        if not _ID.fullmatch(workload) or workload == ROOT_WORKLOAD:
            return None
    if workload in GENERATION_WORKLOADS:
        return _generation_place(workload, rest)
    if rest in (INDEX, MODEL_LIST):
        return Place("index" if rest == INDEX else "model-list", workload)
    folder, _, name = rest.partition("/")
    if folder == MODELS_DIR and "/" not in name and name.endswith(JSON) and len(name) > len(JSON):
        return Place("model", workload, name[: -len(JSON)])
    return None


def _generation_place(workload: str, rest: str) -> Place | None:
    """What a path inside a generation workload's folder holds: kinds "generation-index", "-model-list",
    "-model" and "-csv"."""
    if rest in (INDEX, MODEL_LIST, CSV):
        return Place(
            {INDEX: "generation-index", MODEL_LIST: "generation-model-list", CSV: "generation-csv"}[rest], workload
        )
    folder, _, name = rest.partition("/")
    if folder == MODELS_DIR and "/" not in name and name.endswith(JSON) and len(name) > len(JSON):
        return Place("generation-model", workload, name[: -len(JSON)])
    return None


def is_model(rel: str) -> bool:
    """Whether a path inside the data folder is where a model document (of any workload) goes."""
    found = place(rel)
    return found is not None and found.kind == "model"


def slug_of(rel: str) -> str:
    """The slug of a model document's path (the inverse of model_rel)."""
    found = place(rel)
    if found is None or found.slug is None:
        raise ValueError(f"expected a path like {model_rel('<slug>')}, found {rel!r}")
    return found.slug


def workload_of(rel: str) -> str | None:
    """The workload of a published document's path; None for workloads.json, the CSV and any other path."""
    found = place(rel)
    return found.workload if found else None


def is_published(rel: str) -> bool:
    """Whether a path inside the data folder is one a build publishes (or removes, when its model is gone)."""
    return place(rel) is not None


def is_published_folder(rel: str) -> bool:
    """Whether a folder inside the data folder is one that published files live in."""
    return rel == WORKLOADS_DIR or place(f"{rel}/{INDEX}") is not None or place(f"{rel}/x{JSON}") is not None


def is_hidden(rel: str) -> bool:
    """Hidden files (`.gitkeep`, at any level) are not published; a build keeps them as they are."""
    return any(part.startswith(".") for part in rel.split("/"))


def schema_for(rel: str) -> str | None:
    """The schema file of a published document, or None for any other path."""
    found = place(rel)
    return SCHEMA_OF_KIND.get(found.kind) if found else None


def is_workload_id(text: str) -> bool:
    return bool(_ID.fullmatch(text))


def is_package_path(path: object) -> bool:
    """Whether a descriptor's `path` names a file inside the package: relative POSIX segments of
    letters, digits, `.`, `_` and `-`, none of them `.` or `..`. So no URL scheme (`http:`,
    `file:`), no leading /, no backslash, no drive letter, no `~` or `$`: nothing else is ever opened."""
    return (
        isinstance(path, str)
        and _PACKAGE_PATH.fullmatch(path) is not None
        and all(part not in (".", "..") for part in path.split("/"))
    )


_PACKAGE_PATH = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")


def below(path: object, folder: str) -> str | None:
    """A descriptor path relative to the data folder it lies in (`data/models/x.json` -> `models/x.json`),
    or None when it is not a string below `folder`."""
    if isinstance(path, str) and path.startswith(f"{folder}/"):
        return path[len(folder) + 1 :]
    return None


def row_id(slug: str, gpu: str, num_gpus: int, max_num_seqs: int) -> str:
    """The natural key of a configuration (with its repeat number, when upstream repeats it)."""
    return f"{slug}/{gpu}/{num_gpus}/{max_num_seqs}"


def document_url(base_url: str, version: str, rel: str) -> str:
    """The public URL of a published document."""
    return f"{base_url}/api/v{version}/{rel}"


def model_url(base_url: str, version: str, slug: str, workload: str = ROOT_WORKLOAD) -> str:
    return document_url(base_url, version, model_rel(slug, workload))


def page_url(base_url: str, slug: str, workload: str = ROOT_WORKLOAD) -> str:
    """The public web page of a model in a workload, for people."""
    return f"{base_url}/{workload_dir(workload)}{MODELS_DIR}/{slug}/"


# The pinned upstream: one snapshot file per task, named in the lock, beside it.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def snapshot_name(task: str) -> str:
    """The file name a task's snapshot gets in UPSTREAM."""
    return f"{task}{JSON}"


def is_plain_file_name(name: str) -> bool:
    """A file name the lock may point at: one plain name in UPSTREAM (no folder, not hidden, not the lock)."""
    return bool(_PLAIN_NAME.fullmatch(name)) and name != LOCK.name


def num_gpus_for(tensor_parallel: int, data_parallel: int, expert_parallel: int) -> int:
    """The GPUs a parallel layout occupies: tensor x data parallel, or the expert-parallel width."""
    return max(tensor_parallel * data_parallel, expert_parallel)


NUM_GPUS_RULE = "max(tensor_parallel x data_parallel, expert_parallel)"


def require_repo_root(*needed: Path, where: str = "the repository root") -> None:
    """Refuse to run outside the repository root, where the relative paths above hold."""
    missing = [str(path) for path in (needed or (METADATA, LOCK)) if not path.exists()]
    if missing:
        try:
            here = str(Path.cwd())
        except OSError:  # the current folder was removed
            here = "the current folder (removed)"
        raise InputError(f"{here}: expected {' and '.join(missing)} here, found none; run from {where}")


FOREIGN_SHOWN = 5  # offending entries named in a refusal


def _built(rel: str) -> bool:
    return is_published(rel) or (is_hidden(rel) and rel.rsplit("/", 1)[-1] != ".git")


DIST_FILE = re.compile(
    r"leadgreen-data-v[0-9.]+\.(tar\.gz|manifest\.json)|leadgreen_data-[0-9.]+-py3-none-any\.whl|SHA256SUMS"
)


def check_dist_output(out: Path) -> None:
    """Refuse a dist folder that `builder dist` would damage: like check_output, but the folder may
    hold only release files (and lie nowhere in data/)."""
    check_output(out, owned=lambda rel: bool(DIST_FILE.fullmatch(rel)), owned_folder=lambda rel: False,
                 what="a folder of release files", data=False)  # fmt: skip


def check_output(
    out: Path,
    owned: Callable[[str], bool] = _built,
    owned_folder: Callable[[str], bool] = is_published_folder,
    what: str = "a data folder",
    data: bool = True,
) -> None:
    """Refuse an output folder that a build would damage; OutputError naming it, and why.

    A build replaces the whole folder, so the folder must be missing, empty, or hold only what a
    build publishes (`is_published` files, the `models` folder) and hidden regular files, which
    are carried over. It must not be the current folder (the repository root), hold it, be or
    lie inside `upstream/`, `schemas/` or `.git/`, or lie inside `data/`, comparing real paths.
    Nothing here follows a link or opens an entry: kinds come from lstat, so a FIFO or a device
    is refused, never read. The descriptor beside the folder must be a regular file, and not
    another package's.
    """
    try:
        mode = out.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # missing: the build creates it (or says why it cannot)
    except OSError as exc:
        raise OutputError(f"{out}: cannot read the output folder ({exc.strerror}); refusing to write") from exc
    if mode is not None and not stat.S_ISDIR(mode):
        raise OutputError(f"{out}: expected a folder, found {kind(mode)}; refusing to replace it")
    try:
        real = out.resolve()
        here = Path.cwd().resolve()
        protected = {name: (here / name).resolve() for name in (UPSTREAM, SCHEMAS, GIT)}
        inside_only = (here / DATA).resolve()  # the committed data folder itself is the default output
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise OutputError(f"{out}: cannot resolve the output folder ({exc}); refusing to write") from exc
    if here.is_relative_to(real):
        what = "the current folder" if real == here else "a folder that contains the current folder"
        raise OutputError(f"{out}: is {what} ({real}); refusing to replace it")
    for name, folder in protected.items():
        if real.is_relative_to(folder):
            what = f"the {name}/ folder" if real == folder else f"inside the {name}/ folder"
            raise OutputError(f"{out}: is {what} ({real}); refusing to write there")
    if real.is_relative_to(inside_only) and (real != inside_only or not data):
        where = "inside the" if real != inside_only else "the"
        raise OutputError(f"{out}: is {where} {DATA}/ folder ({real}); refusing to write there")
    foreign = _foreign_entries(out, owned, owned_folder) if mode is not None else []
    if foreign:
        more = " ..." if len(foreign) > FOREIGN_SHOWN else ""
        raise OutputError(
            f"{out}: expected an empty folder or {what}, found {', '.join(foreign[:FOREIGN_SHOWN])}{more}; "
            "refusing to replace it"
        )
    if data:
        _check_descriptor_beside(out)


def _foreign_entries(out: Path, owned: Callable[[str], bool], owned_folder: Callable[[str], bool]) -> list[str]:
    """Entries a build did not publish, breadth first, sorted, at most FOREIGN_SHOWN + 1 of them."""
    found: list[str] = []
    folders = [""]
    while folders and len(found) <= FOREIGN_SHOWN:
        prefix = folders.pop(0)
        try:
            with os.scandir(out / prefix if prefix else out) as listing:
                entries = sorted((e.name, e.stat(follow_symlinks=False).st_mode) for e in listing)
        except OSError as exc:
            raise OutputError(f"{out}: cannot read {out / prefix} ({exc.strerror}); refusing to write") from exc
        for name, mode in entries:
            rel = f"{prefix}{name}"
            if stat.S_ISDIR(mode) and owned_folder(rel):
                folders.append(f"{rel}/")
            elif stat.S_ISDIR(mode):
                found.append(f"{rel}/")
            elif not stat.S_ISREG(mode):
                found.append(f"{rel} ({kind(mode)})")
            elif not owned(rel):
                found.append(rel)
    return found


def _check_descriptor_beside(out: Path) -> None:
    path = out.parent / DESCRIPTOR
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise OutputError(f"{path}: cannot read ({exc.strerror}); refusing to write {out}") from exc
    if not stat.S_ISREG(mode):
        raise OutputError(f"{path}: expected a regular file, found {kind(mode)}; refusing to replace it ({out})")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # never blocks, never follows
        with os.fdopen(fd, "rb") as file:
            name = json.loads(file.read()).get("name") if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except (OSError, ValueError, AttributeError, RecursionError):
        return  # unreadable or broken (a merge conflict, say): a build may repair it
    if isinstance(name, str) and name != PACKAGE_NAME:
        raise OutputError(
            f"{path}: expected the descriptor of {PACKAGE_NAME}, found the package {name!r}; "
            f"refusing to replace it ({out})"
        )
