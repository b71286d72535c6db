"""Provenance never degrades: the lock's rule for a fetch (same bytes, new bytes, a mirror), the
sources of datapackage.json, and `nox -s update`'s own steps against a server on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pytest_httpserver import HTTPServer

from builder.cli import main
from builder.package import source
from builder.pin import Lock, dump_lock, parse_lock, refreshed, sha256
from builder.validate.descriptor import source_findings
from helpers import TASKS
from hostile import tree_digest

REPO = Path(__file__).resolve().parent.parent
OLD = Lock("gpqa.json", "https://example.org/gpqa.json", "a" * 40, sha256(b"old"), 3, "2026-09-26")
MIRROR = "http://127.0.0.1:9/gpqa.json"
TODAY = "2026-12-04"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]


@pytest.fixture(scope="module")
def make_httpserver() -> Iterator[HTTPServer]:
    """One server for this module, as in test_fetch.py: no server thread outlives these tests."""
    server = HTTPServer(host="localhost", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


def test_the_same_bytes_keep_the_entry_whatever_the_url_or_commit() -> None:
    assert refreshed(OLD, MIRROR, "b" * 40, b"old", TODAY) is OLD
    assert refreshed(OLD, OLD.url, None, b"old", TODAY) is OLD


def test_the_same_bytes_fill_a_null_commit_and_nothing_else() -> None:
    old = replace(OLD, commit=None)
    assert refreshed(old, MIRROR, "b" * 40, b"old", TODAY) == replace(OLD, commit="b" * 40)


def test_new_bytes_from_upstream_record_their_commit_and_date() -> None:
    assert refreshed(replace(OLD, mirror=MIRROR), OLD.url, "b" * 40, b"new!", TODAY) == Lock(
        "gpqa.json", OLD.url, "b" * 40, sha256(b"new!"), 4, TODAY
    )


def test_new_bytes_from_a_mirror_keep_upstream_url_and_record_the_mirror_beside_it() -> None:
    found = refreshed(OLD, MIRROR, "b" * 40, b"new!", TODAY)
    assert (found.url, found.mirror, found.commit) == (OLD.url, MIRROR, "b" * 40)


def test_the_lock_names_a_mirror_only_when_there_is_one() -> None:
    text = dump_lock(
        {"gpqa": OLD, "lm-arena-chat": replace(OLD, file="x.json", mirror=MIRROR)}
    ).decode()
    assert text.count('"mirror"') == 1
    assert parse_lock(text.encode(), "lock.json") == {
        "gpqa": OLD,
        "lm-arena-chat": replace(OLD, file="x.json", mirror=MIRROR),
    }


def test_a_source_holds_upstream_url_and_commit_and_the_mirror_beside_them() -> None:
    found = source(replace(OLD, mirror=MIRROR), "t")
    assert (found["path"], found["mirror"], found["version"]) == (OLD.url, MIRROR, "a" * 40)
    assert source(OLD, "t")["mirror"] is None


def test_a_source_without_a_version_is_one_finding() -> None:
    (found,) = source_findings([{"path": OLD.url}])
    assert found[1].endswith("found it missing")


@pytest.mark.parametrize(
    ("version", "lock", "found"),
    [
        pytest.param("", "", 'found ""', id="empty"),
        pytest.param(None, "", "found null", id="null"),
        pytest.param("abc", "", 'found "abc"', id="short"),
        pytest.param(
            "", "upstream/lock.json", "found none in upstream/lock.json", id="null-in-the-lock"
        ),
    ],
)
def test_a_source_without_a_commit_is_one_finding(version: Any, lock: str, found: str) -> None:
    sources = [{"path": OLD.url, "version": "a" * 40}, {"path": OLD.url, "version": version}]
    expected = (
        f'expected upstream\'s commit of "{OLD.url}", 40 lowercase hex digits (`builder '
        f"fetch --commit SHA`)"
    )
    assert source_findings(sources, lock) == [("/sources/1/version", f"{expected}, {found}")]


# ---------------------------------------------------------------------------------------------
# `nox -s update` itself: its function in noxfile.py, each `builder` step run in this process


class Session:
    """What noxfile.update asks of a nox session: posargs, the shared environment's record, run
    and error."""

    def __init__(self, cache: Path, posargs: list[str]) -> None:
        self.posargs, self.cache_dir, self.output = posargs, cache, ""
        (cache / "env-bin").write_text(str(cache / "bin"), encoding="utf-8")

    def run(self, program: str, *args: str, env: dict[str, str]) -> None:
        assert Path(program).name == "builder", program
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        self.output += result.output
        if result.exit_code:
            raise SystemExit(f"builder {' '.join(args)}: exit {result.exit_code}\n{result.output}")

    def error(self, message: str) -> None:
        raise SystemExit(message)


def noxfile(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """noxfile.py, loaded with a stand-in for nox (only its decorators and options run at
    import)."""
    nox = types.ModuleType("nox")
    nox.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    nox.project = types.SimpleNamespace(
        load_toml=lambda path: {}, python_versions=lambda *a, **k: ["3.11"]
    )  # type: ignore[attr-defined]
    nox.session = lambda *args, **kwargs: lambda function: function  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nox", nox)
    spec = importlib.util.spec_from_file_location("noxfile_under_test", REPO / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def serve(repo: Path, server: HTTPServer, bodies: dict[str, bytes]) -> None:
    """Every task's and per-model file at the server, the lock's URLs pointing there; a file not in
    `bodies` (by task, or by per-model name) as pinned."""
    lock = json.loads((repo / "upstream" / "lock.json").read_text())
    for section in ("tasks", "models"):
        for name, entry in lock[section].items():
            entry["url"] = server.url_for(f"/{section}/{name}.json")
            body = bodies.get(name) or (repo / "upstream" / entry["file"]).read_bytes()
            server.expect_request(f"/{section}/{name}.json").respond_with_data(body)
    (repo / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")


def scaled(repo: Path, task: str, factor: float) -> dict[str, bytes]:
    """The task's pinned file and its per-model files (by name) with every row's energy and power
    scaled alike: the same physics, other values."""
    lock = json.loads((repo / "upstream" / "lock.json").read_text())
    files = {task: lock["tasks"][task]["file"]}
    files |= {
        name: entry["file"] for name, entry in lock["models"].items() if name.endswith(f"__{task}")
    }
    bodies = {}
    for name, file in files.items():
        doc = json.loads((repo / "upstream" / file).read_bytes())
        for conf in doc["configurations"]:
            conf["energy_per_token_joules"] *= factor
            conf["energy_per_request_joules"] *= factor
            conf["avg_power_watts"] *= factor
        bodies[name] = json.dumps(doc, indent=1).encode()
    return bodies


def mtimes(root: Path) -> dict[str, int]:
    return {
        str(p.relative_to(root)): p.stat().st_mtime_ns
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # fetch, build, validate and diff of the whole package, twice
def test_the_update_session_pins_new_bytes_with_their_commit_then_changes_nothing(
    repo_copy: Path, tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = noxfile(monkeypatch).update
    serve(repo_copy, httpserver, scaled(repo_copy, "gpqa", 1.1))
    before = json.loads((repo_copy / "upstream" / "lock.json").read_text())["tasks"]
    session = Session(tmp_path, ["--commit", "c" * 40, *FAST])
    update(session)
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())["tasks"]
    assert {task: entry for task, entry in lock.items() if task != "gpqa"} == {
        task: entry for task, entry in before.items() if task != "gpqa"
    }
    assert (lock["gpqa"]["commit"], lock["gpqa"]["url"], "mirror" in lock["gpqa"]) == (
        "c" * 40,
        before["gpqa"]["url"],
        False,
    )
    sources = json.loads((repo_copy / "datapackage.json").read_text())["sources"]
    # the per-model files: one source per commit, gpqa's new one beside the others' pinned one
    pinned = before["lm-arena-chat"]["commit"]
    assert [(s["version"], s["mirror"]) for s in sources] == [
        *((lock[t]["commit"], None) for t in TASKS),
        (pinned, None),
        ("c" * 40, None),
    ]
    assert "pinned gpqa: " in session.output
    assert "(moved)" in session.output
    # diff --summary names the workload
    assert "problem-solving" in session.output.split("data: valid", 1)[1]

    digest, times = tree_digest(repo_copy), mtimes(repo_copy)
    # no --commit: none is needed for the bytes already pinned
    again = Session(tmp_path, list(FAST))
    update(again)
    assert again.output.count("(unchanged)") == len(TASKS)
    assert tree_digest(repo_copy) == digest
    assert {rel: t for rel, t in mtimes(repo_copy).items() if rel.startswith("upstream")} == {
        rel: t for rel, t in times.items() if rel.startswith("upstream")
    }
