"""The few figures of a model document that the pages gathering models need, kept after its page (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.site import targets, words
from builder.site.charts import TOKENS, Axes

Pick = dict[str, Any] | None  # the figures of a configuration that views.pick shows, or None


@dataclass(frozen=True)
class Summary:
    gpus: list[str]
    configurations: int
    params: str  # in words; empty when the document has no parameter count
    architecture: str
    best: dict[str, Pick]  # per GPU type: any latency (LLM), within the latency limit (generation)
    targets: tuple[int, ...]  # LLM only, as under
    under: dict[str, dict[str, Pick]]  # per GPU type, per target


def summarize(
    doc: dict[str, Any], found: tuple[tuple[int, ...], targets.Under, bool] | None, axes: Axes = TOKENS
) -> Summary:
    """A model document's summary; found: targets.best_under of an LLM document, else None."""
    kept = ("gpu", "num_gpus", axes.batch, axes.latency, axes.energy)

    def pick(conf: dict[str, Any] | None) -> Pick:
        return None if conf is None else {key: conf[key] for key in kept}

    chosen, under, _ = found or ((), {}, False)
    return Summary(
        list(doc.get("gpus", [])),
        len(doc.get("configurations", [])),
        words.parameters(doc["params_b"], doc["active_params_b"]) if "params_b" in doc else "",
        str(doc.get("architecture", "")),
        {gpu: pick(conf) for gpu, conf in doc.get("best", {}).items()},
        chosen,
        {gpu: {t: pick(conf) for t, conf in by_target.items()} for gpu, by_target in under.items()},
    )
