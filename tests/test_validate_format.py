"""`builder validate --format`: the same problems as text, one JSON object or GitHub workflow
commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.errors import Problem
from builder.report import (
    GENERATED,
    as_json,
    github_command,
    github_report,
    located,
    render_problem,
    report_json,
)

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


KEYS = {"code", "file", "pointer", "line", "col", "expected", "found", "message"}


def test_json_prints_one_object_with_every_problem(broken: Path, cli) -> None:
    result = cli("validate", "--format", "json")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    doc = json.loads(line)
    assert (doc["valid"], doc["generated"]) == (False, GENERATED)
    assert all(set(item) == KEYS for item in doc["problems"])
    mine = [
        p
        for p in doc["problems"]
        if (p["file"], p["pointer"])
        == ("data/models/qwen-3-8b.json", BROKEN["data/models/qwen-3-8b.json"])
    ]
    assert [p["message"] for p in mine] == ["expected a value >= 1, found 0"]
    assert {item["file"] for item in doc["problems"]} >= {*BROKEN, "datapackage.json"}
    assert "error: data: " in result.stderr


def test_a_problem_with_fields_is_reported_by_its_fields() -> None:
    """expected and found come from the problem's fields, never from its message; a code names
    the rule."""
    problem = Problem.mismatch(
        "data/index.json", "/rows/0/num_gpus", "schema.minimum", "a value >= 1", "0"
    )
    assert as_json(problem) == {
        "code": "schema.minimum",
        "file": "data/index.json",
        "pointer": "/rows/0/num_gpus",
        "line": None,
        "col": None,
        "expected": "a value >= 1",
        "found": "0",
        "message": "expected a value >= 1, found 0",
    }
    # no fields: no parse
    worded = Problem("data/index.json", "/rows/0/num_gpus", "expected a value >= 1, found 0")
    assert (as_json(worded)["code"], as_json(worded)["expected"], as_json(worded)["found"]) == (
        "unclassified",
        None,
        None,
    )


def test_json_on_valid_data_is_an_object_too() -> None:
    assert json.loads(report_json([], "data: valid")) == {
        "valid": True,
        "summary": "data: valid",
        "problems": [],
        "generated": GENERATED,
    }


def test_a_problem_is_placed_on_its_line_and_column() -> None:
    from helpers import REPO

    placed = located(Problem("data/index.json", "/rows/3/gpu", "x"), REPO)
    line = (REPO / "data" / "index.json").read_text().splitlines()[placed.line - 1]  # type: ignore[operator]
    assert line[placed.col - 1 :].startswith('"')  # type: ignore[operator]
    assert line.strip().startswith('"gpu": ')
    # no such place: unknown
    assert located(Problem("data/index.json", "/rows/999/gpu", "x"), REPO).line is None


def test_github_gives_one_annotation_per_root_cause_and_says_how_to_regenerate() -> None:
    problems = [
        Problem("data/models/a.json", "/best/H100/x", "expected 1, found 2"),
        Problem("data/models/a.json", "/configurations/0/x", "expected 1, found 2"),
        Problem(
            "data/index.json", "/rows/1/x", "expected 2 as in models/a.json best[H100], found 1"
        ),
        Problem("datapackage.json", "/resources/9/hash", "expected sha256:1, found sha256:2"),
    ]
    lines = github_report(problems)
    assert lines == [
        "::error file=data/models/a.json,title=/best/H100/x::/best/H100/x: expected 1, found 2 "
        "(and 1 more problem(s) "
        "in this file); a generated file: fix its input and run `builder build`",
        "::notice title=derived::2 problem(s) in files derived from the above (data/index.json, "
        "datapackage.json) "
        "follow from them: `builder build` regenerates those files",
        f"::notice title=generated files::{GENERATED}",
    ]
    # never: copy the bad value into index.json
    assert not any("as in models/a.json" in line for line in lines)


# a whole validate; test_json_prints_one_object_per_problem is the failing smoke case
@pytest.mark.slow
def test_github_prints_an_error_command_on_the_file_for_each_problem(broken: Path, cli) -> None:
    text = cli("validate").stderr.splitlines()
    problems = [line for line in text if not line.startswith("error: ")]
    result = cli("validate", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    # one per broken document: the descriptor's hashes follow from them
    assert len(errors) == 2 < len(problems)
    assert all(line.startswith("::error file=data/") for line in errors)
    first = next(line for line in errors if "qwen-3-8b" in line)
    assert first.startswith("::error file=data/models/qwen-3-8b.json,line=")
    assert (
        ",title=schema.minimum::/configurations/0/tensor_parallel: expected a value >= 1" in first
    )
    assert lines[-1] == f"::notice title=generated files::{GENERATED.replace('%', '%25')}"


# three whole validates; test_validate.py's committed validate is the clean smoke case
@pytest.mark.slow
def test_a_clean_package_prints_the_same_in_every_format(committed_validate) -> None:
    for fmt in ("text", "github"):
        result = committed_validate(fmt)
        assert (result.exit_code, result.stdout.splitlines()[-1]) == (0, "data: valid"), fmt
    result = committed_validate("json")
    assert (result.exit_code, json.loads(result.stdout)["valid"]) == (0, True)


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
            # never a line break
            "::error file=data/a%3Ab.json,title=/x%3Ay::/x:y: expected 100%25, found 5\\r\\nrows",
            id="colon-percent-newline",
        ),
    ],
)
def test_github_escapes_what_the_workflow_command_syntax_reserves(
    problem: Problem, expected: str
) -> None:
    assert render_problem(problem, "github") == expected


def test_a_message_of_another_shape_has_no_expected_or_found() -> None:
    item = as_json(Problem("data/index.json", "", "cannot be read"))
    assert (item["expected"], item["found"], item["message"]) == (None, None, "cannot be read")


def test_a_command_without_a_file_has_no_properties() -> None:
    assert github_command("warning", "a: b") == "::warning::a: b"
