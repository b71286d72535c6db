"""End to end: `builder build` reproduces the published documents and never half-writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import builder.write
from builder.dates import undated
from factory import row, upstream, write_upstream
from helpers import snapshot

# the documents as published, vendored
REFERENCE = Path(__file__).resolve().parent / "reference" / "v1"
REFERENCES = ["index.json", "models.json", "models/nvidia-nemotron-nano-9b-v2.json"]


def test_build_writes_all_documents_and_reproduces_the_references(built_data: Path) -> None:
    out = built_data
    assert sorted(p.relative_to(REFERENCE).as_posix() for p in REFERENCE.rglob("*.json")) == sorted(
        REFERENCES
    )
    docs = sorted(str(p.relative_to(out)) for p in out.rglob("*.json"))
    # the workload list, then per LLM workload an index, a model list, a frontier and its models
    # (66); per generation workload an index, a model list, a frontier and its models (18: 7 and 5
    # models); units.json; per LLM workload an output-lengths document (5)
    assert len(docs) == 66 + 18 + 1 + 5
    assert len([d for d in docs if d.startswith("models/")]) == 18
    # units.json, output-lengths.json
    assert len([d for d in docs if not d.startswith("workloads/")]) == 22 + 1 + 1
    for rel in REFERENCES:
        expected = json.loads((REFERENCE / rel).read_text())
        built = json.loads((out / rel).read_text())
        assert undated(built) == undated(expected), rel
        assert list(built) == list(expected), rel
        assert (out / rel).read_text().endswith("}\n")


@pytest.mark.slow  # a second whole build
def test_second_build_with_a_later_date_changes_no_byte(
    built_data: Path, in_repo, cli, tmp_path
) -> None:
    out = tmp_path / "data"  # the descriptor names the files by this folder's name
    shutil.copytree(built_data, out)
    shutil.copy2(built_data.parent / "datapackage.json", tmp_path / "datapackage.json")
    before = snapshot(out)
    result = cli("build", "--out", str(out), "--date", "2026-12-01")
    assert result.exit_code == 0
    assert "0 changed" in result.output
    assert snapshot(out) == before


# a whole build; test_build_writes_all_documents_... is the clean build smoke case
@pytest.mark.slow
def test_default_build_leaves_committed_data_unchanged(repo_copy, cli) -> None:
    before = snapshot(repo_copy / "data")
    result = cli("build")
    assert result.exit_code == 0, result.output
    assert snapshot(repo_copy / "data") == before
    assert json.loads((repo_copy / "data" / "models.json").read_text())["updated"] == "2026-10-19"


@pytest.mark.slow  # a whole build
def test_changed_model_gets_new_date_and_others_keep_theirs(repo_copy, cli) -> None:
    raw = json.loads((repo_copy / "upstream" / "lm-arena-chat.json").read_text())
    for conf in raw["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-8B":
            conf["avg_power_watts"] *= 1.01
            conf["energy_per_token_joules"] *= 1.01
            conf["energy_per_request_joules"] *= 1.01
    changed = write_upstream(repo_copy / "changed.json", raw)
    assert cli("build", "--upstream", str(changed), "--date", "2026-12-02").exit_code == 0
    dates = {
        p.name: json.loads(p.read_text())["updated"]
        for p in (repo_copy / "data" / "models").iterdir()
    }
    assert dates.pop("qwen-3-8b.json") == "2026-12-02"
    assert set(dates.values()) == {"2026-09-27"}
    assert json.loads((repo_copy / "data" / "models.json").read_text())["updated"] == "2026-10-19"


@pytest.mark.slow  # a whole build
def test_model_gone_upstream_loses_its_file(repo_copy, cli) -> None:
    raw = json.loads((repo_copy / "upstream" / "lm-arena-chat.json").read_text())
    raw["configurations"] = [c for c in raw["configurations"] if c["model_id"] != "Qwen/Qwen3-8B"]
    smaller = write_upstream(repo_copy / "smaller.json", raw)
    assert cli("build", "--upstream", str(smaller)).exit_code == 0
    assert not (repo_copy / "data" / "models" / "qwen-3-8b.json").exists()
    listed = [
        m["slug"] for m in json.loads((repo_copy / "data" / "models.json").read_text())["models"]
    ]
    assert "qwen-3-8b" not in listed
    assert len(listed) == 17


@pytest.mark.slow  # a whole build
def test_build_failing_halfway_leaves_data_untouched(repo_copy, cli, monkeypatch) -> None:
    before = snapshot(repo_copy)
    real_write = builder.write._write
    calls = {"n": 0}

    def failing_write(path: Path, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 10:
            raise OSError(28, "No space left on device", str(path))
        real_write(path, data)

    monkeypatch.setattr(builder.write, "_write", failing_write)
    result = cli("build", "--date", "2026-12-01")
    assert result.exit_code == 1
    assert "No space left on device" in result.output
    assert calls["n"] == 10
    assert snapshot(repo_copy) == before
    assert not list(repo_copy.glob(".data*"))


def test_lock_mismatch_is_refused_and_nothing_changes(repo_copy, cli) -> None:
    pin = repo_copy / "upstream" / "lm-arena-chat.json"
    pin.write_bytes(pin.read_bytes().replace(b"0.69930918", b"0.69930919", 1))
    before = snapshot(repo_copy)
    result = cli("build", "--date", "2026-12-01")
    assert result.exit_code == 1
    assert "lm-arena-chat.json: sha256 expected 24e25d46" in result.output
    assert snapshot(repo_copy) == before


def test_unreadable_upstream_is_refused(repo_copy, cli) -> None:
    before = snapshot(repo_copy)
    result = cli("build", "--upstream", "nowhere.json")
    assert result.exit_code == 1
    assert "nowhere.json: cannot read upstream" in result.output
    assert snapshot(repo_copy) == before


@pytest.mark.slow  # a whole build
def test_unwritable_output_folder_is_refused(repo_copy, cli) -> None:
    (repo_copy / "blocker").write_text("a file, not a folder\n")
    result = cli("build", "--out", "blocker/data")
    assert result.exit_code == 1
    assert "blocker/data: cannot write beside the output folder" in result.output
    result = cli("build", "--out", "blocker")
    assert result.exit_code == 2
    assert "'blocker' is a file" in result.output


def test_bad_date_is_a_usage_error(in_repo, cli) -> None:
    result = cli("build", "--date", "27/09/2026")
    assert result.exit_code == 2
    assert "expected a date as YYYY-MM-DD" in result.output


REFERENCE_MODEL = {
    "nickname": "Qwen 3 32B",
    "model_id": "Qwen/Qwen3-32B",
    "num_gpus": 2,
    "tensor_parallel": 2,
}
# as in the other tasks
REFERENCE_MODEL |= {
    "total_params_billions": 32.0,
    "activated_params_billions": 32.0,
}


@pytest.mark.slow  # a whole build
def test_upstream_with_one_model_builds_a_small_tree(repo_copy, cli, tmp_path) -> None:
    up = write_upstream(tmp_path / "one.json", upstream([row(**REFERENCE_MODEL)]))
    out = tmp_path / "small"
    assert cli("build", "--upstream", str(up), "--out", str(out)).exit_code == 0
    top = sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*.json")
        if not p.is_relative_to(out / "workloads")
    )
    assert top == [
        "frontier.json",
        "index.json",
        "models.json",
        "models/qwen-3-32b.json",
        "units.json",
        "workloads.json",
    ]
    assert (tmp_path / "datapackage.json").is_file()


def test_upstream_without_the_reference_row_is_refused(repo_copy, cli, tmp_path) -> None:
    up = write_upstream(tmp_path / "one.json", upstream([row()]))
    before = snapshot(repo_copy)
    result = cli("build", "--upstream", str(up))
    assert result.exit_code == 1
    assert (
        "data/index.json: /reference_row: expected exactly one row with model 'Qwen 3 32B'"
        in result.output
    )
    assert snapshot(repo_copy) == before


@pytest.mark.slow  # a whole build
def test_output_that_breaks_a_schema_is_never_written(repo_copy, cli, tmp_path) -> None:
    """1e-6 J per token passes upstream checks but publishes as 0.0 Wh per million: refused."""
    tiny = {"energy_per_token_joules": 1e-6, "avg_power_watts": 0.003, **REFERENCE_MODEL}
    up = write_upstream(tmp_path / "tiny.json", upstream([row(**tiny)]))
    before = snapshot(repo_copy)
    result = cli("build", "--upstream", str(up))
    assert result.exit_code == 1
    expected = (
        "data/models/qwen-3-32b.json: /configurations/0/wh_per_million_output_tokens: "
        "expected a value > 0, found 0.0"
    )
    assert expected in result.output
    assert snapshot(repo_copy) == before


def test_publish_swaps_and_rolls_back_when_the_descriptor_cannot_be_replaced(
    repo_copy, monkeypatch
) -> None:
    out = repo_copy / "data"
    before = snapshot(repo_copy)
    real_replace = builder.write.os.replace

    def failing_replace(src, dst):
        raise OSError(5, "Input/output error", str(dst))

    monkeypatch.setattr(builder.write.os, "replace", failing_replace)
    with pytest.raises(builder.write.OutputError, match="Input/output error"):
        builder.write.publish(out, {"index.json": b"{}\n"}, {"datapackage.json": b"{}\n"})
    assert snapshot(repo_copy) == before
    monkeypatch.setattr(builder.write.os, "replace", real_replace)
    builder.write.publish(
        out, {"index.json": b"{}\n", "models/a.json": b"[]\n"}, {"datapackage.json": b"{}\n"}
    )
    assert snapshot(out) == {"index.json": b"{}\n", "models/a.json": b"[]\n"}
    assert (repo_copy / "datapackage.json").read_bytes() == b"{}\n"
    assert sorted(p.name for p in repo_copy.iterdir() if p.name.startswith(".")) == []
