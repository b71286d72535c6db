"""Name rules a schema pattern cannot say well: a name's slug, what a spreadsheet misreads, what
Windows reserves."""

import re
import unicodedata
from functools import lru_cache

from builder.errors import Said

_OUTSIDE = re.compile(r"[^a-z0-9]+")
# A Greek letter's Unicode name ends in its English name: GREEK SMALL LETTER SIGMA, GREEK
# CAPITAL LETTER FINAL SIGMA, GREEK LUNATE SIGMA SYMBOL, GREEK BETA SYMBOL.
_GREEK = re.compile(
    r"GREEK (?:SMALL |CAPITAL )?(?:LETTER )?(?:FINAL |LUNATE )?([A-Z]+)(?: SYMBOL)?"
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_NUMBER = r"[+-]?[$€£¥]?(?:[0-9][0-9,' ]*(?:[.,][0-9]*)?|[.,][0-9]+)(?:e[+-]?[0-9]+)?%?"
READINGS = (
    ("a formula", re.compile(r"[=+\-@].*", re.DOTALL)),
    ("a number", re.compile(rf"{_NUMBER}|\({_NUMBER}\)|0x[0-9a-f]+|[0-9]+ [0-9]+/[0-9]+")),
    ("a truth value", re.compile(r"true|false")),
    ("a date", re.compile(r"[0-9]{1,4}[-/.][0-9]{1,2}(?:[-/.][0-9]{1,4})?")),
    ("a date", re.compile(rf"{_MONTH}[-/ .]*[0-9]{{1,4}}(?:[-/ ,.]+[0-9]{{1,4}})?")),
    ("a date", re.compile(rf"[0-9]{{1,2}}[-/ .]*{_MONTH}(?:[-/ ,.]+[0-9]{{1,4}})?")),
    (
        "a time",
        re.compile(
            r"[0-9]{1,2}(?::[0-9]{1,2}){1,2}(?:\.[0-9]*)? ?(?:[ap]\.?m?\.?)?|[0-9]{1,2} "
            r"?[ap]\.?m?\.?"
        ),
    ),
)
# Windows reserves these names with any extension, in any case: `models/nul.json` cannot be made
# there.
RESERVED_SLUGS = frozenset(
    {"con", "prn", "aux", "nul", *(f"{dev}{i}" for dev in ("com", "lpt") for i in range(1, 10))}
)
# each name's slug and fault are worked out once: a task repeats a model's names on every row
SEEN_NAMES = 1 << 16


@lru_cache(maxsize=SEEN_NAMES)
def slugify(name: str) -> str:
    """Lower-case ASCII (NFKD, Greek letters by name, others dropped), runs outside [a-z0-9] one
    '-', none at ends."""
    ascii_chars = []
    for char in unicodedata.normalize("NFKD", name):
        if char.isascii():
            ascii_chars.append(char)
        elif unicodedata.category(char).startswith("L") and (
            greek := _GREEK.fullmatch(unicodedata.name(char, ""))
        ):
            ascii_chars.append(greek.group(1).lower())
    return _OUTSIDE.sub("-", "".join(ascii_chars).lower()).strip("-")


def is_reserved_slug(slug: str) -> bool:
    """True for a name Windows reserves (con, prn, aux, nul, com1-com9, lpt1-lpt9), whatever its
    case."""
    return slug.lower() in RESERVED_SLUGS


def control_characters(name: str) -> list[str]:
    """The Unicode control (Cc) and format (Cf) characters of a name, as U+XXXX."""
    return [f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")]


@lru_cache(maxsize=SEEN_NAMES)
def name_fault(name: str, what: str = "a name") -> Said | None:
    """`expected ..., found ...` for a name (model id, slug, nickname, GPU, architecture) a
    spreadsheet misreads, else None; `what` says which kind of name the message expected."""
    if breaks := [c for c in name if unicodedata.category(c) in ("Zl", "Zp")]:
        return Said(
            f"{what} on one line", f"U+{ord(breaks[0]):04X}", " (a line or paragraph separator)"
        )
    text = unicodedata.normalize("NFKC", name).strip().lower()  # full-width digits read as digits
    if reading := next((reading for reading, pattern in READINGS if pattern.fullmatch(text)), None):
        return Said(f"{what} a spreadsheet keeps as text", repr(name), f", read as {reading}")
    return None


def gpu_spelling_faults(gpus: list[tuple[str, str]]) -> list[tuple[str, str, Said]]:
    """(file, GPU, message) for each GPU name of (file, GPU) pairs that differs from one seen before
    only by case or punctuation (H100 and h100; H100-SXM, H100_SXM and H100SXM): the first two would
    also share a page."""
    first: dict[str, tuple[str, str]] = {}
    faults = set()
    for path, gpu in gpus:
        seen_in, seen = first.setdefault(slugify(gpu).replace("-", ""), (path, gpu))
        if seen != gpu:
            there = "" if seen_in == path else f" in {seen_in}"
            faults.add((path, gpu, Said("one spelling per GPU", f"{seen!r}{there} and {gpu!r}")))
    return sorted(faults)
