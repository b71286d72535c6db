"""Untrusted text in the diff, the changelog and the reporters: escaped, on its own line, inside
its block."""

from __future__ import annotations

import json

from builder.changes import Change
from builder.diff import Diff, render_text
from builder.errors import Problem
from builder.release.rules import Version, changelog_entry
from builder.report import as_json, render_problem

FAKE = "fake: /: all good"


def hostile_diff() -> Diff:
    diff = Diff(data_version=("2026-01-01", "2026-01-02"))
    diff.models.added = [f"evil\n{FAKE}"]
    diff.best.changed = [Change("m\x1b[31m H100", "name", "a", "b\u202e")]
    diff.headers.changed = [
        Change("index.json", "caveat", "x", "```\n@maintainers ![x](https://evil.example/x.png)")
    ]
    return diff


def test_the_diff_text_keeps_each_change_on_its_line() -> None:
    text = render_text(hostile_diff())
    lines = text.splitlines()
    assert "models added: evil\\nfake: /: all good" in lines
    assert 'best changed: m\\x1b[31m H100 name: "a" -> "b\\u202e"' in lines
    assert not any(line.startswith(FAKE) for line in lines)
    assert all(line.isprintable() for line in lines)


def test_the_changelog_fence_cannot_be_closed_by_a_value() -> None:
    entry = changelog_entry(
        Version("2026-01-02"), "1", Version("2026-01-01"), hostile_diff(), None, ""
    )
    lines = entry.splitlines()
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    assert len(fences) == 2, lines
    assert lines[fences[0]] == lines[fences[1]] == "````"  # one longer than the ``` inside


def test_json_lines_and_workflow_commands_escape_every_part() -> None:
    problem = Problem("data/a\x1b]0;t\x07.json", f"/x\n{FAKE}", "expected 1, found \u202e2")
    item = as_json(problem)
    assert item == {
        "code": "unclassified",
        "file": "data/a\\x1b]0;t\\x07.json",
        "pointer": "/x\\nfake: /: all good",
        "line": None,
        "col": None,
        "expected": None,
        "found": None,
        "message": "expected 1, found \\u202e2",
    }
    fields = Problem.mismatch("data/a.json", "/x", "rule\n2", "1\x1b", "\u202e2")
    assert (as_json(fields)["code"], as_json(fields)["expected"], as_json(fields)["found"]) == (
        "rule\\n2",
        "1\\x1b",
        "\\u202e2",
    )
    assert json.loads(render_problem(problem, "json")) == item
    for fmt in ("text", "json", "github"):
        shown = render_problem(problem, fmt)
        assert shown.isprintable(), (fmt, shown)  # no newline either
