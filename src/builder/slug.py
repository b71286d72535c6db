"""The slug rule shared by the builder and the validators.

A slug is the name transliterated to ASCII, lower-cased, each run of characters outside [a-z0-9]
replaced by one '-', no '-' at either end. Transliteration: the name is NFKD-decomposed, each
Greek letter becomes its English name (Σ -> sigma, so "PixArt-Σ" -> "pixart-sigma"), and any
other character drops its accents and is kept only if then ASCII. An ASCII name is unchanged by it.
"""

import re
import unicodedata

_OUTSIDE = re.compile(r"[^a-z0-9]+")

# The Greek letters by their lower-case form (final sigma and the variant forms included).
GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta",
    "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi",
    "ο": "omicron", "π": "pi", "ρ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "ϐ": "beta", "ϑ": "theta", "ϕ": "phi",
    "ϖ": "pi", "ϰ": "kappa", "ϱ": "rho", "ϲ": "sigma", "ϵ": "epsilon",
}  # fmt: skip


def transliterate(name: str) -> str:
    """The name in ASCII: NFKD, Greek letters as their English names, other non-ASCII characters
    without their accents, or dropped."""
    out = []
    for char in unicodedata.normalize("NFKD", name):
        if char.isascii():
            out.append(char)
        elif char.lower() in GREEK:
            out.append(GREEK[char.lower()])
    return "".join(out)


def slugify(name: str) -> str:
    """Transliterated to ASCII, lower-case, runs outside [a-z0-9] become one '-', no '-' at either end."""
    return _OUTSIDE.sub("-", transliterate(name).lower()).strip("-")
