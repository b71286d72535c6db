"""Pure: energy-latency frontiers of one model's configurations, per GPU type and across them,
and best_under."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

from builder.fields import LATENCY_FIELD, MEASURE_KEYS, PER_SECOND
from builder.layout import GENERATION_ORDER, LLM_ORDER
from builder.strictjson import Doc

if TYPE_CHECKING:  # the reader's types: for mypy only, the reader is not installed beside builder
    from leadgreen_data.types import FrontierDefinition, GenerationDefinition

Point = tuple[float, float]  # (energy, latency) of a configuration, unrounded
Key = tuple[str, int]  # a configuration's (row_id, repeat)
Points = dict[Key, Point]  # every configuration's point, by its key
Extra = Callable[[Key], Doc]  # an entry's values beyond its configuration's, by its key
Rule = Callable[[list[Point]], list[bool]]  # which points a frontier keeps (a dominance rule)

# What a frontier document states about itself: the definitions of its parts, checked by validate.
DEFINITION: GenerationDefinition = {
    "gpus": (
        "Per GPU type, every configuration that no other on that GPU type weakly dominates: none "
        "has lower or equal "
        "energy and lower or equal latency with one of them strictly lower (unrounded upstream "
        "values)."
    ),
    "across_gpus": (
        "Over all the model's GPU types, every configuration that no other strictly dominates: "
        "none has both strictly "
        "lower energy and strictly lower latency (unrounded upstream values), the ML.ENERGY "
        "Leaderboard's own rule."
    ),
    "best_under": (
        "For each target, the lowest-energy configuration whose unrounded latency is at most the "
        "target, the first "
        "in configuration order on a tie; null when none is that fast."
    ),
}
LLM_DEFINITION: FrontierDefinition = {
    **DEFINITION,
    "joules_per_response": (
        "GPU energy of one response in joules: upstream's energy_per_request_joules, which is "
        "energy per output token "
        "times mean_output_tokens (the upstream avg_output_len), to 4 decimals."
    ),
    "joules_per_response_quantiles": (
        "joules_per_response_median and joules_per_response_p90: estimates, from binned "
        "histograms: upstream's energy "
        "per output token times the configuration's median_output_tokens or p90_output_tokens in "
        "output-lengths.json "
        "(interpolated inside the bin), to 4 decimals; null when the configuration has no "
        "histogram there."
    ),
}


@dataclass(frozen=True)
class Axes:
    """What one kind of workload's frontier is drawn on, and what its entries hold."""

    energy: str  # the configuration's rounded energy that best_under ranks by
    latency: str  # the configuration's rounded latency
    entry_keys: tuple[str, ...]  # copied from the configuration, in order
    order: tuple[str, ...]  # the configuration keys that break ties after latency and energy


LLM_AXES = Axes(
    energy=MEASURE_KEYS["llm"][0],
    latency=LATENCY_FIELD["llm"],
    entry_keys=("row_id", "repeat", *LLM_ORDER, LATENCY_FIELD["llm"], MEASURE_KEYS["llm"][1]),
    order=(*LLM_ORDER, "repeat"),
)
GENERATION_HEAD = ("row_id", "repeat", *GENERATION_ORDER)
GENERATION_AXES = {
    kind: Axes(
        energy=MEASURE_KEYS[kind][0],
        latency=LATENCY_FIELD[kind],
        entry_keys=(
            *GENERATION_HEAD,
            LATENCY_FIELD[kind],
            *MEASURE_KEYS[kind][:2],
            *PER_SECOND[kind],
        ),
        order=(*GENERATION_ORDER, "repeat"),
    )
    for kind in ("image", "video")
}


def model_frontier(
    confs: list[Doc], points: Points, axes: Axes, targets: list[float], extra: Extra
) -> Doc:
    """One model's frontier and best_under per GPU type (weak dominance) and across its GPU types
    (strict)."""
    gpus = sorted({conf["gpu"] for conf in confs})
    own = {gpu: [conf for conf in confs if conf["gpu"] == gpu] for gpu in gpus}
    return {
        "gpus": {
            gpu: frontier(own[gpu], points, axes, targets, extra, undominated) for gpu in gpus
        },
        "across_gpus": frontier(confs, points, axes, targets, extra, strictly_undominated),
    }


def frontier(
    confs: list[Doc], points: Points, axes: Axes, targets: list[float], extra: Extra, keep: Rule
) -> Doc:
    """The configurations `keep` leaves (latency, then energy, then axes.order ascending) and the
    best per target."""
    own = [(conf, points[key_of(conf)]) for conf in confs]
    front = [item for item, kept in zip(own, keep([p for _, p in own]), strict=True) if kept]
    front.sort(key=lambda item: (item[1][1], item[1][0], *(item[0][k] for k in axes.order)))

    def entry(conf: Doc) -> Doc:
        return {key: conf[key] for key in axes.entry_keys} | extra(key_of(conf))

    bests = (lowest([conf for conf, p in own if p[1] <= t], axes.energy) for t in targets)
    best_under = {
        target_key(t): best and entry(best) for t, best in zip(targets, bests, strict=True)
    }
    return {"frontier": [entry(conf) for conf, _ in front], "best_under": best_under}


def latency_targets(limit: float) -> list[float]:
    """A generation workload's targets of best_under: half its latency limit, then the limit (15
    s and 30 s)."""
    half = limit / 2
    return [int(half) if half == int(half) else half, limit]


def key_of(conf: Doc) -> Key:
    return conf["row_id"], conf["repeat"]


def target_key(target: float) -> str:
    """A latency target as a best_under key: 50 as "50", 7.5 as "7.5"."""
    return f"{target:g}"


def lowest(confs: list[Doc], energy: str) -> Doc | None:
    """The configuration of least published `energy`, the first on a tie; None when there is
    none."""
    return min(confs, key=lambda conf: conf[energy], default=None)


def undominated(points: list[Point]) -> list[bool]:
    """For each point, whether no other point (of another value) is lower or equal on both; n log
    n."""
    keep = [False] * len(points)
    least = math.inf  # the least energy of every point at a lower latency
    for _, group in groupby(
        sorted(range(len(points)), key=lambda i: points[i][::-1]), key=lambda i: points[i][1]
    ):
        at = list(group)  # one latency, least energy first
        for i in at:
            keep[i] = least > points[i][0] and points[at[0]][0] == points[i][0]
        least = min(least, points[at[0]][0])
    return keep


def strictly_undominated(points: list[Point]) -> list[bool]:
    """For each point, whether no other point is strictly lower on both; n log n."""
    keep = [False] * len(points)
    least = math.inf  # the least energy of every point at a strictly lower latency
    for _, group in groupby(
        sorted(range(len(points)), key=lambda i: points[i][::-1]), key=lambda i: points[i][1]
    ):
        at = list(group)
        for i in at:
            keep[i] = not least < points[i][0]
        least = min(least, points[at[0]][0])
    return keep
