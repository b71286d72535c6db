"""check-upstream and fetch on the per-model files: a moved one checked against its task file, one
a task file now names reported added (fetched, checked, pinned), one whose model is gone removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from builder.upstream_models import expected_files, model_urls
from hostile import run_cli, tree_digest
from test_fetch_tasks import FAST, scaled, serve_pins

OLD = "Qwen__Qwen3-14B__gpqa"
NEW = "Qwen__Qwen3-14B-Renamed__gpqa"
SITE = "https://example.org/public/data/models"


class Row:
    def __init__(self, model_id: str) -> None:
        self.model_id = model_id


def test_each_model_of_a_task_needs_its_file_named_after_it() -> None:
    rows = {"gpqa": [Row("Qwen/Qwen3-14B"), Row("Qwen/Qwen3-14B"), Row("a/b")]}
    assert expected_files(rows) == {OLD: "gpqa", "a__b__gpqa": "gpqa"}  # type: ignore[arg-type]


def test_a_new_file_is_fetched_beside_its_task_s_pinned_ones() -> None:
    pinned = {OLD: f"{SITE}/{OLD}.json", "x__y__chat": "https://mirror.example/x__y__chat.json"}
    names = {OLD: "gpqa", NEW: "gpqa"}
    assert model_urls(pinned, names) == {OLD: f"{SITE}/{OLD}.json", NEW: f"{SITE}/{NEW}.json"}


def renamed(repo: Path) -> tuple[bytes, bytes]:
    """gpqa's task file with Qwen 3 14B under another model id, and its per-model file so named."""
    task = json.loads((repo / "upstream" / "gpqa.json").read_bytes())
    for conf in task["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-14B":
            conf["model_id"] = "Qwen/Qwen3-14B-Renamed"
            conf["nickname"] += " Renamed"  # a slug of its own: another task has the old one
    model = json.loads((repo / "upstream" / "models" / f"{OLD}.json").read_bytes())
    model["model_id"] = "Qwen/Qwen3-14B-Renamed"
    return json.dumps(task, indent=1).encode(), json.dumps(model, indent=1).encode()


@pytest.mark.slow  # every task and per-model file fetched
def test_a_moved_per_model_file_is_checked_against_its_task_file(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    serve_pins(repo_copy, httpserver, {OLD: scaled(repo_copy, f"models/{OLD}", 1.5)})
    before = tree_digest(repo_copy)
    outcome = run_cli("check-upstream", *FAST)
    assert outcome.exit_code == 1, outcome.output
    lines = outcome.output.splitlines()
    assert any(line.startswith(f"moved: {OLD}: ") for line in lines)
    assert any("as in the task file, found" in line for line in lines), outcome.output
    assert any(line.startswith(f"error: {OLD}: ") for line in lines)
    assert tree_digest(repo_copy) == before


@pytest.mark.slow  # every task and per-model file fetched
def test_a_renamed_model_s_file_is_reported_added_and_removed(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    task, model = renamed(repo_copy)
    serve_pins(repo_copy, httpserver, {"gpqa": task})
    httpserver.expect_request(f"/public/data/models/{NEW}.json").respond_with_data(model)
    before = tree_digest(repo_copy)
    outcome = run_cli("check-upstream", *FAST)
    assert outcome.exit_code == 4, outcome.output
    lines = outcome.output.splitlines()
    url = httpserver.url_for("/public/data")
    assert f"removed: {OLD}: {url}/tasks/gpqa.json no longer has its model" in lines
    added = [line for line in lines if line.startswith(f"added: {NEW}: ")]
    assert added == [
        f"added: {NEW}: {url}/models/{NEW}.json serves sha256 {sha(model)} ({len(model)} bytes), "
        "which the lock does not pin"
    ]
    assert not any(line.startswith("error") for line in lines), outcome.output
    assert tree_digest(repo_copy) == before


def sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@pytest.mark.slow  # a whole fetch
def test_fetch_pins_a_renamed_model_s_file_and_unpins_the_old_one(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    task, model = renamed(repo_copy)
    serve_pins(repo_copy, httpserver, {"gpqa": task})
    httpserver.expect_request(f"/public/data/models/{NEW}.json").respond_with_data(model)
    outcome = run_cli("fetch", "--commit", "c" * 40, *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert f"upstream/lock.json: unpinned 1 per-model files whose model is gone: {OLD}" in (
        outcome.output.splitlines()
    )
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())["models"]
    assert OLD not in lock
    url = httpserver.url_for(f"/public/data/models/{NEW}.json")
    assert lock[NEW] | {"retrieved": ""} == {
        "file": f"models/{NEW}.json",
        "url": url,
        "commit": "c" * 40,
        "sha256": sha(model),
        "size": len(model),
        "retrieved": "",
    }
    assert (repo_copy / "upstream" / "models" / f"{NEW}.json").read_bytes() == model
    assert run_cli("check-upstream", *FAST).exit_code == 0
