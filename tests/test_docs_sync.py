"""Docs and help that cannot drift from the files: counts, option names and exit codes.

The counts the README and the data dictionary state (workloads, tables, upstream task files)
are checked against datapackage.json; every `--option` the docs name is an option of the
command it belongs to (the builder's, the reader's, or the outside tool's listed here); every
command's help gives its exit codes and names options, not placeholders, for its folders.
"""

from __future__ import annotations

import json
import re

import click
import pytest

from builder.cli import main
from helpers import REPO

DOCS = [
    REPO / "README.md",
    REPO / "CONTRIBUTING.md",
    REPO / "reader" / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
]
DESCRIPTOR = json.loads((REPO / "datapackage.json").read_bytes())
WORKLOADS = json.loads((REPO / "data" / "workloads.json").read_bytes())["workloads"]
WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
# Options of the other tools the docs show: python -m leadgreen_data, pip, check-jsonschema, git,
# mypy.
OUTSIDE = {
    "--workload",
    "--json",
    "--help",
    "--quiet",
    "--base-uri",
    "--schemafile",
    "--tags",
    "--unshallow",
}
OUTSIDE |= {"--depth", "--branch", "--strict", "--atomic", "--ff-only"}  # git's
ACRONYMS = {
    "JSON",
    "CSV",
    "URL",
    "HTTP",
    "GPU",
    "OLD",
    "NEW",
    "SOURCE_DATE_EPOCH",
    "SHA256SUMS",
    "API",
    "ITL",
    "HEAD",
}


def builder_options() -> set[str]:
    found = set()
    for command in main.commands.values():
        for param in command.params:
            if isinstance(param, click.Option):
                found.update(name for name in param.opts if name.startswith("--"))
    return found


def test_every_option_the_docs_name_exists() -> None:
    known = builder_options() | OUTSIDE
    named = {
        (path.name, opt)
        for path in DOCS
        for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", path.read_text())
    }
    assert sorted((name, opt) for name, opt in named if opt not in known) == []


def _help(name: str) -> str:
    return click.testing.CliRunner().invoke(main, [name, "--help"]).output


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_commands_help_gives_its_exit_codes(name: str) -> None:
    text = " ".join(_help(name).split())
    assert re.search(r"Exits 0 .*[,;] 2 on usage errors", text), text


@pytest.mark.parametrize("name", sorted(main.commands))
def test_help_names_no_folder_by_a_placeholder(name: str) -> None:
    """A folder given by an option is called by the option (`--out`), not OUT, which reads as an
    argument."""
    command = main.commands[name]
    arguments = {p.name.upper() for p in command.params if isinstance(p, click.Argument) and p.name}
    words = set(re.findall(r"\b[A-Z][A-Z_0-9]{2,}\b", command.help or ""))
    assert words - arguments - ACRONYMS == set()


def test_dist_help_says_what_the_archives_dates_are() -> None:
    text = " ".join(_help("dist").split())
    assert "the archive's the release's data version date" in text
    assert "wheel's timestamps are the tagged commit's date" in text


def test_the_counts_in_the_docs_are_the_packages() -> None:
    tables = [r for r in DESCRIPTOR["resources"] if "schema" in r]
    dictionary = (REPO / "docs" / "data-dictionary.md").read_text()
    assert f"{len(tables)} of them are tables" in dictionary
    tasks = [s for s in DESCRIPTOR["sources"] if not s["path"].endswith("/")]
    folders = len(DESCRIPTOR["sources"]) - len(tasks)  # per-model files: a source per folder
    assert f"One entry per upstream task file, {len(tasks)} in all" in dictionary
    assert f"per upstream folder, commit and mirror folder, {folders} today" in dictionary
    readme = (REPO / "README.md").read_text()
    assert f"for {WORDS[len(WORKLOADS)]} workloads from" in readme
    assert f"today's {WORDS[len(tasks)]} task files" in (REPO / "CONTRIBUTING.md").read_text()
    rows = re.findall(
        r"^\| `([a-z-]+)` \| [^|]+ \| `[a-z-]+` \| \d+ \| \d+ \|$", readme, re.MULTILINE
    )
    assert rows == [w["id"] for w in WORKLOADS]
    documents = (REPO / "docs" / "v1-documents.md").read_text()
    assert f"Our workloads are {WORDS[len(WORKLOADS)]} of its" in documents
