"""The README's consumer commands, run as written, offline, on a release built from the working tree.

Every ```sh block after a `<!-- consumer-test -->` line in README.md runs with bash in a fresh
folder holding the release's dist/ files and a clone named leadgreen-data, with `python` a fresh
virtual environment's (pip included) and check-jsonschema and frictionless from the test
environment. The README's example version is replaced by the built one. Where the machine
allows (`unshare -n`), each block runs with no network at all. Also: the data dictionary names
every field of every schema and every CSV column.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from consumer_release import Built, built, fresh_venv, offline_pip_env

pytestmark = pytest.mark.slow

README = REPO / "README.md"
EXAMPLE_VERSION = "2026.10.19"
MARKER = "<!-- consumer-test -->"
BLOCK = re.compile(re.escape(MARKER) + r"\n```sh\n(?P<body>.*?)\n```\n", re.DOTALL)


def blocks() -> list[str]:
    return [m["body"] for m in BLOCK.finditer(README.read_text())]


def test_every_marked_block_is_a_sh_block() -> None:
    text = README.read_text()
    assert text.count(MARKER) == len(blocks()) == 4


def test_the_readme_shows_every_route_and_the_offline_schema_check() -> None:
    text = README.read_text()
    assert "python -m pip install leadgreen-data==2026.10.19" in text
    assert "https://raw.githubusercontent.com/<owner>/leadgreen-data/v2026.10.19/data/" in text
    assert "sha256sum -c SHA256SUMS" in text
    assert "pd.read_csv(" in text
    command = (
        "check-jsonschema --base-uri file://$PWD/schemas/ --schemafile schemas/model.schema.json data/models/*.json"
    )
    assert command in blocks()[2]
    assert "frictionless[json]" in text


@pytest.fixture(scope="module")
def release() -> Built:
    return built()


@pytest.fixture(scope="module")
def path_env(release: Built) -> dict[str, str]:
    """PATH: a fresh venv's python (with pip), then this environment's tools, then the system's."""
    python = fresh_venv(release.root / "readme-venv")
    tools = Path(sys.executable).parent
    path = os.pathsep.join([str(python.parent), str(tools), os.environ.get("PATH", "")])
    return {**offline_pip_env(), "PATH": path, "VIRTUAL_ENV": str(python.parent.parent)}


def _no_network_prefix() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


@pytest.mark.parametrize("number", range(4), ids=["pip", "raw-file", "archive", "pandas"])
def test_readme_block_runs_offline(number: int, release: Built, path_env: dict[str, str], tmp_path: Path) -> None:
    body = blocks()[number].replace(EXAMPLE_VERSION, release.version)
    if "import pandas" in body:
        has = subprocess.run(["python", "-c", "import pandas"], env=path_env, capture_output=True)
        if has.returncode != 0:
            pytest.skip("pandas is not installed where the README's python runs")
    for item in release.dist.iterdir():
        shutil.copy2(item, tmp_path / item.name)
    subprocess.run(["git", "clone", "--quiet", str(release.repo), str(tmp_path / "leadgreen-data")], check=True)
    run = subprocess.run(
        [*_no_network_prefix(), "bash", "-euo", "pipefail", "-c", body],
        cwd=tmp_path,
        env=path_env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"{body}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
    best = json.loads((release.repo / "data" / "models" / "qwen-3-8b.json").read_bytes())["best"]["H100"]
    expected = {
        0: [f"leadgreen-data {release.version} (tag {release.tag})", str(best["wh_per_million_output_tokens"])],
        1: [json.loads((release.repo / "data" / "models" / "qwen-3-8b.json").read_bytes())["data_version"]],
        2: ["OK", "ok -- validation done", "VALID"],
        3: ["wh_per_million_output_tokens"],
    }[number]
    for text in expected:
        assert text in run.stdout, (text, run.stdout)


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
            continue  # the descriptor's keys are the Data Package standard's, not fields of the data
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
