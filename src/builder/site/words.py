"""Numbers and configurations in words, for the pages (pure)."""

from __future__ import annotations

import math
import re
from typing import Any

# Upstream field names that the curated method texts cite, in words a visitor reads.
FIELD_WORDS = {
    "steady_state_energy_per_token": "steady-state energy per token",
    "energy_per_image_joules": "energy per image",
    "energy_per_video_joules": "energy per video",
    "avg_power_watts": "average power",
    "batch_latency_s": "batch latency",
    "batch_size": "batch size",
    "num_gpus": "all its",
    "ulysses_degree": "Ulysses-degree",
    "ring_degree": "ring-degree",
}
_FIELD = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def fixed(value: float, places: int) -> str:
    """A published number at its published precision, with thousands separators."""
    return f"{value:,.{places}f}"


def significant(value: float, digits: int = 4) -> str:
    """A number to `digits` significant digits, never in exponent form: 0.2708, 1.228, 12.35."""
    if value == 0:
        return "0"
    places = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{round(value, places):,.{places}f}"


def setup(n: int, gpu: str) -> str:
    """A GPU setup in short: 2, a multiplication sign, B200."""
    return f"{n} \N{MULTIPLICATION SIGN} {gpu}"


def gpus(n: int, gpu: str) -> str:
    """Say "one B200", "eight H100s", "14 H100s": small counts in words, larger ones in digits."""
    return (SMALL[n] if 0 <= n < len(SMALL) else f"{n:,}") + f" {gpu}" + ("" if n == 1 else "s")


def parameters(total: float, active: float) -> str:
    if total == active:
        return f"{total:g} billion (all active)"
    return f"{total:g} billion total, {active:g} billion active per token"


def latency_chart_alt(doc: dict[str, Any], series: list[str], latency: str) -> str:
    """The energy-latency chart of a model, in words; latency: the latency and its unit, in words."""
    configs = doc["configurations"]
    return (
        f"Dot chart, logarithmic axes: {doc['unit']} (vertical) against {latency} (horizontal) for "
        f"{len(configs)} configurations of {doc['name']}, one line per GPU setup ({', '.join(series)}) "
        "joining its lowest-energy configuration at each batch size, smallest batch first. "
        "The table below lists every point."
    )


def dots_chart_alt(rows: list[dict[str, Any]], unit: str, energy: str, total: int) -> str:
    """The dot chart of an index, in words; energy: the rows' field of energy per output; total: the index's rows."""
    if not rows:
        return f"Dot chart of {unit}: no rows."
    first, last = rows[0], rows[-1]
    pairs = f"{len(rows)} model and GPU pairs" + (f" (the lowest of {total:,})" if total > len(rows) else "")
    return (
        f"Dot chart, logarithmic scale, of {unit} for the lowest-energy configuration of {pairs}, lowest first: "
        f"from {first['model']} on {gpus(first['num_gpus'], first['gpu'])} at {fixed(first[energy], 2)} to "
        f"{last['model']} on {gpus(last['num_gpus'], last['gpu'])} at {fixed(last[energy], 2)}. "
        + ("The table below lists every dot." if total == len(rows) else f"The table below lists all {total:,}.")
    )


def plain(text: str) -> str:
    """Curated prose with each upstream field name in words and a lone "x" as a multiplication sign."""
    worded = _FIELD.sub(lambda m: FIELD_WORDS.get(m.group(0), m.group(0).replace("_", " ")), text)
    return worded.replace(" x ", " \N{MULTIPLICATION SIGN} ")


def size(n: int) -> str:
    """A file size for people: 812 bytes, 4.2 KB, 1.3 MB."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"
