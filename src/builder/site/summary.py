"""The few figures of a model document that the pages gathering models need, kept after its page (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builder.site import targets, views, words

PICKED = ("gpu", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens")  # what views.pick shows
Pick = dict[str, Any] | None  # the PICKED figures of a configuration, or None


@dataclass(frozen=True)
class Summary:
    gpus: list[str]
    configurations: int
    params: str  # in words; empty when the document has no parameter count
    architecture: str
    targets: tuple[int, ...] = ()
    best: dict[str, Pick] = field(default_factory=dict)  # per GPU type, any latency (LLM only)
    under: dict[str, dict[str, Pick]] = field(default_factory=dict)  # per GPU type, per target (LLM only)
    shown: dict[str, dict[str, Any]] = field(default_factory=dict)  # generation: per GPU type, its best as a cell


def _picked(conf: dict[str, Any] | None) -> Pick:
    """The PICKED figures of one configuration, or None."""
    return None if conf is None else {key: conf[key] for key in PICKED}


def summarize(
    doc: dict[str, Any], found: tuple[tuple[int, ...], targets.Under, bool] | None, energy: str | None = None
) -> Summary:
    """A model document's summary; found: targets.best_under of an LLM document, else None."""
    params = words.parameters(doc["params_b"], doc["active_params_b"]) if "params_b" in doc else ""
    common = {
        "gpus": list(doc.get("gpus", [])),
        "configurations": len(doc.get("configurations", [])),
        "params": params,
        "architecture": str(doc.get("architecture", "")),
    }
    if found is None:
        best = doc.get("best", {}) if energy else {}
        return Summary(**common, shown={gpu: views.generation_pick(c, energy) for gpu, c in best.items() if c})
    chosen, under, _ = found
    best = {gpu: _picked(conf) for gpu, conf in doc["best"].items()}
    picked = {gpu: {t: _picked(conf) for t, conf in by_target.items()} for gpu, by_target in under.items()}
    return Summary(**common, targets=chosen, best=best, under=picked)
