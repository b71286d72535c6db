"""check-upstream and fetch on the per-model files: a moved one checked against its task file, one
a task file now names reported added (fetched, checked, pinned), one whose model is gone removed;
a configuration against its task row, by one comparison and field by field, with one verdict."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from builder.metadata import load_metadata
from builder.upstream import parse_all
from builder.upstream_models import (
    LENGTHS,
    differences,
    expected_files,
    model_urls,
    repeats_row,
    row_faults,
    task_of,
)
from helpers import REPO
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


def _mutations(conf: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """`conf` as it is, then with one value changed, retyped, null or gone, or one key more, at
    the top and in its parallelization (notes too)."""
    yield conf
    for inner in (False, True):
        own = conf["parallelization"] if inner else conf
        for key, value in own.items():
            if key in (LENGTHS, "parallelization") or value is None:
                continue
            if isinstance(value, str):
                others: tuple[Any, ...] = (value + "x", None)
            else:  # a number or a bool: another, null, and the same of another type
                retyped = float(value) if type(value) is int else int(value)
                others = (not value if type(value) is bool else value + 1, None, retyped)
            for new in others:
                yield _with(conf, inner, {**own, key: new})
            yield _with(conf, inner, {k: v for k, v in own.items() if k != key})
        yield _with(conf, inner, {**own, "extra": 1, "notes": "x"})
    yield {**conf, "model_id": "a/b"}


def _with(conf: dict[str, Any], inner: bool, own: dict[str, Any]) -> dict[str, Any]:
    """`conf` with `own` as its parallelization (`inner`) or as itself."""
    return {**conf, "parallelization": own} if inner else own


def test_a_configuration_that_repeats_its_row_is_the_one_without_differences() -> None:
    """row_faults' one comparison (repeats_row) finds no fault exactly where the field by field
    differences find none: on the first three configurations of each committed per-model file
    and on their mutations."""
    meta = load_metadata(REPO / "metadata.toml")
    tasks = {p.stem: (p.read_bytes(), p.name) for p in (REPO / "upstream").glob("*.json")}
    del tasks["lock"]
    rows, _ = parse_all(tasks, meta)
    seen = 0
    for path in sorted((REPO / "upstream" / "models").glob("*.json")):
        doc = json.loads(path.read_bytes())
        own = [row for row in rows[task_of(path.stem)] if row.model_id == doc["model_id"]]
        for conf, row in list(zip(doc["configurations"], own, strict=True))[:3]:
            assert repeats_row(conf, row), path.name  # the fast path is the one taken
            for changed in _mutations(conf):
                assert row_faults(changed, row) == differences(changed, row), (path.name, changed)
                seen += 1
    assert seen > 1000
