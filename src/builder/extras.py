"""The optional extras: `builder site` needs the site extra, `release` and `dist` the release extra."""

from __future__ import annotations

from importlib.util import find_spec

from builder.errors import InputError

EXTRAS = {"site": ("jinja2", "matplotlib"), "release": ("flit_core", "pyproject_hooks")}


def require_extra(extra: str, command: str) -> None:
    """InputError naming the extra when a module it installs is missing."""
    missing = [name for name in EXTRAS[extra] if find_spec(name) is None]
    if missing:
        raise InputError(
            f"builder {command}: expected {', '.join(missing)} (the {extra} extra), found none installed; "
            f"run pip install -e '.[{extra}]'"
        )
