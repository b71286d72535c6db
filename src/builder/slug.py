"""The slug rule shared by the builder and the validators."""

import re
import unicodedata

_OUTSIDE = re.compile(r"[^a-z0-9]+")

# A Greek letter's Unicode name ends in its English name: GREEK SMALL LETTER SIGMA, GREEK
# CAPITAL LETTER FINAL SIGMA, GREEK LUNATE SIGMA SYMBOL, GREEK BETA SYMBOL.
_GREEK = re.compile(r"GREEK (?:SMALL |CAPITAL )?(?:LETTER )?(?:FINAL |LUNATE )?([A-Z]+)(?: SYMBOL)?")


def transliterate(name: str) -> str:
    """The name in ASCII: NFKD, Greek letters as their names ("PixArt-Σ" -> "PixArt-sigma"), other accents dropped."""
    out = []
    for char in unicodedata.normalize("NFKD", name):
        if char.isascii():
            out.append(char)
        elif unicodedata.category(char).startswith("L") and (greek := _GREEK.fullmatch(unicodedata.name(char, ""))):
            out.append(greek.group(1).lower())
    return "".join(out)


def slugify(name: str) -> str:
    """Transliterated to ASCII, lower-case, runs outside [a-z0-9] become one '-', no '-' at either end."""
    return _OUTSIDE.sub("-", transliterate(name).lower()).strip("-")
