"""Reporters: the problems a check found, as text (one line each), JSON lines, or GitHub workflow commands.

The checkers return problems (errors.Problem: path, where, message); only this module decides
how they look. `text` is the line people read, `path: /pointer: expected ..., found ...`;
`json` is one object a line (file, pointer, expected, found, message), for tools; `github` is
one `::error file=...,title=...::...` workflow command a line, which GitHub Actions turns into
a note on the file in a pull request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from builder.errors import BuilderError, Problem, ProblemsError, printable

FORMATS = ("text", "json", "github")
EXPECTED_FOUND = re.compile(r"expected (?P<expected>.*), found (?P<found>.*)", re.DOTALL)


def as_json(problem: Problem) -> dict[str, Any]:
    """The problem's parts, escaped (errors.printable); expected and found are null when its message is
    not `expected ..., found ...`."""
    parts = EXPECTED_FOUND.fullmatch(problem.message)
    return {
        "file": printable(problem.path),
        "pointer": printable(problem.where),
        "expected": printable(parts["expected"]) if parts else None,
        "found": printable(parts["found"]) if parts else None,
        "message": printable(problem.message),
    }


def _escape_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped, as the runner unescapes them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: also : and , escaped, which separate properties."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_command(level: str, message: str, file: str | None = None, title: str | None = None) -> str:
    """`::error file=F,title=T::message` (level error, warning or notice), every part escaped: first as
    errors.printable does (one line, no control character), then as the runner unescapes."""
    parts = (("file", file), ("title", title))
    props = [f"{key}={_escape_property(printable(value))}" for key, value in parts if value]
    text = _escape_data(printable(message))
    return f"::{level} {','.join(props)}::{text}" if props else f"::{level}::{text}"


def render(problem: Problem, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(as_json(problem), ensure_ascii=False, allow_nan=False)
    if fmt == "github":
        return github_command("error", f"{problem.where}: {problem.message}", problem.path, problem.where)
    return printable(str(problem))


def say(text: str, err: bool = False) -> None:
    """Print one message line, every untrusted part escaped (errors.printable): a newline, ESC or
    U+202E inside it shows as an escape, never as a line break or a terminal command."""
    click.echo(printable(text), err=err)


def warn(message: str, fmt: str, file: str | None = None) -> None:
    """A warning that does not fail the command: on stderr, or as a workflow command."""
    if fmt == "github":
        click.echo(github_command("warning", message, file))
    else:
        say(f"warning: {message}", err=True)


@contextmanager
def problems_as(fmt: str) -> Iterator[None]:
    """Print the problems of a ProblemsError raised inside in `fmt` (json and github on stdout), then
    re-raise it with the summary alone, so the exit code stays; text is left to the CLI's own report."""
    try:
        yield
    except BuilderError as exc:
        if fmt == "text":
            raise
        problems = exc.problems if isinstance(exc, ProblemsError) else [Problem("", "", str(exc))]
        for problem in problems:
            if fmt == "github" and not problem.path:
                click.echo(github_command("error", problem.message, title="builder"))
            else:
                click.echo(render(problem, fmt))
        summary = BuilderError(str(exc))
        summary.exit_code = exc.exit_code
        raise summary from exc
