"""The slug rule shared by the builder and the validators."""

import re
import unicodedata

_OUTSIDE = re.compile(r"[^a-z0-9]+")

# A Greek letter's Unicode name ends in its English name: GREEK SMALL LETTER SIGMA, GREEK
# CAPITAL LETTER FINAL SIGMA, GREEK LUNATE SIGMA SYMBOL, GREEK BETA SYMBOL.
_GREEK = re.compile(r"GREEK (?:SMALL |CAPITAL )?(?:LETTER )?(?:FINAL |LUNATE )?([A-Z]+)(?: SYMBOL)?")


def slugify(name: str) -> str:
    """Lower-case ASCII (NFKD, Greek letters by name, others dropped), runs outside [a-z0-9] one '-', none at ends."""
    ascii_chars = []
    for char in unicodedata.normalize("NFKD", name):
        if char.isascii():
            ascii_chars.append(char)
        elif unicodedata.category(char).startswith("L") and (greek := _GREEK.fullmatch(unicodedata.name(char, ""))):
            ascii_chars.append(greek.group(1).lower())
    return _OUTSIDE.sub("-", "".join(ascii_chars).lower()).strip("-")
