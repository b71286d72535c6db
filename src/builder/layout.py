"""Where everything lives, and the rules that tie a file, a slug, a row id and a public URL together.

The one module that knows the layout: every other module asks it. Paths are relative to the
repository root, where every command runs.
"""

from __future__ import annotations

import re
from pathlib import Path

from builder.errors import InputError

# The repository.
DATA = Path("data")
UPSTREAM = Path("upstream")
LOCK = UPSTREAM / "lock.json"
METADATA = Path("metadata.toml")
SCHEMAS = Path("schemas")
DIST = Path("dist")
CHANGELOG = Path("CHANGELOG.md")
DESCRIPTOR = "datapackage.json"  # beside the data folder, in its parent

# The published files, by path inside the data folder.
INDEX = "index.json"
MODEL_LIST = "models.json"
MODELS_DIR = "models"
CSV = "configurations.csv"
JSON = ".json"

# Which JSON Schema (file name in SCHEMAS) defines which document.
DEFS_SCHEMA = "defs.schema.json"
INDEX_SCHEMA = "index.schema.json"
MODEL_LIST_SCHEMA = "model-list.schema.json"
MODEL_SCHEMA = "model.schema.json"
DESCRIPTOR_SCHEMA = "datapackage.schema.json"  # datapackage.json itself, as checked in a release archive

# The most bytes a file in the data folder (or the descriptor) may hold: the largest published
# file is about 50 KB today and a few MB at 100x; anything above this is reported, never read.
MAX_FILE_BYTES = 64 * 1024 * 1024


def model_rel(slug: str) -> str:
    """The path of a model's document inside the data folder."""
    return f"{MODELS_DIR}/{slug}{JSON}"


def is_model(rel: str) -> bool:
    """Whether a path inside the data folder is where a model document goes."""
    head, _, name = rel.partition("/")
    return head == MODELS_DIR and "/" not in name and name.endswith(JSON) and len(name) > len(JSON)


def slug_of(rel: str) -> str:
    """The slug of a model document's path (the inverse of model_rel)."""
    if not is_model(rel):
        raise ValueError(f"expected a path like {model_rel('<slug>')}, found {rel!r}")
    return rel[len(MODELS_DIR) + 1 : -len(JSON)]


def schema_for(rel: str) -> str | None:
    """The schema file of a published document, or None for any other path."""
    if is_model(rel):
        return MODEL_SCHEMA
    return {INDEX: INDEX_SCHEMA, MODEL_LIST: MODEL_LIST_SCHEMA}.get(rel)


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


def row_id(slug: str, gpu: str, num_gpus: int, max_num_seqs: int) -> str:
    """The natural key of a configuration (with its repeat number, when upstream repeats it)."""
    return f"{slug}/{gpu}/{num_gpus}/{max_num_seqs}"


def document_url(base_url: str, version: str, rel: str) -> str:
    """The public URL of a published document."""
    return f"{base_url}/api/v{version}/{rel}"


def model_url(base_url: str, version: str, slug: str) -> str:
    return document_url(base_url, version, model_rel(slug))


def page_url(base_url: str, slug: str) -> str:
    """The public web page of a model, for people."""
    return f"{base_url}/{MODELS_DIR}/{slug}/"


def num_gpus_for(tensor_parallel: int, data_parallel: int, expert_parallel: int) -> int:
    """The GPUs a parallel layout occupies: tensor x data parallel, or the expert-parallel width."""
    return max(tensor_parallel * data_parallel, expert_parallel)


NUM_GPUS_RULE = "max(tensor_parallel x data_parallel, expert_parallel)"


def require_repo_root(*needed: Path, where: str = "the repository root") -> None:
    """Refuse to run outside the repository root, where the relative paths above hold."""
    missing = [str(path) for path in (needed or (METADATA, LOCK)) if not path.exists()]
    if missing:
        raise InputError(f"{Path.cwd()}: expected {' and '.join(missing)} here, found none; run from {where}")
