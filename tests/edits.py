"""Hand edits of a package's files, as a contributor would make them, for the negative corpora."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def edit(rel: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    """A hand edit of one JSON file below the data folder, saved in the canonical format."""

    def apply(data: Path) -> None:
        path = data / rel
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc, indent=2) + "\n")

    return apply
