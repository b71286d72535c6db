"""Load the curated metadata (editorial text with provenance) from its TOML file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from builder.errors import InputError

REQUIRED = {
    "header": ("version", "unit", "itl_deadline_ms", "caveat", "boundary"),
    "index": ("workload", "selection", "reference_row"),
}


def load_metadata(path: Path) -> dict[str, Any]:
    """Read the metadata file and check that every curated field is there."""
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read curated metadata ({exc.strerror})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: expected TOML, found a syntax error ({exc})") from exc
    missing = [f"{table}.{key}" for table, keys in REQUIRED.items() for key in keys if key not in meta.get(table, {})]
    missing += [key for key in ("base_url", "source") if key not in meta]
    if missing:
        raise InputError(f"{path}: expected curated fields {', '.join(missing)}, found them missing")
    return meta
