"""`builder validate --format`: the same problems as text, JSON lines or GitHub workflow commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.errors import Problem
from builder.report import as_json, github_command, render

BROKEN = {
    "data/models/qwen-3-8b.json": "/configurations/0/tensor_parallel",
    "data/workloads/image-chat/models.json": "/models/0/params_b",
}


@pytest.fixture
def broken(repo_copy: Path) -> Path:
    """Two documents broken in two workloads (and so, the descriptor's hashes of both)."""
    for rel, pointer in BROKEN.items():
        path = repo_copy / rel
        doc = json.loads(path.read_text())
        *parents, key = pointer.strip("/").split("/")
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[key] = 0
        path.write_text(json.dumps(doc, indent=2) + "\n")
    return repo_copy


def test_json_prints_one_object_per_problem(broken: Path, cli) -> None:
    result = cli("validate", "--format", "json")
    assert result.exit_code == 1
    found = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(set(item) == {"file", "pointer", "expected", "found", "message"} for item in found)
    assert {
        "file": "data/models/qwen-3-8b.json",
        "pointer": "/configurations/0/tensor_parallel",
        "expected": "a value >= 1",
        "found": "0",
        "message": "expected a value >= 1, found 0",
    } in found
    files = {item["file"] for item in found}
    assert files >= {*BROKEN, "datapackage.json"}
    assert "error: data: " in result.stderr


@pytest.mark.slow  # a whole validate; test_json_prints_one_object_per_problem is the failing smoke case
def test_github_prints_an_error_command_on_the_file_for_each_problem(broken: Path, cli) -> None:
    text = cli("validate").stderr.splitlines()
    problems = [line for line in text if not line.startswith("error: ")]
    result = cli("validate", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(problems) >= 3
    assert all(line.startswith("::error file=data") for line in lines)
    assert (
        "::error file=data/models/qwen-3-8b.json,title=/configurations/0/tensor_parallel::"
        "/configurations/0/tensor_parallel: expected a value >= 1, found 0"
    ) in lines


@pytest.mark.slow  # three whole validates; test_validate.py's committed validate is the clean smoke case
def test_a_clean_package_prints_the_same_in_every_format(committed_validate) -> None:
    for fmt in ("text", "json", "github"):
        result = committed_validate(fmt)
        assert (result.exit_code, result.stdout.splitlines()[-1]) == (0, "data: valid"), fmt


def test_an_unknown_format_is_a_usage_error(in_repo, cli) -> None:
    result = cli("validate", "--format", "xml")
    assert result.exit_code == 2
    assert "'xml' is not one of 'text', 'json', 'github'" in result.output


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        pytest.param(
            Problem("data/a,b.json", "/x", "expected 1, found 2"),
            "::error file=data/a%2Cb.json,title=/x::/x: expected 1, found 2",
            id="comma-in-file",
        ),
        pytest.param(
            Problem("data/a:b.json", "/x:y", "expected 100%, found 5\r\nrows"),
            "::error file=data/a%3Ab.json,title=/x%3Ay::/x:y: expected 100%25, found 5\\r\\nrows",  # never a line break
            id="colon-percent-newline",
        ),
    ],
)
def test_github_escapes_what_the_workflow_command_syntax_reserves(problem: Problem, expected: str) -> None:
    assert render(problem, "github") == expected


def test_a_message_of_another_shape_has_no_expected_or_found() -> None:
    item = as_json(Problem("data/index.json", "", "cannot be read"))
    assert (item["expected"], item["found"], item["message"]) == (None, None, "cannot be read")


def test_a_command_without_a_file_has_no_properties() -> None:
    assert github_command("warning", "a: b") == "::warning::a: b"
