"""The repository URL: metadata.toml's `repository`, a placeholder while a `PLACEHOLDER` comment
marks it."""

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MARK = "PLACEHOLDER"


@dataclass(frozen=True)
class Repository:
    url: str
    placeholder: bool


def parse(text: str) -> Repository | None:
    """The repository of a metadata.toml's text; None when the file names none."""
    try:
        url = tomllib.loads(text).get("repository")
    except tomllib.TOMLDecodeError:
        return None  # metadata.toml's own check reports it
    if not isinstance(url, str):
        return None
    # with the comments above
    line = re.search(r"^(?:[ \t]*#.*\n)*[ \t]*repository[ \t]*=.*", text, re.MULTILINE)
    # set in a way we cannot see (None): unconfirmed
    return Repository(url, line is None or MARK in line[0])


def load(path: Path) -> Repository | None:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def warnings(path: Path) -> list[str]:
    """What validate says about the repository URL: nothing once it is real."""
    if not path.is_file():
        return []  # a release archive: its files name the repository already
    if (found := load(path)) is None:
        return [f"{path.name}: repository: expected the repository URL, found none"]
    if found.placeholder:
        return [
            f"{path.name}: repository: {found.url} is marked {MARK}; set the real URL before a "
            f"release"
        ]
    return []
