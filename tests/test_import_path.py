"""No module in the current folder is ever imported by the builder, whatever the import path says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import slow_after

BUILDER = str(Path(sys.executable).parent / "builder")
PYTHON_M = [sys.executable, "-m", "builder"]


@pytest.mark.parametrize(
    ("entry", "pythonpath"),
    slow_after(  # each a process running validate, about 2 s
        [
            pytest.param([BUILDER], ".", id="builder, PYTHONPATH=."),
            pytest.param([BUILDER], ":/opt/lib", id="builder, PYTHONPATH with an empty first part"),
            pytest.param([BUILDER], "/opt/lib:", id="builder, PYTHONPATH with an empty last part"),
            pytest.param(PYTHON_M, None, id="python -m builder"),
            pytest.param(PYTHON_M, "/opt/lib::/srv", id="python -m builder, empty middle part"),
        ]
    ),
)
def test_a_planted_plugin_in_the_current_folder_never_runs(
    repo_copy: Path, entry: list[str], pythonpath: str | None
) -> None:
    """Frictionless imports every `frictionless_*` module on the path as a plugin; one planted in an
    unpacked archive's root would run under `builder validate` if the current folder were on the path."""
    marker = repo_copy.parent / "ran"
    (repo_copy / "frictionless_planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (repo_copy / "click.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    run = subprocess.run([*entry, "validate"], cwd=repo_copy, env=env, capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout) == (0, "data: valid\n")
    assert run.stderr.startswith("warning: metadata.toml: repository"), run.stderr  # the placeholder URL
    assert not marker.exists()
