"""The README's and the wheel README's code, run as written, offline, on a release built from the
working tree.

Every ```sh and ```python block of README.md's consumer part ("Use the data") and of
reader/README.md is followed by a ```text block: what it prints. The blocks run in order in one
folder holding the release's dist/ files and a clone named leadgreen-data; `python` is a fresh
virtual environment's (pip included, the index replaced by dist/, so `pip install
leadgreen-data==VERSION` installs the release's wheel offline), with check-jsonschema and
frictionless from the test environment. Python blocks run with the test environment's python
(where pandas is) reading the fresh environment's packages. Where the machine allows
(`unshare -n`), each block runs with no network at all. Every block's output must equal its
text block (the fresh environment's path shown as .venv). The versions in both READMEs must
be the current data version's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.release.rules import Version
from consumer_release import Built, built, fresh_venv, offline_pip_env
from helpers import REPO

README = REPO / "README.md"
READER_README = REPO / "reader" / "README.md"
CONSUMER_PART = ("## Use the data\n", "## What is published\n")
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$", re.M | re.S)
RUNNABLE = ("sh", "python")
# The contributor blocks outside the consumer part: the two commands (CI runs the test command
# verbatim, from .ci/run) and illustrations (the validate output, the layout).
TEST_COMMAND = (
    "python3.11 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
    ".venv/bin/python -m pytest"
)
SLOW_COMMAND = (
    ".venv/bin/python -m pytest -m slow"  # the slow tier, which CI runs after the test command
)


@dataclass(frozen=True)
class Example:
    where: str
    lang: str
    code: str
    output: str


def fences(text: str) -> list[tuple[str, str]]:
    return [(m["lang"], m["body"]) for m in FENCE.finditer(text)]


def consumer_part(text: str) -> str:
    start, end = (text.index(heading) for heading in CONSUMER_PART)
    return text[start:end]


def examples(text: str, where: str) -> list[Example]:
    """Each runnable block with the text block after it; a block in any other arrangement is an
    error."""
    found, blocks = [], fences(text)
    for i in range(0, len(blocks), 2):
        (lang, code), after = blocks[i], blocks[i + 1] if i + 1 < len(blocks) else ("", "")
        assert (lang, after[0]) in {(run, "text") for run in RUNNABLE}, (
            f"{where}: expected code then text: {code}"
        )
        found.append(Example(f"{where} #{len(found) + 1}", lang, code, after[1]))
    return found


def all_examples() -> list[Example]:
    return examples(consumer_part(README.read_text()), "README") + examples(
        READER_README.read_text(), "reader"
    )


def current_version() -> str:
    data_version = json.loads((REPO / "datapackage.json").read_bytes())["version"]
    return Version(data_version).number


# Fast: the shape of the READMEs


def test_every_consumer_block_is_code_then_its_output() -> None:
    assert [e.where for e in all_examples()] == [
        *(f"README #{i}" for i in range(1, 8)),
        "reader #1",
        "reader #2",
    ]


def test_the_consumer_part_comes_first() -> None:
    text = README.read_text()
    assert (
        text.index("## Use the data")
        < text.index("## For contributors")
        < text.index("## Contributing")
    )
    assert text.index("pip install --quiet leadgreen-data==") < 1200  # on the first screen


def test_the_blocks_outside_the_consumer_part_are_the_two_commands_and_illustrations() -> None:
    text = README.read_text()
    outside = text.replace(consumer_part(text), "")
    code = [body for lang, body in fences(outside) if lang in RUNNABLE]
    assert len(code) == 1
    assert TEST_COMMAND in code[0].splitlines()
    assert SLOW_COMMAND in code[0].splitlines()
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    nox = ".venv/bin/nox --non-interactive -s lint validate drift"
    assert ci.index(TEST_COMMAND) < ci.index(SLOW_COMMAND) < ci.index(nox)


def test_the_test_command_leaves_the_slow_tier_to_its_own_step() -> None:
    """Plain pytest deselects the slow cases; `-m slow` (CI, `nox -s slow`) selects only them."""
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"][
        "addopts"
    ]
    assert options[options.index("-m") + 1] == "not slow"
    assert (
        'run(session, "python", "-m", "pytest", "-m", "slow", *session.posargs)'
        in (REPO / "noxfile.py").read_text()
    )


@pytest.mark.parametrize("path", [README, READER_README], ids=["README", "reader"])
def test_examples_name_the_current_version(path: Path) -> None:
    text = path.read_text()
    version = current_version()
    dotted = set(re.findall(r"(?<![\d.])\d{4}\.\d{1,2}\.\d{1,2}(?![\d])", text))
    assert dotted == {version}
    data_version = json.loads((REPO / "datapackage.json").read_bytes())["version"]
    assert data_version in text


@pytest.mark.parametrize("path", [README, READER_README], ids=["README", "reader"])
def test_comparisons_select_one_workload(path: Path) -> None:
    """Every call that returns numbers of many models names its workload, or relies on the one
    default."""
    for example in examples(
        consumer_part(path.read_text()) if path == README else path.read_text(), path.name
    ):
        assert "configurations()" not in example.code, example.where
        if "groupby" in example.code or "sort_values" in example.code:
            assert re.search(r'configurations\("[a-z-]+"\)|workload == "', example.code), (
                example.where
            )


# Slow: the blocks run


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def _no_network_prefix() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


@pytest.fixture(scope="module")
def release() -> Built:
    return built()


@pytest.fixture(scope="module")
def ran(release: Built) -> dict[str, Ran]:
    """Every example, in order, in one folder: the dist files, a clone, a fresh venv."""
    folder = release.root / "readme"
    folder.mkdir()
    for item in release.dist.iterdir():
        shutil.copy2(item, folder / item.name)
    subprocess.run(
        ["git", "clone", "--quiet", str(release.repo), str(folder / "leadgreen-data")], check=True
    )
    python = fresh_venv(release.root / "readme-venv")
    site = sysconfig.get_path("purelib", vars={"base": str(python.parent.parent)})
    tools = Path(sys.executable).parent
    env = {
        **offline_pip_env(),
        "PIP_FIND_LINKS": str(release.dist),
        "PATH": os.pathsep.join([str(python.parent), str(tools), os.environ.get("PATH", "")]),
        "VIRTUAL_ENV": str(python.parent.parent),
    }
    results = {}
    for example in all_examples():
        if example.lang == "sh":
            cmd = ["bash", "-euo", "pipefail", "-c", example.code]
            extra = {}
        else:
            cmd, extra = [sys.executable, "-c", example.code], {"PYTHONPATH": site}
        run = subprocess.run(
            [*_no_network_prefix(), *cmd],
            cwd=folder,
            env={**env, **extra},
            capture_output=True,
            text=True,
        )
        # the venv's path, as a user's .venv
        shown = run.stdout.replace(str(python.parent.parent), ".venv")
        results[example.where] = Ran(run.returncode, shown, run.stderr)
    return results


@pytest.mark.slow
@pytest.mark.parametrize("example", all_examples(), ids=lambda e: e.where.replace(" #", "-"))
def test_example_prints_what_the_readme_shows(example: Example, ran: dict[str, Ran]) -> None:
    done = ran[example.where]
    assert done.code == 0, f"{example.code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.stdout.rstrip("\n") == example.output.rstrip("\n"), (
        f"{example.where} printed:\n{done.stdout}"
    )


# The data dictionary


def _schema_fields() -> set[str]:
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            found.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in (REPO / "schemas").glob("*.schema.json"):
        if path.name == "datapackage.schema.json":
            # the descriptor's keys are the Data Package standard's, not fields of the data
            continue
        walk(json.loads(path.read_bytes()))
        found.update(json.loads(path.read_bytes()).get("$defs", {}))
    return found - {"date", "configuration"}  # definitions that are not fields


def test_the_data_dictionary_names_every_field_and_column() -> None:
    text = (REPO / "docs" / "data-dictionary.md").read_text()
    missing = sorted(name for name in _schema_fields() if f"`{name}`" not in text)
    assert missing == []
    header = (REPO / "data" / "configurations.csv").read_text().splitlines()[0].split(",")
    assert sorted(name for name in header if f"`{name}`" not in text) == []


def test_the_data_dictionary_speaks_to_readers() -> None:
    text = (REPO / "docs" / "data-dictionary.md").read_text().lower()
    assert "builder" not in text
    assert " must " not in text
