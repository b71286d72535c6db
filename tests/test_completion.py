"""Shell completion of the `builder` command (click's _BUILDER_COMPLETE), as the README documents
it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from helpers import REPO

BUILDER = Path(sys.executable).parent / "builder"


def complete(**env: str) -> str:
    """What `builder` prints for the completion variables: the README's bash line as a process,
    the rest in process."""
    if env == {"_BUILDER_COMPLETE": "bash_source"}:
        run = subprocess.run(
            [str(BUILDER)], env={**os.environ, **env}, capture_output=True, text=True, cwd=REPO
        )
        assert run.returncode == 0, run.stderr
        return run.stdout
    result = CliRunner().invoke(main, [], env=env, prog_name="builder")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_readme_documents_completion() -> None:
    assert (
        'eval "$(_BUILDER_COMPLETE=bash_source builder)"' in (REPO / "CONTRIBUTING.md").read_text()
    )


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_script_is_printed(shell: str) -> None:
    assert "_BUILDER_COMPLETE" in complete(_BUILDER_COMPLETE=f"{shell}_source")


@pytest.mark.parametrize(
    ("words", "cword", "expected"),
    [
        pytest.param("builder val", "1", "plain,validate\n", id="command"),
        pytest.param(
            "builder validate --format ", "3", "plain,text\nplain,json\nplain,github\n", id="format"
        ),
    ],
)
def test_bash_completes_commands_and_choices(words: str, cword: str, expected: str) -> None:
    assert (
        complete(_BUILDER_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=cword) == expected
    )
