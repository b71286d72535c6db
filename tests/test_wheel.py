"""`builder dist` and the data wheel: contents, version rules, refusals, and byte-for-byte
reproducibility."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import time
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

from builder import card
from builder.errors import ReleaseError
from builder.release import rules
from builder.release.dist import changelog_notes, staged_files
from consumer_release import COMMIT_EPOCH, Built, builder, built, git
from helpers import REPO


@pytest.fixture(scope="module")
def release() -> Built:
    """The release built once (about 2 s): a tagged repository and its dist/."""
    return built()


@pytest.mark.slow
def test_dist_holds_archive_manifest_wheel_and_checksums(release: Built) -> None:
    names = sorted(p.name for p in release.dist.iterdir())
    assert names == sorted(
        [
            "SHA256SUMS",
            f"leadgreen-data-{release.tag}.manifest.json",
            f"leadgreen-data-{release.tag}.tar.gz",
            f"leadgreen_data-{release.version}-py3-none-any.whl",
            f"leadgreen_data-{release.version}.tar.gz",
        ]
    )
    check = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=release.dist, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count(": OK") == 4


@pytest.mark.slow
def test_wheel_holds_every_published_file_and_the_reader(release: Built) -> None:
    published = {
        rel: (release.repo / rel).read_bytes()
        for rel in git(release.repo, "ls-files", "data", "schemas", "datapackage.json").split()
        # the builder's own input schemas are never published
        if not rel.startswith("schemas/inputs/")
    }
    with zipfile.ZipFile(release.wheel) as whl:
        names = whl.namelist()
        for rel, data in published.items():
            assert whl.read(f"leadgreen_data/{rel}") == data, rel
        metadata = whl.read(f"leadgreen_data-{release.version}.dist-info/METADATA").decode()
        generated = whl.read("leadgreen_data/_release.py").decode()
    module = {"leadgreen_data/__init__.py", "leadgreen_data/__main__.py", "leadgreen_data/py.typed"}
    module |= {"leadgreen_data/_release.py", "leadgreen_data/_csv.py"}
    module |= {"leadgreen_data/CITATION.cff"}
    types = ("__init__", "_common", "_generation", "_llm")  # the generated types package
    module |= {f"leadgreen_data/types/{name}.py" for name in types}
    module |= {
        "leadgreen_data/README.md",
        "leadgreen_data/croissant.json",
        "leadgreen_data/docs/data-dictionary.md",
    }
    info = f"leadgreen_data-{release.version}.dist-info/"
    meta = {
        info + name
        for name in ("METADATA", "WHEEL", "RECORD", "licenses/LICENSE", "licenses/DATA-LICENCE.md")
    }
    assert set(names) == {f"leadgreen_data/{rel}" for rel in published} | module | meta
    assert "Name: leadgreen-data\n" in metadata
    assert f"Version: {release.version}\n" in metadata
    assert "Requires-Dist" not in metadata  # no dependencies
    summary = next(line for line in metadata.splitlines() if line.startswith("Summary: "))
    listed = card.listed_workloads((release.repo / "data" / "workloads.json").read_bytes())
    assert card.missing(summary, listed) == []
    assert f'DATA_VERSION = "{release.data_version}"' in generated
    assert f'TAG = "{release.tag}"' in generated


@pytest.mark.slow
def test_wheel_timestamps_are_the_commit_date_and_modes_normalised(release: Built) -> None:
    from datetime import UTC, datetime

    stamp = datetime.fromtimestamp(COMMIT_EPOCH, UTC).timetuple()[:6]
    with zipfile.ZipFile(release.wheel) as whl:
        for info in whl.infolist():
            assert info.date_time == stamp, info.filename
            assert info.external_attr >> 16 == 0o100644, info.filename


@pytest.mark.slow
def test_a_second_clone_at_another_time_builds_the_same_bytes(
    release: Built, tmp_path: Path
) -> None:
    """Another clone, checked out at the tag, other file times, another clock, another TZ, a
    stray epoch."""
    first = {p.name: p.read_bytes() for p in release.dist.iterdir()}
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "--quiet", str(release.repo), str(other)], check=True)
    git(other, "checkout", "--quiet", release.tag)
    for path in other.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, (978307200, 978307200))  # 2001-01-01
    time.sleep(2.1)  # past a zip timestamp's 2-second step
    done = builder(other, "dist", SOURCE_DATE_EPOCH="315532800", TZ="Pacific/Kiritimati")
    assert done.returncode == 0, done.stderr
    second = {p.name: p.read_bytes() for p in (other / "dist").iterdir()}
    assert second.keys() == first.keys()
    for name in first:
        assert (
            hashlib.sha256(second[name]).hexdigest() == hashlib.sha256(first[name]).hexdigest()
        ), name
    assert f"SOURCE_DATE_EPOCH={COMMIT_EPOCH}" in done.stdout


@pytest.mark.slow
def test_dist_writes_the_tags_changelog_entry_as_release_notes(release: Built) -> None:
    notes = (release.root / "notes.md").read_text()
    assert notes.startswith(f"## {release.tag} — data version {release.data_version}, API v1\n")
    assert "First release." in notes


def test_changelog_notes_stop_at_the_next_entry() -> None:
    log = (
        "# Changelog\n\n## v2026.12.01 — data version 2026-12-01, API v1\n\nNew.\n\n## "
        "v2026.10.19 — x\n\nOld.\n"
    )
    assert (
        changelog_notes(log, "v2026.12.01")
        == "## v2026.12.01 — data version 2026-12-01, API v1\n\nNew.\n"
    )
    assert changelog_notes(log, "v2026.10.19") == "## v2026.10.19 — x\n\nOld.\n"
    with pytest.raises(ReleaseError, match=r"CHANGELOG.md has no entry for v2026.10.1$"):
        changelog_notes(log, "v2026.10.1")


@pytest.fixture
def scratch_clone(release: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(release.repo), str(clone)], check=True)
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(key, "t")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.chdir(clone)
    return clone


@pytest.mark.slow
def test_dist_refuses_without_a_release_tag_at_head(scratch_clone: Path, cli) -> None:
    (scratch_clone / "notes.txt").write_text("after the release\n")
    git(scratch_clone, "add", "notes.txt")
    git(scratch_clone, "commit", "--quiet", "-m", "after")
    result = cli("dist")
    assert result.exit_code == 1
    assert "error: no release tag at HEAD (" in result.output
    assert "check out a release tag first (for example git checkout v" in result.output
    assert not (scratch_clone / "dist").exists()


@pytest.mark.slow
def test_dist_refuses_a_dirty_tree(scratch_clone: Path, cli) -> None:
    index = scratch_clone / "data" / "index.json"
    index.write_text(index.read_text() + " ")
    result = cli("dist")
    assert result.exit_code == 1
    assert (
        "error: the working tree is dirty (data/index.json); dist/ is built from a clean checkout"
        in result.output
    )
    assert not (scratch_clone / "dist").exists()


@pytest.mark.parametrize(
    ("release", "version"),
    [
        (rules.Version("2026-10-19"), "2026.10.19"),
        (rules.Version("2026-10-19", 2), "2026.10.19.2"),
        (rules.Version("2026-01-05"), "2026.1.5"),
    ],
)
def test_dist_version_is_the_tag_without_v_in_pep440_form(
    release: rules.Version, version: str
) -> None:
    assert release.number == version
    assert str(Version(version)) == version
    assert Version(release.tag[1:]) == Version(version)  # pip matches either spelling


def _release_files() -> dict[str, bytes]:
    names = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
    files: dict[str, bytes] = {}
    for name in names:
        path = REPO / name
        for p in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if p.is_file():
                files[p.relative_to(REPO).as_posix()] = p.read_bytes()
    return files


def _reader_files() -> dict[str, bytes]:
    return {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for p in (REPO / "reader").rglob("*")
        if p.is_file()
    }


def test_the_wheel_takes_every_file_under_data_so_new_workloads_come_along() -> None:
    files = _release_files()
    doc = json.loads(files["data/index.json"]) | {
        "data_version": "2027-01-02",
        "workload": "image-generation",
    }
    files["data/workloads/image-generation/index.json"] = json.dumps(doc).encode()
    staged = staged_files(files, _reader_files(), rules.Version("2027-01-02"))
    assert "leadgreen_data/data/workloads/image-generation/index.json" in staged
    assert "leadgreen_data/data/workloads.json" in staged
    assert b'DATA_VERSION = "2027-01-02"' in staged["leadgreen_data/_release.py"]
    assert "CHANGELOG.md" not in staged
    assert "leadgreen_data/CHANGELOG.md" not in staged
    assert b'version = "2027.1.2"' in staged["pyproject.toml"]


def test_the_reader_may_not_shadow_a_published_file() -> None:
    reader = _reader_files() | {"reader/leadgreen_data/datapackage.json": b"{}"}
    with pytest.raises(
        ReleaseError,
        match=r"reader/leadgreen_data/datapackage\.json would shadow the published file",
    ):
        staged_files(_release_files(), reader, rules.Version("2026-10-19"))


def test_wheel_module_is_a_stdlib_only_reader() -> None:
    """The reader imports nothing outside the standard library (checked on its source)."""
    import ast
    import sys as _sys

    for path in (REPO / "reader" / "leadgreen_data").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
            for name in names:
                top = name.split(".")[0]
                assert top in _sys.stdlib_module_names or top == "leadgreen_data", (
                    f"{path.name}: imports {name}"
                )


@pytest.mark.slow
def test_wheel_size_is_small(release: Built) -> None:
    assert release.wheel.stat().st_size < 1_000_000
    with zipfile.ZipFile(io.BytesIO(release.wheel.read_bytes())) as whl:
        assert whl.testzip() is None


@pytest.mark.slow
def test_the_citation_is_in_the_archive_and_the_wheel(release: Built) -> None:
    import tarfile

    cff = (release.repo / "CITATION.cff").read_bytes()
    with tarfile.open(release.archive) as tar:
        member = tar.extractfile(f"leadgreen-data-{release.tag}/CITATION.cff")
        assert member is not None
        assert member.read() == cff
    with zipfile.ZipFile(release.wheel) as whl:
        assert whl.read("leadgreen_data/CITATION.cff") == cff


@pytest.mark.slow
def test_the_wheels_project_urls_point_into_the_repository_at_the_tag(release: Built) -> None:
    import tomllib

    repository = tomllib.loads((release.repo / "metadata.toml").read_text())["repository"]
    with zipfile.ZipFile(release.wheel) as whl:
        metadata = whl.read(f"leadgreen_data-{release.version}.dist-info/METADATA").decode()
    urls = sorted(line for line in metadata.splitlines() if line.startswith("Project-URL: "))
    assert urls == [
        f"Project-URL: Changelog, {repository}/blob/{release.tag}/CHANGELOG.md",
        f"Project-URL: Data dictionary, {repository}/blob/{release.tag}/docs/data-dictionary.md",
        "Project-URL: Homepage, https://leadgreen.ai",
        f"Project-URL: Repository, {repository}",
    ]
