"""What ships: one rule (layout.is_published) for what validate checks and what a release holds; the reader's slugs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from builder import layout
from builder.errors import ReleaseError
from builder.release.dist import shipped, staged_files
from builder.release.rules import Version
from conftest import REPO

PUBLISHED = [
    "index.json",
    "models.json",
    "workloads.json",
    "configurations.csv",
    "frontier.json",
    "models/qwen-3-8b.json",
    "workloads/problem-solving/models/gpt-oss-20b.json",
    "workloads/text-to-image/configurations.csv",
    "workloads/text-to-image/models/flux-1-dev.json",
]
NOT_PUBLISHED = [
    "models/.qwen-3-8b.json",  # a dotfile named like a model
    ".gitkeep",
    "models/.gitattributes",
    "models/qwen-3-8b.json~",  # an editor's backup
    "models/.qwen-3-8b.json.swp",  # an editor's swap file
    "models/qwen-3-8b.json.bak",
    "models/Qwen-3-8B.json",  # not a slug
    "models/qwen--3.json",
    "models/-qwen.json",
    "models/.json",
    "models/sub/qwen-3-8b.json",
    "notes.txt",
    ".index.json",
    "workloads/.hidden/index.json",
    "workloads/problem-solving/.models.json",
    "workloads/problem-solving/models/.x.json",
]


@pytest.mark.parametrize("rel", PUBLISHED)
def test_a_published_path_is_published(rel: str) -> None:
    assert layout.is_published(rel)


@pytest.mark.parametrize("rel", NOT_PUBLISHED)
def test_anything_else_is_not_published(rel: str) -> None:
    assert not layout.is_published(rel)
    assert layout.place(rel) is None


def test_every_committed_data_file_is_published() -> None:
    rels = [p.relative_to(REPO / "data").as_posix() for p in (REPO / "data").rglob("*") if p.is_file()]
    assert rels
    assert all(layout.is_published(rel) for rel in rels)


def test_the_reader_knows_a_slug_as_the_builder_does() -> None:
    """The reader imports nothing of the builder: its slug pattern is a copy of layout's, held equal here."""
    source = (REPO / "reader" / "leadgreen_data" / "__init__.py").read_text("utf-8")
    found = re.search(r'^_SLUG = re\.compile\(r"([^"]+)"\)', source, re.MULTILINE)
    assert found is not None
    assert found[1] == layout.SLUG_PATTERN
    schema = json.loads((REPO / "schemas" / "defs.schema.json").read_text("utf-8"))
    assert schema["$defs"]["slug"]["pattern"] == f"^{layout.SLUG_PATTERN}$"


def test_a_release_with_a_file_that_is_not_published_is_refused() -> None:
    files = {"data/index.json": b"{}", "data/models/.qwen-3-8b.json": b"{}", "data/models/a.json~": b"", "LICENSE": b""}
    with pytest.raises(ReleaseError) as caught:
        shipped(files, "0123456789abcdef" * 2 + "01234567")
    assert str(caught.value) == (
        "expected only published files under data/ at 0123456789ab, found data/models/.qwen-3-8b.json, "
        "data/models/a.json~ (refused by `builder validate`); remove them and release a new commit"
    )
    clean = {"data/index.json": b"{}", "schemas/.x": b"", "LICENSE": b""}
    assert shipped(clean, "0" * 40) == clean


PROBE = r"""
import sys
sys.path.insert(0, sys.argv[1])
import leadgreen_data as lg
for name in sys.argv[2:]:
    try:
        lg.model(name)
        print("served", name)
    except LookupError as exc:
        print(exc)
"""


@pytest.fixture(scope="module")
def reader_with_a_dotfile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader as the wheel stages it, with data/models/.qwen-3-8b.json beside the real documents."""
    names = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
    files = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for name in names
        for p in ([REPO / name] if (REPO / name).is_file() else sorted((REPO / name).rglob("*")))
        if p.is_file()
    }
    files["data/models/.qwen-3-8b.json"] = files["data/models/qwen-3-8b.json"]
    reader = {p.relative_to(REPO).as_posix(): p.read_bytes() for p in (REPO / "reader").rglob("*") if p.is_file()}
    root = tmp_path_factory.mktemp("reader")
    for rel, data in staged_files(files, reader, Version("2026-11-29")).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_the_reader_refuses_a_name_that_is_not_a_slug(reader_with_a_dotfile: Path) -> None:
    names = [".qwen-3-8b", "../index", "Qwen 3 8B", "qwen-3-8", "qwen-3-8b"]
    run = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, str(reader_with_a_dotfile), *names], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    slug_rule = "expected a slug, lowercase letters and digits joined by single hyphens"
    assert lines[0].startswith(f"unknown model '.qwen-3-8b' in workload text-conversation: {slug_rule}; did you mean ")
    assert lines[1] == f"unknown model '../index' in workload text-conversation: {slug_rule}"
    assert lines[2].startswith(f"unknown model 'Qwen 3 8B' in workload text-conversation: {slug_rule}; did you mean ")
    assert "qwen-3-8b" in lines[0]
    assert "qwen-3-8b" in lines[2]
    assert lines[3].startswith("unknown model 'qwen-3-8' in workload text-conversation; did you mean qwen-3-8b")
    assert ".qwen" not in lines[3]
    assert lines[4] == "served qwen-3-8b"
