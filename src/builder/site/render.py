"""HTML from the Jinja2 templates in templates/, every value autoescaped."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import jinja2

TEMPLATES = "templates"
STATIC = ("style.css", "favicon.svg")  # copied as they are to the site root; base.html links them


@cache
def environment() -> jinja2.Environment:
    """Autoescaping on for every template; a missing value is an error, not an empty string."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("builder.site", TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, context: dict[str, Any]) -> bytes:
    return environment().get_template(template).render(context).encode("utf-8")


def static(name: str) -> bytes:
    return files("builder.site").joinpath(TEMPLATES, name).read_bytes()
