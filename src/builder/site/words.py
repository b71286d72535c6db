"""Numbers and configurations in words, for the pages (pure)."""

import math
import re

from builder.card import WORDS

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
    return (WORDS[n] if 0 <= n < len(WORDS) else f"{n:,}") + f" {gpu}" + ("" if n == 1 else "s")


def parameters(total: float, active: float) -> str:
    if total == active:
        return f"{total:g} billion (all active)"
    return f"{total:g} billion total, {active:g} billion active per token"


def plain(text: str) -> str:
    """Curated prose with each upstream field name in words and a lone "x" as a multiplication
    sign."""
    worded = _FIELD.sub(lambda m: FIELD_WORDS.get(m.group(0), m.group(0).replace("_", " ")), text)
    return worded.replace(" x ", " \N{MULTIPLICATION SIGN} ")


def size(n: int) -> str:
    """A file size for people: 812 bytes, 4.2 KB, 1.3 MB."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"
