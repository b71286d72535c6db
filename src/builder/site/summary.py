"""The few figures of a model document that the pages gathering models need, kept after its page (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builder.site import targets, views, words

PICKED = ("gpu", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens")  # what views.pick shows


@dataclass(frozen=True)
class Summary:
    gpus: list[str]
    configurations: int
    params: str  # in words; empty when the document has no parameter count
    architecture: str
    targets: tuple[int, ...] = ()
    best: dict[str, Picked | None] = field(default_factory=dict)  # per GPU type, any latency (LLM only)
    under: dict[str, dict[str, Picked | None]] = field(default_factory=dict)  # per GPU type, per target (LLM only)
    shown: dict[str, dict[str, Any]] = field(default_factory=dict)  # generation: per GPU type, its best as a cell


class Picked:
    """The PICKED figures of one configuration, read as conf[key] like the configuration itself (a third of
    the memory of a dict of them, and a summary holds several per GPU type)."""

    __slots__ = PICKED

    def __init__(self, conf: dict[str, Any]) -> None:
        for key in PICKED:
            setattr(self, key, conf[key])

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)


def _picked(conf: dict[str, Any] | None) -> Picked | None:
    return None if conf is None else Picked(conf)


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
    kept: dict[int, Picked | None] = {}  # one copy of a configuration picked more than once

    def once(conf: dict[str, Any] | None) -> Picked | None:
        if id(conf) not in kept:
            kept[id(conf)] = _picked(conf)
        return kept[id(conf)]

    best = {gpu: once(conf) for gpu, conf in doc["best"].items()}
    picked = {gpu: {t: once(conf) for t, conf in by_target.items()} for gpu, by_target in under.items()}
    return Summary(**common, targets=chosen, best=best, under=picked)
