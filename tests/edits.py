"""Hand edits of a package's files, as a contributor would make them, for the negative corpora."""

from __future__ import annotations

import hashlib
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


ENERGY_FIELDS = ("energy_per_token_joules", "energy_per_request_joules", "avg_power_watts")


def scale_model_upstream(
    repo: Path, model_id: str, factor: float, retrieved: str, task: str = "lm-arena-chat"
) -> None:
    """Scale one model's energy and power by `factor` in its task file and in its per-model file
    alike (upstream keeps them equal), and re-pin both in upstream/lock.json."""
    upstream = repo / "upstream"
    lock = json.loads((upstream / "lock.json").read_text())
    model_file = f"models/{model_id.replace('/', '__')}__{task}.json"
    for rel, entry in ((lock["tasks"][task]["file"], lock["tasks"][task]), (model_file, None)):
        path = upstream / rel
        doc = json.loads(path.read_bytes())
        for conf in doc["configurations"]:
            if conf.get("model_id", doc.get("model_id")) == model_id:
                for field in ENERGY_FIELDS:
                    conf[field] *= factor
        path.write_text(json.dumps(doc, indent=1))
        data = path.read_bytes()
        pinned = (
            entry
            if entry is not None
            else next(e for e in lock["models"].values() if e["file"] == rel)
        )
        pinned.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data), retrieved=retrieved)
    (upstream / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")
