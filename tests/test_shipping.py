"""What ships: one rule (layout.is_published) for what validate checks and what a release holds;
the reader's slugs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from builder import layout
from builder.dates import date_fault
from builder.errors import ReleaseError
from builder.jsonschemas import identity_problems
from builder.release.dist import shipped, staged_files
from builder.release.rules import Version, newest_release, read_tag, release_versions
from builder.release.tags import data_version_of
from helpers import REPO

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
    rels = [
        p.relative_to(REPO / "data").as_posix() for p in (REPO / "data").rglob("*") if p.is_file()
    ]
    assert rels
    assert all(layout.is_published(rel) for rel in rels)


def test_the_reader_knows_a_slug_as_the_builder_does() -> None:
    """The reader imports nothing of the builder: its slug pattern is a copy of layout's, held
    equal here."""
    source = (REPO / "reader" / "leadgreen_data" / "__init__.py").read_text("utf-8")
    found = re.search(r'^_SLUG = re\.compile\(r"([^"]+)"\)', source, re.MULTILINE)
    assert found is not None
    assert found[1] == layout.SLUG_PATTERN
    schema = json.loads((REPO / "schemas" / "defs.schema.json").read_text("utf-8"))
    assert schema["$defs"]["slug"]["pattern"] == f"^{layout.SLUG_PATTERN}$"


def test_a_release_with_a_file_that_is_not_published_is_refused() -> None:
    files = {
        "data/index.json": b"{}",
        "data/models/.qwen-3-8b.json": b"{}",
        "data/models/a.json~": b"",
        "schemas/.notes": b"",
        "schemas/model.schema.json~": b"",
        "LICENSE": b"",
    }
    with pytest.raises(ReleaseError) as caught:
        shipped(files, "0123456789abcdef" * 2 + "01234567")
    assert str(caught.value) == (
        "expected only published files under data/ and schemas/ at 0123456789ab, found "
        "data/models/.qwen-3-8b.json, data/models/a.json~, schemas/.notes, "
        "schemas/model.schema.json~ (refused by `builder validate`); remove them and release a "
        "new commit"
    )
    clean = {"data/index.json": b"{}", "schemas/model.schema.json": b"{}", "LICENSE": b""}
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
    """The reader as the wheel stages it, with data/models/.qwen-3-8b.json beside the real
    documents."""
    names = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
    files = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for name in names
        for p in ([REPO / name] if (REPO / name).is_file() else sorted((REPO / name).rglob("*")))
        if p.is_file()
    }
    files["data/models/.qwen-3-8b.json"] = files["data/models/qwen-3-8b.json"]
    reader = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for p in (REPO / "reader").rglob("*")
        if p.is_file()
    }
    root = tmp_path_factory.mktemp("reader")
    for rel, data in staged_files(files, reader, Version("2026-11-29")).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_the_reader_refuses_a_name_that_is_not_a_slug(reader_with_a_dotfile: Path) -> None:
    names = [".qwen-3-8b", "../index", "Qwen 3 8B", "qwen-3-8", "qwen-3-8b"]
    run = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, str(reader_with_a_dotfile), *names],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    slug_rule = "expected a slug, lowercase letters and digits joined by single hyphens"
    assert lines[0].startswith(
        f"unknown model '.qwen-3-8b' in workload text-conversation: {slug_rule}; did you mean "
    )
    assert lines[1] == f"unknown model '../index' in workload text-conversation: {slug_rule}"
    assert lines[2].startswith(
        f"unknown model 'Qwen 3 8B' in workload text-conversation: {slug_rule}; did you mean "
    )
    assert "qwen-3-8b" in lines[0]
    assert "qwen-3-8b" in lines[2]
    assert lines[3].startswith(
        "unknown model 'qwen-3-8' in workload text-conversation; did you mean qwen-3-8b"
    )
    assert ".qwen" not in lines[3]
    assert lines[4] == "served qwen-3-8b"


TAGS = [
    pytest.param("v2026.11.29", Version("2026-11-29"), id="first-release"),
    pytest.param("v2026.11.29.2", Version("2026-11-29", 2), id="second-of-a-day"),
    pytest.param("v2024.02.29", Version("2024-02-29"), id="leap-day"),
    pytest.param("v2026.11.29.999", Version("2026-11-29", 999), id="highest-serial"),
]
NOT_TAGS = [
    pytest.param(
        "v2026.02.30",
        "tag v2026.02.30: expected a real date, found 2026-02-30, a day no calendar has",
        id="feb-30",
    ),
    pytest.param(
        "v2025.02.29",
        "tag v2025.02.29: expected a real date, found 2025-02-29",
        id="not-a-leap-year",
    ),
    pytest.param(
        "v2026.13.01", "tag v2026.13.01: expected a real date, found 2026-13-01", id="month-13"
    ),
    pytest.param(
        "v2026.11.29.1",
        "expected a serial from 2 to 999 without a leading zero, found .1",
        id="serial-1",
    ),
    pytest.param(
        "v2026.11.29.02",
        "expected a serial from 2 to 999 without a leading zero, found .02",
        id="serial-02",
    ),
    pytest.param("v2026.11.29.0", "expected a serial from 2 to 999", id="serial-0"),
    pytest.param("v2026.11.29.1000", "expected a serial from 2 to 999", id="serial-too-high"),
    pytest.param(
        "v2026.11.29.99999999999999999999999", "found .99999999999999999999999", id="serial-huge"
    ),
    pytest.param("v\u0662026.11.29", "expected a release tag", id="non-ascii-digit"),
    pytest.param(
        "v2026-11-29",
        "tag v2026-11-29: expected a release tag, vYYYY.MM.DD or vYYYY.MM.DD.N",
        id="dashes",
    ),
    pytest.param(
        "v2026.11.29\x1b[2J", "tag v2026.11.29\\x1b[2J: expected a release tag", id="escape-escaped"
    ),
]


@pytest.mark.parametrize(("tag", "version"), TAGS)
def test_a_release_tag_reads_as_its_version(tag: str, version: Version) -> None:
    assert read_tag(tag) == version
    assert version.tag == tag


@pytest.mark.parametrize(("tag", "said"), NOT_TAGS)
def test_any_other_tag_is_no_release(tag: str, said: str) -> None:
    with pytest.raises(ReleaseError) as caught:
        read_tag(tag)
    assert said in str(caught.value)
    assert release_versions([tag, "v2026.11.29"]) == [Version("2026-11-29")]


def test_the_newest_release_by_name_is_the_newest_real_one() -> None:
    assert newest_release(
        ["v2026.02.30", "v2026.11.29", "v2026.11.29.2", "v2026.10.01", "vfoo"]
    ) == Version("2026-11-29", 2)


DATES = [
    pytest.param("2026-12-04", None, id="today"),
    pytest.param("2026-12-05", None, id="tomorrow-a-time-zone-ahead"),
    pytest.param(
        "2026-12-06", "expected a date no later than 2026-12-05 (today in UTC", id="after-tomorrow"
    ),
    pytest.param("9999-12-31", "expected a date no later than 2026-12-05", id="far-future"),
    pytest.param("2026-09-26", None, id="the-retrieval-day"),
    pytest.param(
        "2026-09-25", "expected a date no earlier than 2026-09-26", id="before-the-retrieval"
    ),
    pytest.param("1970-01-01", "expected a date no earlier than 2026-09-26", id="epoch"),
]


@pytest.mark.parametrize(("date", "said"), DATES)
def test_the_date_rule(date: str, said: str | None) -> None:
    fault = date_fault(date, "2026-12-04", "2026-09-26")
    assert fault is None if said is None else said in str(fault)
    if fault:
        assert fault.endswith(f"found {date}")


def test_the_data_version_of_a_commit_is_its_newest_published_documents() -> None:
    files = {
        "data/index.json": b'{"data_version": "2026-11-29"}',
        "data/models/qwen-3-8b.json": b'{"data_version": "2026-09-27"}',
        # not published: not counted
        "data/models/.qwen-3-8b.json": b'{"data_version": "2028-01-01"}',
        "schemas/x.json": b'{"data_version": "2029-01-01"}',
        "data/models/broken.json": b"{",
    }
    assert data_version_of(files) == "2026-11-29"
    assert data_version_of({}) is None


SCHEMA_PATHS = [
    pytest.param("model.schema.json", True, id="published"),
    pytest.param("inputs/lock.schema.json", True, id="input"),
    pytest.param(".notes", False, id="dotfile"),
    pytest.param("model.schema.json~", False, id="editor-backup"),
    pytest.param("evil.schema.json", False, id="unknown-name"),
    pytest.param("inputs/.lock.schema.json", False, id="input-dotfile"),
    pytest.param("other/model.schema.json", False, id="other-folder"),
]


@pytest.mark.parametrize(("rel", "known"), SCHEMA_PATHS)
def test_only_the_packages_schemas_belong_in_schemas(rel: str, known: bool) -> None:
    assert layout.is_schema_file(rel) is known


def test_a_schema_names_itself_as_the_projects() -> None:
    own = json.loads((REPO / "schemas" / "inputs" / "lock.schema.json").read_text("utf-8"))
    assert identity_problems("x", "inputs/lock.schema.json", own) == []
    foreign = {"$id": "https://evil.example/x"}
    assert [
        (p.where, p.expected, p.found) for p in identity_problems("x", "units.schema.json", foreign)
    ] == [
        ("/$schema", f'"{layout.SCHEMA_DIALECT}"', "none"),
        ("/$id", '"https://leadgreen.ai/schemas/v1/units.schema.json"', '"https://evil.example/x"'),
    ]
