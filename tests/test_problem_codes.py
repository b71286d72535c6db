"""Every problem names its rule by a stable code, and an `expected ..., found ...` one carries
both sides."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from builder.errors import Problem, Said
from helpers import REPO
from rules import rule_findings
from test_validate_corpus import CASES

SOURCES = REPO / "src" / "builder"


def uncoded(tree: ast.AST) -> list[int]:
    """The lines of each `Problem(...)` call in `tree` that passes no code (4th argument or
    code=)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Problem"
        and len(node.args) < 4
        and not any(k.arg == "code" for k in node.keywords)
    ]


def test_every_problem_made_in_the_builder_names_a_code() -> None:
    found = {
        str(path.relative_to(REPO)): lines
        for path in sorted(SOURCES.rglob("*.py"))
        if (lines := uncoded(ast.parse(path.read_text(), str(path))))
    }
    assert found == {}


def test_the_scan_finds_a_problem_without_a_code() -> None:
    source = (
        'Problem(p, "/", "x")\nProblem(p, "/", "x", "rule.a")\nProblem(p, "/", "x", code="rule.b")'
    )
    assert uncoded(ast.parse(source)) == [1]


def test_said_keeps_both_sides_and_renders_the_message() -> None:
    said = Said("a value >= 1", "0", " (note)")
    assert said == "expected a value >= 1, found 0 (note)"
    problem = Problem.of("a.json", "/x", "schema.minimum", said)
    assert (problem.message, problem.code, problem.expected, problem.found) == (
        said,
        "schema.minimum",
        "a value >= 1",
        "0",
    )
    plain = Problem.of("a.json", "/x", "rule.c", "not a statement")
    assert (plain.code, plain.expected, plain.found) == ("rule.c", None, None)


def is_statement(message: str) -> bool:
    """Whether a message is an `expected ..., found ...` statement."""
    return message.startswith("expected ") and ", found " in message


def check_fields(problems: list[Problem]) -> None:
    assert problems
    for p in problems:
        assert p.code not in ("", "unclassified"), p
        if is_statement(p.message):
            assert None not in (p.expected, p.found), p
            assert p.message.startswith(f"expected {p.expected}, found {p.found}"), p


RULE_CASES = [c for c in CASES if not c.id.startswith("tables-")]


@pytest.mark.parametrize(("apply", "expected"), RULE_CASES)
def test_every_planted_problem_has_a_code_and_its_sides(reused_copy: Path, apply, expected) -> None:
    apply(reused_copy / "data")
    check_fields(rule_findings(reused_copy / "data"))


@pytest.mark.slow
def test_validate_json_gives_each_problem_a_code_and_its_sides(repo_copy: Path, cli) -> None:
    """One planted error (a physics law broken) through `builder validate --format json`."""
    path = repo_copy / "data" / "models" / "qwen-3-8b.json"
    doc = json.loads(path.read_text())
    doc["configurations"][0]["avg_running_batch"] += 1
    path.write_text(json.dumps(doc, indent=2) + "\n")
    result = cli("validate", "--format", "json")
    assert result.exit_code == 1
    problems = json.loads(result.stdout)["problems"]
    assert {p["code"] for p in problems} >= {"physics.avg_running_batch"}
    for p in problems:
        assert p["code"] not in ("", "unclassified"), p
        if is_statement(p["message"]):
            assert None not in (p["expected"], p["found"]), p
