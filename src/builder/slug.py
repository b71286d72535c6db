"""The slug rule shared by the builder and the validators."""

import re

_OUTSIDE = re.compile(r"[^a-z0-9]+")


def slugify(name: str) -> str:
    """Lower-case, runs outside [a-z0-9] become one '-', no '-' at either end."""
    return _OUTSIDE.sub("-", name.lower()).strip("-")
