"""`builder diff` between two builds of different upstreams, and between git refs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factory import write_upstream
from helpers import copy_package, invoke, snapshot


def changed_build(repo: Path, cli) -> Path:
    """A build of the pin with Qwen 3 14B's H100 energy x 1.5 and Gemma 3 27B gone, dated
    2026-12-01."""
    new = repo / "new" / "data"
    doc = json.loads((repo / "upstream" / "lm-arena-chat.json").read_text())
    for conf in doc["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-14B" and conf["gpu_model"] == "H100":
            conf["output_throughput_tokens_per_sec"] /= 1.5
            conf["energy_per_token_joules"] *= 1.5
            conf["energy_per_request_joules"] *= 1.5
    doc["configurations"] = [
        c for c in doc["configurations"] if c["model_id"] != "google/gemma-3-27b-it"
    ]
    changed = write_upstream(repo / "changed.json", doc)
    assert (
        cli(
            "build", "--upstream", str(changed), "--out", str(new), "--date", "2026-12-01"
        ).exit_code
        == 0
    )
    return new


@pytest.fixture(scope="module")
def builds(built_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The session's build of the pin (2026-09-27) and a build of a changed upstream: the tests
    only read them."""
    root = copy_package(tmp_path_factory.mktemp("diff") / "repo")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        new = changed_build(root, invoke)
    before = snapshot(built_data.parent), snapshot(root)
    yield built_data, new
    assert (snapshot(built_data.parent), snapshot(root)) == before, (
        "a test changed the shared builds"
    )


def test_text_diff_names_the_values_that_changed(builds, cli) -> None:
    old, new = builds
    result = cli("diff", str(old), str(new))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "data version: 2026-09-27 -> 2026-12-01"
    assert "models removed: gemma-3-27b" in lines
    assert (
        "best changed: qwen-3-14b H100 joules_per_output_token: 0.1119169 -> 0.1678754 (+50.0 %)"
        in lines
    )
    assert any(line.startswith("  ~ qwen-3-14b/H100/1/8 #1 tokens_per_second:") for line in lines)
    assert not any("qwen-3-14b B200" in line for line in lines)
    assert not any(line.startswith("header changed:") for line in lines)


def test_json_diff_has_old_new_and_percent(builds, cli) -> None:
    old, new = builds
    result = cli("diff", str(old), str(new), "--json")
    doc = json.loads(result.output)
    assert doc["models_removed"] == ["gemma-3-27b"]
    change = next(c for c in doc["best_changed"] if c["field"] == "wh_per_million_output_tokens")
    assert change == {
        "where": "qwen-3-14b H100",
        "field": "wh_per_million_output_tokens",
        "old": 31.09,
        "new": 46.63,
        "pct": 49.98,
    }


def test_identical_trees_have_no_changes(in_repo, cli) -> None:
    result = cli("diff", "data", "data")
    assert result.output.splitlines()[-1] == "no changes"


def test_a_package_folder_is_read_at_its_data_folder(builds, cli) -> None:
    """A folder holding data/ (a checkout or an unpacked archive) is compared by its data/, as a
    git ref is."""
    old, new = builds
    assert cli("diff", str(old.parent), str(new)).output == cli("diff", str(old), str(new)).output


def test_git_ref_against_folder_and_bad_ref(in_repo, cli) -> None:
    assert cli("diff", "HEAD", "data").exit_code == 0
    bad = cli("diff", "no-such-ref", "data")
    assert bad.exit_code == 1
    assert "no-such-ref: expected a data folder or a git ref holding data/" in bad.output


def test_summary_keeps_models_and_best_values_only(builds, cli) -> None:
    old, new = builds
    lines = cli("diff", "--summary", str(old), str(new)).output.splitlines()
    assert "models removed: gemma-3-27b" in lines
    assert any(
        line.startswith("best changed: qwen-3-14b H100 joules_per_output_token") for line in lines
    )
    assert any(line.startswith("configurations: 0 added, 0 removed, ") for line in lines)
    assert not any(line.startswith("  ~ ") for line in lines)


def test_diff_refuses_a_side_without_documents(tmp_path: Path, in_repo: Path, cli) -> None:
    """An empty folder is no package: `diff` says so instead of listing every document as
    removed."""
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("diff", "data", str(empty))
    assert result.exit_code == 1
    assert (
        result.output
        == f"error: {empty}: expected a data folder or a git ref holding data/, found no "
        f"documents in {empty}/\n"
    )
