"""Lighter installs: `pip install -e .` builds and validates; site and release dependencies are
extras."""

from __future__ import annotations

import tomllib

import pytest

import builder.cli_options
from helpers import REPO
from test_workflows import load, steps

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _names(requirements: list[str]) -> set[str]:
    return {
        req.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()
        for req in requirements
    }


def test_the_core_install_has_no_site_or_release_dependency() -> None:
    assert _names(PROJECT["dependencies"]).isdisjoint(
        {"jinja2", "matplotlib", "flit_core", "pyproject_hooks"}
    )
    extras = PROJECT["optional-dependencies"]
    assert _names(extras["site"]) == {"jinja2", "matplotlib"}
    assert _names(extras["release"]) == {"flit_core", "pyproject_hooks"}
    assert "leadgreen-data-builder[site,release]" in extras["test"]  # the tests use every command


def test_the_workflows_install_the_extra_they_use() -> None:
    pages = [s.get("run", "") for s in steps(load("pages.yml")["jobs"]["build"])]
    assert "python -m pip install '.[site]'" in pages
    release = [s.get("run", "") for s in steps(load("release.yml")["jobs"]["build"])]
    assert "python -m pip install --quiet '.[release]'" in release


@pytest.mark.parametrize(
    ("command", "extra", "missing"),
    [("site", "site", "jinja2, matplotlib"), ("dist", "release", "flit_core, pyproject_hooks")],
)
def test_a_command_without_its_extra_says_which_to_install(
    in_repo, cli, monkeypatch: pytest.MonkeyPatch, command: str, extra: str, missing: str
) -> None:
    monkeypatch.setattr(builder.cli_options, "find_spec", lambda name: None)
    result = cli(command)
    assert result.exit_code == 1
    assert (
        f"error: builder {command}: expected {missing} (the {extra} extra), found none installed; "
        f"run pip install -e '.[{extra}]'"
    ) in result.stderr
