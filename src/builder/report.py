"""Reporters: a check's problems as text lines, JSON lines or GitHub workflow commands, every untrusted part escaped."""

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
    """The problem's parts, escaped; expected and found are null unless its message is `expected ..., found ...`."""
    parts = EXPECTED_FOUND.fullmatch(problem.message)
    return {
        "file": printable(problem.path),
        "pointer": printable(problem.where),
        "expected": printable(parts["expected"]) if parts else None,
        "found": printable(parts["found"]) if parts else None,
        "message": printable(problem.message),
    }


def _escaped(text: str, separators: str = "") -> str:
    """Text made `printable`, then % (and each of `separators`) escaped as the workflow runner unescapes it."""
    return "".join(f"%{ord(c):02X}" if c in "%" + separators else c for c in printable(text))


def github_command(level: str, message: str, file: str | None = None, title: str | None = None) -> str:
    """`::error file=F,title=T::message` (level error, warning or notice), every part escaped."""
    parts = (("file", file), ("title", title))
    props = [f"{key}={_escaped(value, ':,')}" for key, value in parts if value]
    text = _escaped(message)
    return f"::{level} {','.join(props)}::{text}" if props else f"::{level}::{text}"


def render(problem: Problem, fmt: str) -> str:
    """One problem as a line of `fmt`; a workflow command without a file is titled `builder`."""
    if fmt == "json":
        return json.dumps(as_json(problem), ensure_ascii=False, allow_nan=False)
    if fmt == "github" and not problem.path:
        return github_command("error", problem.message, title="builder")
    if fmt == "github":
        return github_command("error", f"{problem.where}: {problem.message}", problem.path, problem.where)
    return printable(str(problem))


def say(text: str, err: bool = False) -> None:
    """Print one message line made `printable`: a newline or ESC inside shows as an escape, never acts."""
    click.echo(printable(text), err=err)


def warn(message: str, fmt: str, file: str | None = None) -> None:
    """A warning that does not fail the command: on stderr, or as a workflow command."""
    if fmt == "github":
        click.echo(github_command("warning", message, file))
    else:
        say(f"warning: {message}", err=True)


@contextmanager
def problems_as(fmt: str) -> Iterator[None]:
    """Print an error's problems as `fmt` asks (text: left to the CLI), then re-raise its summary with its exit code."""
    try:
        yield
    except BuilderError as exc:
        if fmt == "text":
            raise
        problems = exc.problems if isinstance(exc, ProblemsError) else [Problem("", "", str(exc))]
        for problem in problems:
            click.echo(render(problem, fmt))
        summary = BuilderError(str(exc))
        summary.exit_code = exc.exit_code
        raise summary from exc
