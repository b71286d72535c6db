"""Hostile corpus of what ships and when: a file under data/ that is not published, a tag or a date that lies,
and a push that could half-happen.

One case per class. Every refused case holds the command to tests/hostile.py: its exit code, one escaped
line naming the culprit, no traceback, and every pre-existing file (refs, HEAD and config too) unchanged.
"""

from __future__ import annotations

from pathlib import Path

from hostile import assert_refused, run_cli, tree_digest


def problem_lines(output: str, name: str) -> list[str]:
    return [line for line in output.splitlines() if name in line]


def test_a_dotfile_under_data_is_refused_by_validate(repo_copy: Path) -> None:
    models = repo_copy / "data" / "models"
    (models / ".qwen-3-8b.json").write_bytes((models / "qwen-3-8b.json").read_bytes())
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    assert_refused(outcome, 1, "data/models/.qwen-3-8b.json", before, tree_digest(repo_copy))
    assert problem_lines(outcome.output, ".qwen-3-8b.json") == [
        "data/models/.qwen-3-8b.json: /: expected only published files, found a stray file"
    ]
