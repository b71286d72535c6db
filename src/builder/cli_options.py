"""Options and checks shared by the command modules: folder options and the optional extras."""

from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import TypeVar

import click

from builder.errors import InputError

# optional dependencies: the extra, and the modules it installs
EXTRAS = {
    "site": ("jinja2", "matplotlib"),
    "release": ("flit_core", "pyproject_hooks"),
}


def require_extra(extra: str, command: str) -> None:
    """InputError naming the extra when a module it installs is missing."""
    if missing := [name for name in EXTRAS[extra] if find_spec(name) is None]:
        raise InputError(
            f"builder {command}: expected {', '.join(missing)} (the {extra} extra), found none "
            f"installed; "
            f"run pip install -e '.[{extra}]'"
        )


FC = TypeVar("FC", bound=Callable[..., object])


def folder_option(name: str, default: Path, help_text: str) -> Callable[[FC], FC]:
    """A --data or --out option naming one folder."""
    folder = click.Path(path_type=Path, file_okay=False)
    return click.option(name, type=folder, default=default, show_default=True, help=help_text)
