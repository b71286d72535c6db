"""One exception tree for the builder; cli.py alone turns it into exit codes."""

import json
from dataclasses import dataclass
from typing import Any, NamedTuple


@dataclass(frozen=True, order=True)
class Problem:
    """One finding: which file, where in it (a JSON pointer or a row), and what is wrong.

    A check that knows more says it as values, never only in the message: `code` names the rule
    (stable across wordings, such as "schema.minimum"), `expected` and `found` the two sides, and
    `line` and `col` (1-based) the place in the file. Reporters read these fields, never the
    message.
    """

    path: str
    where: str
    message: str
    code: str = ""
    expected: str | None = None
    found: str | None = None
    line: int | None = None
    col: int | None = None

    @classmethod
    def mismatch(
        cls, path: str, where: str, code: str, expected: str, found: str, note: str = ""
    ) -> "Problem":
        """A problem whose message is made from its fields: `expected ..., found ...`, then
        `note` as written."""
        return cls(path, where, f"expected {expected}, found {found}{note}", code, expected, found)

    @classmethod
    def of(cls, path: str, where: str, code: str, said: "Said") -> "Problem":
        """A problem from a check's Said: its message, its expected and its found."""
        return cls(path, where, str(said), code, said.expected, said.found)

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.message}"


class Said(str):
    """A message `expected ..., found ...` (then `note`) that keeps its two sides as values for
    Problem.of."""

    expected: str
    found: str
    note: str

    def __new__(cls, expected: str, found: str, note: str = "") -> "Said":
        said = super().__new__(cls, f"expected {expected}, found {found}{note}")
        said.expected, said.found, said.note = expected, found, note
        return said

    def noted(self, more: str) -> "Said":
        """The same two sides, `more` added to the note."""
        return Said(self.expected, self.found, self.note + more)


class Finding(NamedTuple):
    """A rule one value breaks: where (a JSON pointer), the rule's code, and its Said."""

    where: str
    code: str
    said: Said


def shown(value: Any, limit: int = 80) -> str:
    """A value as a message shows it: JSON (a NaN as Python writes it), escaped, cut to `limit`
    characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def pointer(parts: Any) -> str:
    """A JSON pointer to the place `parts` (keys and indexes) names, safe to print."""
    return printable("/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts))


def printable(text: str) -> str:
    """Untrusted text safe to print on one line: non-printable characters (newline, ESC, U+202E)
    as escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def printable_lines(text: str) -> str:
    """Text of several lines safe to print: each line made `printable`, the line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


class BuilderError(Exception):
    """Base of every error the builder reports to its user."""

    exit_code = 1


class InputError(BuilderError):
    """An input file (pin, lock, metadata, upstream) is missing or wrong; `problem`: the finding
    its message says, when a check made one (--format json and github print its fields)."""

    def __init__(self, message: str, problem: Problem | None = None) -> None:
        super().__init__(message)
        self.problem = problem


class ProblemsError(BuilderError):
    """Many findings at once; each is printed on its own line."""

    def __init__(self, summary: str, problems: list[Problem]) -> None:
        super().__init__(summary)
        self.problems = problems


class UpstreamError(ProblemsError):
    """Upstream content is not sound enough to publish from."""


class ModelFilesError(UpstreamError):
    """Per-model upstream files that are missing or disagree with their task files."""


class ValidationError(ProblemsError):
    """Published files break a schema, a table rule, a cross-file rule or physics."""


class OutputError(BuilderError):
    """The output folder cannot be written."""


class FetchError(BuilderError):
    """Upstream could not be fetched, or answered with something unusable."""


class UnreachableError(FetchError):
    """No HTTP answer at all: refused, timed out, reset."""

    exit_code = 3


class ReleaseError(BuilderError):
    """A release precondition does not hold."""
