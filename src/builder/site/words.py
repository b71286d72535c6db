"""Numbers and configurations in words, for the pages (pure)."""

from __future__ import annotations

from typing import Any

SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def count(n: int) -> str:
    """Small counts in words ("one", "eight"), larger ones in digits."""
    return SMALL[n] if 0 <= n < len(SMALL) else f"{n:,}"


def fixed(value: float, places: int) -> str:
    """A published number at its published precision, with thousands separators."""
    return f"{value:,.{places}f}"


def billions(value: float) -> str:
    return f"{value:g} billion"


def gpus(n: int, gpu: str) -> str:
    """Say "one B200", "eight H100s"."""
    return f"{count(n)} {gpu}" + ("" if n == 1 else "s")


def best_sentence(cfg: dict[str, Any], unit: str) -> str:
    """Say "on one B200, 12.97 Wh per million output tokens at a median 124.9 ms between tokens"."""
    return (
        f"on {gpus(cfg['num_gpus'], cfg['gpu'])}, {fixed(cfg['wh_per_million_output_tokens'], 2)} {unit} "
        f"at a median {fixed(cfg['median_itl_ms'], 1)} ms between tokens"
    )


def best_detail(cfg: dict[str, Any]) -> str:
    """The setting behind a best configuration, in a short phrase."""
    return (
        f"{cfg['precision']} weights, at most {cfg['max_num_seqs']:,} sequences at once, "
        f"{fixed(cfg['avg_requests_in_flight'], 1)} in flight on average, "
        f"{cfg['gpu_power_watts_total']:,} W of GPU power"
    )


def no_best_sentence(gpu: str, deadline_ms: float) -> str:
    return f"on {gpu}, no measured configuration meets the {deadline_ms:g} ms deadline"


def parameters(total: float, active: float) -> str:
    if total == active:
        return f"{billions(total)} (all active)"
    return f"{billions(total)} total, {billions(active)} active per token"


def latency_chart_alt(doc: dict[str, Any]) -> str:
    """The energy-latency chart of a model, in words."""
    configs = doc["configurations"]
    best = "; ".join(best_sentence(cfg, doc["unit"]) for cfg in doc["best"].values()) or "none"
    return (
        f"Scatter chart, logarithmic axes: {doc['unit']} (vertical) against median inter-token latency in ms "
        f"(horizontal) for {len(configs)} configurations of {doc['name']} on {', '.join(doc['gpus'])}, "
        f"one series per GPU. Best configuration per GPU, marked with a star: {best}. "
        f"A dashed vertical line marks the {doc['itl_deadline_ms']:g} ms deadline."
    )


def bars_chart_alt(rows: list[dict[str, Any]], unit: str) -> str:
    """The bar chart of an index, in words."""
    if not rows:
        return f"Bar chart of {unit}: no rows."
    first, last = rows[0], rows[-1]
    return (
        f"Horizontal bar chart, logarithmic scale, of {unit} for the best configuration of {len(rows)} model and "
        f"GPU pairs, lowest first: from {first['model']} on {gpus(first['num_gpus'], first['gpu'])} at "
        f"{fixed(first['wh_per_million_output_tokens'], 2)} to {last['model']} on "
        f"{gpus(last['num_gpus'], last['gpu'])} at {fixed(last['wh_per_million_output_tokens'], 2)}. "
        "The table below lists every bar."
    )
