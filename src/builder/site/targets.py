"""Per model and GPU type, the lowest-energy configuration under each latency target (the first on a tie),
from the workload's frontier document when it lists the model, else computed (pure)."""

from __future__ import annotations

from typing import Any

TARGETS_MS = (50, 100, 200)
CHOSEN_MS = 100  # the target of each workload page's comparison table
Under = dict[str, dict[str, dict[str, Any] | None]]  # gpu -> str(target) -> configuration or None


def computed(configs: list[dict[str, Any]], targets: tuple[int, ...] = TARGETS_MS) -> Under:
    """Per GPU type (sorted), per target, the configuration `best` would pick with that deadline."""
    return {
        gpu: {
            str(target): min(
                (c for c in configs if c["gpu"] == gpu and c["median_itl_ms"] <= target),
                key=lambda c: c["joules_per_output_token"],
                default=None,
            )
            for target in targets
        }
        for gpu in sorted({str(c["gpu"]) for c in configs})
    }


def by_slug(frontier: dict[str, Any] | None) -> dict[str, Any] | None:
    """A frontier document's models by slug (the first of a slug), so each model is found in one step."""
    if frontier is None:
        return None
    found: dict[str, Any] = {}
    for model in frontier.get("models", []):
        found.setdefault(model.get("slug"), model)
    return {**frontier, "models": found}


def best_under(doc: dict[str, Any], frontier: dict[str, Any] | None) -> tuple[tuple[int, ...], Under, bool]:
    """(targets, per GPU per target, whether the frontier listed the model); frontier: as by_slug gives it.
    A GPU type the frontier lacks is computed; a frontier entry is shown as its configuration."""
    model = frontier["models"].get(doc["slug"]) if frontier is not None else None
    if model is None:
        return TARGETS_MS, computed(doc["configurations"]), False
    listed = frontier.get("itl_targets_ms")
    chosen = tuple(int(t) for t in listed) if isinstance(listed, list) else TARGETS_MS
    by_key = {(c["row_id"], c.get("repeat", 1)): c for c in doc["configurations"]}
    found = computed(doc["configurations"], chosen)
    for gpu in sorted(model.get("gpus", {})):
        found[gpu] = {}
        for target, entry in model["gpus"][gpu].get("best_under", {}).items():
            conf = None if entry is None else by_key.get((entry["row_id"], entry.get("repeat", 1)))
            found[gpu][str(target)] = conf if conf is not None or entry is None else {**entry, "gpu": gpu}
    return chosen, found, True
