"""No module in the current folder is ever imported by the builder, whatever the import path
says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import builder
from helpers import slow_after

BUILDER = str(Path(sys.executable).parent / "builder")
PYTHON_M = [sys.executable, "-m", "builder"]


@pytest.mark.parametrize(
    ("entry", "pythonpath"),
    # each a process running validate, about 2 s; every form of the entry runs by rule below
    slow_after(
        [
            pytest.param([BUILDER], ".", id="builder, PYTHONPATH=."),
            pytest.param([BUILDER], ":/opt/lib", id="builder, PYTHONPATH with an empty first part"),
            pytest.param([BUILDER], "/opt/lib:", id="builder, PYTHONPATH with an empty last part"),
            pytest.param(PYTHON_M, None, id="python -m builder"),
            pytest.param(PYTHON_M, "/opt/lib::/srv", id="python -m builder, empty middle part"),
        ],
        fast=0,
    ),
)
def test_a_planted_plugin_in_the_current_folder_never_runs(
    repo_copy: Path, entry: list[str], pythonpath: str | None
) -> None:
    """Frictionless imports every `frictionless_*` module on the path as a plugin; one planted in an
    unpacked archive's root would run under `builder validate` if the current folder were on the
    path."""
    marker = repo_copy.parent / "ran"
    (repo_copy / "frictionless_planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (repo_copy / "click.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    run = subprocess.run(
        [*entry, "validate"], cwd=repo_copy, env=env, capture_output=True, text=True, timeout=120
    )
    assert (run.returncode, run.stdout) == (0, "data: valid\n")
    assert run.stderr == "", run.stderr
    assert not marker.exists()


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param("", id="empty entry (an empty PYTHONPATH part, python -m)"),
        pytest.param(".", id="dot"),
        pytest.param("HERE", id="the absolute path of the current folder"),
        pytest.param("HERE/", id="the absolute path with a trailing slash"),
        pytest.param("LINK", id="a link to the current folder"),
    ],
)
def test_every_form_of_the_current_folder_leaves_the_import_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """The rule the planted-plugin cases run through: what importing the builder drops from
    sys.path."""
    here = tmp_path / "archive"
    here.mkdir()
    (tmp_path / "link").symlink_to(here)
    monkeypatch.chdir(here)
    entry = entry.replace("HERE", str(here)).replace("LINK", str(tmp_path / "link"))
    kept = ["/opt/lib", str(tmp_path), "/srv", "a\0b"]  # a NUL cannot be resolved and is kept
    monkeypatch.setattr(sys, "path", [kept[0], entry, kept[1], entry, *kept[2:]])
    builder._drop_current_folder()
    assert sys.path == kept


def test_a_removed_current_folder_drops_only_the_relative_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.setattr(sys, "path", ["", "/opt/lib", ".", str(tmp_path)])
    builder._drop_current_folder()
    assert sys.path == ["/opt/lib", str(tmp_path)]
