"""Is the committed package sound? What `builder validate` checks of a data folder and the
descriptor beside it; reads only."""

import os
from pathlib import Path
from typing import Any

from builder.dates import today_utc
from builder.errors import InputError, ValidationError
from builder.files import is_folder, lookup_error
from builder.jsonschemas import schemas_folder
from builder.layout import CSV, INDEX, LOCK, METADATA, MODEL_LIST, SCHEMAS, WORKLOAD_LIST
from builder.metadata import load_metadata
from builder.package import curated_parts
from builder.pin import load_lock, load_model_locks
from builder.validate.dates import check_date_bounds
from builder.validate.run import check_published
from builder.validate.schemafiles import check_schema_files
from builder.validate.tree import load_tree
from builder.write import stages


def validate_committed(data: Path) -> None:
    """Every check of `data` and the descriptor beside it; ValidationError listing every problem."""
    refuse_half_published(data)
    require_data_folder(data)
    # the schemas judge the documents: only the package's own, or nothing is judged (a data
    # folder with no schemas/ beside it, as release checks it, is judged by the ones in use)
    beside = data.parent if os.path.lexists(data.parent / SCHEMAS) else schemas_folder().parent
    if problems := check_schema_files(beside):
        raise ValidationError(f"{SCHEMAS}: {len(problems)} problem(s)", problems)
    try:
        tree = load_tree(data)
        curated, base_url = provenance(data.parent, tree.descriptor)
        problems = check_published(tree, base_url, curated)
        shown_docs = {tree.shown(rel): doc for rel, doc in tree.docs.items()}
        problems += check_date_bounds(shown_docs, today_utc(), retrieved(data.parent))
    # a schema no check can start on
    except (
        KeyError,
        TypeError,
        AttributeError,
        ValueError,
        RecursionError,
    ) as exc:
        raise InputError(
            f"{SCHEMAS}/: cannot check {data} with these schemas ({type(exc).__name__}: {exc})"
        ) from exc
    if problems:
        raise ValidationError(f"{data}: {len(problems)} problem(s)", problems)


def retrieved(root: Path) -> str | None:
    """When the pinned upstream was first retrieved (the earliest task's), or None outside a
    repository."""
    if not (root / LOCK).is_file():
        return None
    return min((lock.retrieved for lock in load_lock(root / LOCK).values()), default=None)


def refuse_half_published(data: Path) -> None:
    """One line naming the repair when a publish into `data` was interrupted (its stage is still
    beside it)."""
    if left := stages(data):
        fault = (
            f"{data}: half-published: {left[0]} was left by an interrupted publish; run "
            f"`builder build` to finish"
        )
        raise ValidationError(fault, [])


def require_data_folder(data: Path, *, absent_ok: bool = False) -> None:
    """InputError unless `data` is a folder (or absent, if `absent_ok`) with one of a data
    folder's top files."""
    if (error := lookup_error(data)) is not None:
        raise InputError(f"{data}: expected a data folder, found an error ({error})")
    if not is_folder(data):
        if absent_ok:
            return
        raise InputError(f"{data}: expected a data folder, found none")
    if not any(os.path.lexists(data / name) for name in (INDEX, MODEL_LIST, WORKLOAD_LIST, CSV)):
        names = f"{INDEX}, {MODEL_LIST}, {WORKLOAD_LIST} or {CSV}"
        raise InputError(
            f"{data}: expected a data folder, with {names} at its top, found none of them"
        )


def provenance(root: Path, descriptor: Any) -> tuple[dict[str, Any] | None, str]:
    """What the descriptor's curated keys must be (None in a release archive), and the base URL."""
    if (root / METADATA).is_file():
        meta = load_metadata(root / METADATA)
        models = load_model_locks(root / LOCK)
        return curated_parts(load_lock(root / LOCK), meta, models), meta["base_url"]
    homepage = descriptor.get("homepage") if isinstance(descriptor, dict) else None
    return None, homepage if isinstance(homepage, str) else ""
