"""`builder validate` on the committed package, its exit codes, and its peers' verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, slow_after
from rules import rule_problems

BIN = Path(sys.executable).parent


def test_committed_package_is_valid(committed_validate) -> None:
    result = committed_validate("text")
    assert result.exit_code == 0, result.output
    assert result.stdout == "data: valid\n"


TWO_FAULTS = (
    "/configurations/0/tensor_parallel: expected a value >= 1, found 0",
    '/configurations/1/precision: expected enum ["BF16", "FP8", "MXFP4"], found "INT4"',
)


def plant_two_faults(repo: Path) -> None:
    path = repo / "data" / "models" / "qwen-3-8b.json"
    doc = json.loads(path.read_text())
    doc["configurations"][0]["tensor_parallel"] = 0
    doc["configurations"][1]["precision"] = "INT4"
    path.write_text(json.dumps(doc, indent=2) + "\n")


def test_every_problem_is_found_not_just_the_first(reused_copy) -> None:
    plant_two_faults(reused_copy)
    found = "\n".join(rule_problems(reused_copy / "data"))
    assert all(fault in found for fault in TWO_FAULTS), found
    # two schema faults (the stale hash is frictionless's: below)
    assert len(found.splitlines()) == 2, found


@pytest.mark.slow  # a whole `builder validate`; the case above runs its checks
def test_every_problem_is_reported_not_just_the_first(repo_copy, cli) -> None:
    plant_two_faults(repo_copy)
    result = cli("validate")
    assert result.exit_code == 1
    assert all(fault in result.output for fault in TWO_FAULTS), result.output
    assert "error: data: 3 problem(s)" in result.output  # two schema faults, and the stale hash


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--data", "no-such-folder"], id="missing-folder"),
        pytest.param(["--bogus"], id="unknown-option"),
    ],
)
def test_usage_errors_exit_2(in_repo, cli, args) -> None:
    assert cli("validate", *args).exit_code == 2


@pytest.mark.parametrize("command", ["validate", "drift"])
@pytest.mark.parametrize("where", ["root", "empty"])
def test_a_folder_that_is_no_data_folder_is_refused_in_one_line(
    in_repo, cli, tmp_path, command, where
) -> None:
    """`--data /` (or a home folder, or an empty one): one line, before anything below it is
    walked."""
    folder = "/" if where == "root" else str(tmp_path)
    result = cli(command, "--data", folder)
    assert result.exit_code == 1
    names = "index.json, models.json, workloads.json or configurations.csv"
    assert result.output.splitlines() == [
        f"error: {folder}: expected a data folder, with {names} at its top, found none of them"
    ]


@pytest.mark.parametrize(
    ("command", "code", "said"),
    [
        ("validate", 2, "expected a data folder, found an error (File name too long) at aaa"),
        ("drift", 1, "aaa: expected a data folder, found an error (File name too long)"),
    ],
)
def test_a_data_path_that_cannot_be_looked_up_is_refused_without_a_traceback(
    in_repo, cli, command, code, said
):
    result = cli(command, "--data", "a" * 300)
    # an error of ours, not a crash
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == code
    assert said in result.output


def test_a_removed_current_folder_is_one_line(tmp_path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); sys.argv = "
        f"['builder', 'validate']; "
    )
    run = subprocess.run(
        [sys.executable, "-c", script + "from builder.cli import run; run()"],
        capture_output=True,
        text=True,
    )
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr == (
        "error: the current folder (removed): expected schemas here, found none; "
        "run from the repository root or the top folder of an unpacked release archive\n"
    )


def test_a_path_is_looked_up_or_said_why_not(tmp_path) -> None:
    from builder.files import is_folder, lookup_error

    (tmp_path / "file").write_text("x")
    cases = {
        tmp_path: (None, True),
        tmp_path / "missing": (None, False),
        tmp_path / "file" / "below": (None, False),  # a file on the way: nothing is there
        tmp_path / ("a" * 300): ("File name too long", False),
        tmp_path / "nul\0": ("embedded null byte", False),
    }
    for path, expected in cases.items():
        assert (lookup_error(path), is_folder(path)) == expected, path


@pytest.mark.slow  # an outside tool's own run over the whole package
def test_frictionless_validates_the_descriptor_on_its_own(in_repo) -> None:
    """What `frictionless validate datapackage.json` runs (its validate action, every table read
    from its file), here in process, where frictionless is imported already."""
    from frictionless import validate

    report = validate("datapackage.json")
    assert report.valid, report.flatten(["type", "note", "message"])


GENERATION = ("workloads/text-to-image/", "workloads/text-to-video/")  # their own schemas


def published(*patterns: str) -> list[str]:
    """Committed documents of every workload: the text-conversation ones at the top, the others
    below workloads/; those of the generation workloads only for patterns below their folders."""
    return sorted(
        str(p.relative_to(REPO))
        for pattern in patterns
        for p in (REPO / "data").glob(pattern)
        if pattern.startswith("workloads/text-to-")
        or not p.relative_to(REPO / "data").as_posix().startswith(GENERATION)
    )


@pytest.mark.parametrize(
    ("schema", "files"),
    slow_after(  # each a check-jsonschema process: an outside tool, all slow
        [
            ("index.schema.json", published("index.json", "workloads/*/index.json")),
            ("model-list.schema.json", published("models.json", "workloads/*/models.json")),
            ("model.schema.json", published("models/*.json", "workloads/*/models/*.json")),
            ("workload-list.schema.json", published("workloads.json")),
            ("generation-index.schema.json", published("workloads/text-to-*/index.json")),
            ("generation-model-list.schema.json", published("workloads/text-to-*/models.json")),
            ("generation-model.schema.json", published("workloads/text-to-*/models/*.json")),
        ],
        fast=0,
    ),
)
def test_check_jsonschema_accepts_the_data_with_our_schemas(schema: str, files: list[str]) -> None:
    counts = {"index.schema.json": 5, "model-list.schema.json": 5, "model.schema.json": 50}
    counts |= {"generation-index.schema.json": 2, "generation-model-list.schema.json": 2}
    assert len(files) == (counts | {"generation-model.schema.json": 12}).get(schema, 1)
    env = {"PATH": f"{BIN}:/usr/bin:/bin"}
    run = subprocess.run(
        ["scripts/check-data-schema", f"schemas/{schema}", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow  # an outside tool
def test_check_jsonschema_rejects_a_broken_file(tmp_path: Path) -> None:
    doc = json.loads((REPO / "data" / "index.json").read_text())
    doc["rows"][0]["num_gpus"] = 0
    bad = tmp_path / "index.json"
    bad.write_text(json.dumps(doc))
    env = {"PATH": f"{BIN}:/usr/bin:/bin"}
    run = subprocess.run(
        ["scripts/check-data-schema", "schemas/index.schema.json", str(bad)],
        cwd=REPO,
        capture_output=True,
        env=env,
    )
    assert run.returncode == 1


def test_help_does_not_import_the_heavy_libraries() -> None:
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom builder.cli import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        "print(sorted(m for m in ('frictionless', 'jsonschema', 'httpx') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


@pytest.mark.slow  # a whole drift build
def test_drift_is_clean_on_the_committed_data(in_repo, cli) -> None:
    result = cli("drift")
    assert result.exit_code == 0, result.output
    assert "no drift" in result.output


@pytest.mark.slow  # a whole drift build
def test_drift_fails_with_a_readable_diff(repo_copy, cli) -> None:
    path = repo_copy / "data" / "models" / "qwen-3-8b.json"
    path.write_text(
        path.read_text().replace('"architecture": "Dense Transformer"', '"architecture": "Dense"')
    )
    result = cli("drift")
    assert result.exit_code == 1
    assert "--- committed/data/models/qwen-3-8b.json" in result.output
    assert '-  "architecture": "Dense",' in result.output
    assert '+  "architecture": "Dense Transformer",' in result.output
    assert "datapackage.json: /: expected the bytes a fresh build of the pin makes" in result.output
