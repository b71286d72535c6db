"""Hostile cases of provenance and names, one a class: a fetch of the pinned bytes, a mirror's new
bytes without their commit, a source without its commit, a model id a spreadsheet misreads, two GPU
names of one page, and a bidi control in an image workload's text.

Each holds the command to tests/hostile.py's promises: its exit code, one escaped line (a refusal's
problem, or the fetch's report), no traceback, and every file below the scratch folder as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from factory import row, upstream
from hostile import Outcome, assert_refused, run_cli, tree_digest

FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]
MT = "metadata.toml: "


@pytest.fixture(scope="module")
def make_httpserver() -> Iterator[HTTPServer]:
    """One server for this module, as in test_fetch.py: no server thread outlives these tests."""
    server = HTTPServer(host="localhost", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


def run(root: Path, args: list[str], code: int, names: tuple[str, ...]) -> list[str]:
    """Run the command; it must exit `code` with one line naming `names` (a refusal's problem,
    before its summary), and leave everything below root as it was, not even rewritten. That line is
    returned."""
    before, times = tree_digest(root), mtimes(root)
    outcome: Outcome = run_cli(*args)
    assert_refused(outcome, code, names, before, tree_digest(root))
    assert mtimes(root) == times  # not even rewritten with the same bytes
    said = [line for line in outcome.output.splitlines() if not line.startswith("warning: ")]
    if len(said) > 1 and said[-1].startswith("error: "):  # the summary after a refusal's problems
        said.pop()
    assert len(said) == 1, outcome.output
    return said


def mtimes(root: Path) -> dict[str, int]:
    return {
        str(p.relative_to(root)): p.stat().st_mtime_ns
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # a fetch checks the whole build
def test_a_fetch_of_the_pinned_bytes_changes_no_file(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    httpserver.expect_request("/gpqa.json").respond_with_data(
        (repo_copy / "upstream" / "gpqa.json").read_bytes()
    )
    args = [
        "fetch",
        "--task",
        "gpqa",
        "--url",
        httpserver.url_for("/gpqa.json"),
        "--commit",
        "e" * 40,
        *FAST,
    ]
    (line,) = run(repo_copy.parent, args, 0, ("upstream/lock.json: pinned gpqa: ",))
    assert line.endswith("(unchanged)")


@pytest.mark.slow  # a fetch checks the whole build
def test_a_mirror_new_bytes_without_their_commit_are_refused(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    doc = json.loads((repo_copy / "upstream" / "gpqa.json").read_bytes())
    httpserver.expect_request("/gpqa.json").respond_with_data(json.dumps(doc, indent=3).encode())
    args = ["fetch", "--task", "gpqa", "--url", httpserver.url_for("/gpqa.json"), *FAST]
    said = (
        "gpqa: expected --commit SHA, upstream's commit of the new bytes (every pin records "
        "one), found none"
    )
    run(repo_copy.parent, args, 1, (f"error: {said}; nothing was pinned",))


# a whole validate; test_provenance.py holds the rule to each way a version can be wrong
@pytest.mark.slow
def test_a_source_without_its_commit_is_refused_by_validate(repo_copy: Path) -> None:
    descriptor = json.loads((repo_copy / "datapackage.json").read_text())
    descriptor["sources"][1]["version"] = None
    (repo_copy / "datapackage.json").write_text(json.dumps(descriptor, indent=2) + "\n")
    (line,) = run(repo_copy.parent, ["validate"], 1, ("datapackage.json: /sources/1/version: ",))
    assert line.endswith(", 40 lowercase hex digits (`builder fetch --commit SHA`), found null")


def test_a_pin_without_its_commit_is_refused_by_build(repo_copy: Path) -> None:
    """A per-model entry of the lock with a null commit (as a lock written before fetch required
    one): build would publish that source with no version, so it refuses, and drift too."""
    path = repo_copy / "upstream" / "lock.json"
    lock = json.loads(path.read_text())
    name = next(iter(lock["models"]))
    lock["models"][name]["commit"] = None
    path.write_text(json.dumps(lock, indent=2) + "\n")
    said = f"upstream/lock.json: /models/{name}/commit: expected upstream's commit of the pinned"
    for command in ("build", "drift"):
        (line,) = run(repo_copy.parent, [command], 1, (said,))
        assert line.endswith(
            "found null; run `builder fetch --commit SHA` (the same bytes keep "
            "their pin and gain it)"
        ), line


def build_upstream(tmp_path: Path, *rows: dict[str, Any]) -> list[str]:
    """`build --upstream` of a text conversation file of these rows."""
    (tmp_path / "bad.json").write_text(json.dumps(upstream(list(rows))))
    return ["build", "--upstream", str(tmp_path / "bad.json")]


def test_a_model_id_a_spreadsheet_misreads_is_refused(repo_copy: Path, tmp_path: Path) -> None:
    args = build_upstream(tmp_path, row(model_id="10/12"), row(model_id="10/12", max_num_seqs=128))
    said = "expected a name a spreadsheet keeps as text, found '10/12', read as a date"
    run(
        tmp_path,
        args,
        1,
        ("bad.json: /configurations/0/model_id (10/12, H100, 1 GPU(s), max_num_seqs 64", said),
    )


def test_two_gpu_names_of_one_page_are_refused_naming_both(repo_copy: Path, tmp_path: Path) -> None:
    args = build_upstream(tmp_path, row(gpu_model="H100-SXM"), row(gpu_model="H100_SXM"))
    run(
        tmp_path,
        args,
        1,
        ("bad.json: GPU H100_SXM: expected one spelling per GPU, found 'H100-SXM' and 'H100_SXM'",),
    )


def test_two_model_ids_differing_by_case_alone_are_refused_naming_both(
    repo_copy: Path, tmp_path: Path
) -> None:
    args = build_upstream(
        tmp_path, row(model_id="Qwen/Qwen3-8B"), row(model_id="QWEN/QWEN3-8B", nickname="Other 7B")
    )
    said = (
        "bad.json: model QWEN/QWEN3-8B: expected one spelling per model id, found "
        "'Qwen/Qwen3-8B' and 'QWEN/QWEN3-8B'"
    )
    run(tmp_path, args, 1, (said,))


def test_a_bidi_control_in_image_workload_text_is_refused_as_in_llm_text(
    repo_copy: Path, tmp_path: Path
) -> None:
    meta = repo_copy / "metadata.toml"
    text = meta.read_text()
    assert text.count('description = "Image generation') == 1
    meta.write_text(
        text.replace('description = "Image generation', 'description = "Image \\u202egeneration')
    )
    said = (
        "expected a non-empty string of at most 2,000 characters, without control or format "
        "characters"
    )
    (line,) = run(tmp_path, ["build"], 1, (f"{MT}/workload/5/description: {said}", "\\u202e"))
    assert line.startswith(f"error: {MT}")
