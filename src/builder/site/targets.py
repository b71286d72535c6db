"""A model's lowest-energy configuration per GPU type and latency target, and the summary its
page leaves (pure)."""

from dataclasses import dataclass, field
from typing import Any

from builder.errors import InputError, pointer, shown
from builder.fields import MEASURE_KEYS, RESPONSE_ENERGY
from builder.site import words
from builder.site.charts import TOKENS, ChartAxes

JOULES_PER_TOKEN = MEASURE_KEYS["llm"][0]  # the energy `best` and the frontier rank by
TARGETS_MS = (50, 100, 200)
CHOSEN_MS = 100  # the target of each workload page's comparison table
Under = dict[str, dict[str, dict[str, Any] | None]]  # gpu -> str(target) -> configuration or None
# targets, per GPU per target, whether the frontier listed the model
Found = tuple[tuple[int, ...], Under, bool]


def computed(configs: list[dict[str, Any]], targets: tuple[int, ...] = TARGETS_MS) -> Under:
    """Per GPU type (sorted), per target, the configuration `best` would pick with that deadline."""
    return {
        gpu: {
            str(target): min(
                (c for c in configs if c["gpu"] == gpu and c[TOKENS.latency] <= target),
                key=lambda c: c[JOULES_PER_TOKEN],
                default=None,
            )
            for target in targets
        }
        for gpu in sorted({str(c["gpu"]) for c in configs})
    }


def best_under(
    doc: dict[str, Any],
    frontier: dict[str, Any] | None,
    at: str = "",
    model: dict[str, Any] | None = None,
) -> Found:
    """The frontier's entries for the model (`model`, its entry in `frontier`, shown as `at`) as its
    configurations; a GPU type the entry lacks, or a model without one, is computed."""
    if frontier is None or model is None:
        return TARGETS_MS, computed(doc["configurations"]), False
    listed = frontier.get("itl_targets_ms")
    chosen = tuple(int(t) for t in listed) if isinstance(listed, list) else TARGETS_MS
    by_key = {(c["row_id"], c.get("repeat", 1)): c for c in doc["configurations"]}
    found = computed(doc["configurations"], chosen)
    for gpu in sorted(model.get("gpus", {})):
        found[gpu] = {}
        for target, entry in model["gpus"][gpu].get("best_under", {}).items():
            conf = None if entry is None else by_key.get((entry["row_id"], entry.get("repeat", 1)))
            if entry is not None and conf is None:
                named = f"{shown(entry['row_id'])} repeat {shown(entry.get('repeat', 1))}"
                msg = (
                    f"expected a configuration of {shown(doc['slug'])} on this GPU, found no "
                    f"{named}"
                )
                raise InputError(
                    f"{at}{pointer(['gpus', gpu, 'best_under', target])}: {msg} (run builder "
                    f"validate)"
                )
            found[gpu][str(target)] = conf
    return chosen, found, True


@dataclass(frozen=True, slots=True)  # one per model, kept all run: no __dict__ each
class Summary:
    gpus: list[str]
    configurations: int
    params: str  # in words; empty when the document has no parameter count
    architecture: str
    # per GPU type: any latency (LLM), within the latency limit (generation)
    best: dict[str, dict[str, Any] | None]
    targets: tuple[int, ...]  # LLM only, as under
    under: Under  # per GPU type, per target
    # generation: each output size (size_of) it made
    sizes: list[tuple[Any, ...]] = field(default_factory=list)
    # LLM: each configuration as POINT, for the latency control
    points: list[list[Any]] = field(default_factory=list)


Summaries = dict[str, Summary]  # by model document path, the first made of each document


def summarize(doc: dict[str, Any], found: Found | None, axes: ChartAxes = TOKENS) -> Summary:
    """A model document's summary, each configuration cut to what a pick cell shows; found:
    best_under (LLM only)."""
    kept = ("gpu", "num_gpus", axes.batch, axes.latency, axes.energy, *RESPONSE_ENERGY)
    # one pick for equal ones: often best at several targets
    made: dict[tuple[Any, ...], dict[str, Any]] = {}

    def pick(conf: dict[str, Any] | None) -> dict[str, Any] | None:
        if conf is None:
            return None
        pairs = tuple((key, conf[key]) for key in kept if key in conf)
        if pairs not in made:
            made[pairs] = dict(pairs)
        return made[pairs]

    chosen, under, _ = found or ((), {}, False)
    return Summary(
        list(doc.get("gpus", [])),
        len(doc.get("configurations", [])),
        words.parameters(doc["params_b"], doc["active_params_b"]) if "params_b" in doc else "",
        str(doc.get("architecture", "")),
        {gpu: pick(conf) for gpu, conf in doc.get("best", {}).items()},
        chosen,
        {gpu: {t: pick(conf) for t, conf in by_target.items()} for gpu, by_target in under.items()},
        sorted({size_of(conf) for conf in doc.get("configurations", [])}, key=size_order)
        if not found
        else [],
        [point(conf) for conf in doc.get("configurations", [])] if found else [],
    )


# what makes two outputs comparable
SIZE_KEYS = (
    "width",
    "height",
    "num_frames",
    "fps",
    "inference_steps",
)


def size_of(conf: dict[str, Any]) -> tuple[Any, ...]:
    """A configuration's output size and denoising steps, as SIZE_KEYS lists them (None where it
    has none)."""
    return tuple(conf.get(key) for key in SIZE_KEYS)


POINT = (
    "gpu",
    "num_gpus",
    TOKENS.batch,
    TOKENS.latency,
    TOKENS.energy,
    JOULES_PER_TOKEN,
    *RESPONSE_ENERGY,
)


def point(conf: dict[str, Any]) -> list[Any]:
    """An LLM configuration as the latency control reads it: POINT's fields in order, None where
    it has none."""
    return [conf.get(key) for key in POINT]


def size_order(size: tuple[Any, ...]) -> tuple[tuple[bool, Any], ...]:
    """Sizes smallest first, a missing part last."""
    return tuple((part is None, part or 0) for part in size)
