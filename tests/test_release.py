"""`builder release` in temporary git repositories: tags, artifacts, changelog, and every
refusal."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from consumer_release import GIT_IDENTITY as IDENTITY
from consumer_release import copy_release_files
from edits import scale_model_upstream
from helpers import invoke

pytestmark = pytest.mark.slow  # git repositories and releases


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def with_identity(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture(scope="module")
def fresh_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's files committed in a new repository, never released: made once, copied per
    test."""
    root = tmp_path_factory.mktemp("release-template") / "pkg"
    copy_release_files(root)
    with pytest.MonkeyPatch.context() as mp:
        with_identity(mp, root.parent)
        git(root, "init", "--quiet", "--initial-branch", "main")
        git(root, "add", "-A")
        git(root, "commit", "--quiet", "-m", "data")
    return root


@pytest.fixture(scope="module")
def released_template(fresh_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fresh_template after a first `builder release` (v2026.11.29), which must succeed: made once,
    copied per test. test_happy_path_tags_builds_dist_and_writes_changelog checks that release in
    full, in its own copy."""
    root = tmp_path_factory.mktemp("released-template") / "pkg"
    shutil.copytree(fresh_template, root, symlinks=True)
    with pytest.MonkeyPatch.context() as mp:
        with_identity(mp, root.parent)
        mp.chdir(root)
        result = invoke("release")
        assert result.exit_code == 0, result.output
    assert git(root, "status", "--porcelain") == ""
    return root


def copy_of(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of a template repository as the working directory, with a git identity."""
    root = shutil.copytree(template, tmp_path / "pkg", symlinks=True)
    with_identity(monkeypatch, tmp_path)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def repo(fresh_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package committed in a repository of its own, never released."""
    return copy_of(fresh_template, tmp_path, monkeypatch)


@pytest.fixture
def released_repo(released_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package committed and released once as v2026.11.29, in a repository of its own."""
    return copy_of(released_template, tmp_path, monkeypatch)


def release(cli, *args: str):
    return cli("release", *args)


def rebuild_with(repo: Path, cli, factor: float, date: str) -> None:
    """Scale Qwen 3 8B's energy and power upstream, re-pin, rebuild and commit, as `nox -s
    update` would."""
    scale_model_upstream(repo, "Qwen/Qwen3-8B", factor, date)
    assert cli("build", "--date", date).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", f"upstream x{factor}")


def test_happy_path_tags_builds_dist_and_writes_changelog(repo: Path, cli) -> None:
    result = release(cli)
    assert result.exit_code == 0, result.output
    assert "git push --atomic origin main v2026.11.29" in result.output
    assert git(repo, "cat-file", "-t", "v2026.11.29") == "tag"  # annotated, not lightweight
    assert "First release." in git(repo, "tag", "-l", "--format=%(contents)", "v2026.11.29")
    assert git(repo, "status", "--porcelain") == ""
    changelog = (repo / "CHANGELOG.md").read_text()
    assert "## v2026.11.29 — data version 2026-11-29, API v1" in changelog
    assert "First release." in changelog
    # every workload and document since the seed
    assert "Added since the v1 seed documents" in changelog
    assert (
        "- `text-to-video` (Text to Video): 5 models, 382 configurations, in Wh per video"
        in changelog
    )
    assert (
        "- `workloads/problem-solving/`: `frontier.json`, `index.json`, `models.json`" in changelog
    )
    check = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=repo / "dist", capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count(": OK") == 4  # the archive, the manifest, the wheel and the sdist
    manifest = json.loads((repo / "dist" / "leadgreen-data-v2026.11.29.manifest.json").read_text())
    paths = {f["path"] for f in manifest["files"]}
    assert {
        "data/index.json",
        "schemas/model.schema.json",
        "datapackage.json",
        "CHANGELOG.md",
        "LICENSE",
    } <= paths
    assert {"README.md", "croissant.json", "docs/data-dictionary.md", "CITATION.cff"} <= paths
    assert manifest["upstream"]["tasks"]["lm-arena-chat"]["sha256"].startswith("24e25d46")
    assert list(manifest["upstream"]["tasks"]) == [
        "lm-arena-chat",
        "gpqa",
        "sourcegraph-fim",
        "image-chat",
        "video-chat",
        "text-to-image",
        "text-to-video",
    ]
    # each pinned per-model file with its sha256; their listing's sha256 is the descriptor's source
    models = manifest["upstream"]["models"]
    assert len(models) == 62
    lock = json.loads((repo / "upstream" / "lock.json").read_bytes())["models"]
    assert {name: m["sha256"] for name, m in models.items()} == {
        name: m["sha256"] for name, m in lock.items()
    }
    pinned = sorted(models.values(), key=lambda m: m["file"])
    lines = "".join(f"{m['sha256']}  {m['file']}\n" for m in pinned)
    descriptor = json.loads((repo / "datapackage.json").read_bytes())
    assert descriptor["sources"][-1]["sha256"] == hashlib.sha256(lines.encode()).hexdigest()
    listing = subprocess.run(
        ["tar", "-tzf", "dist/leadgreen-data-v2026.11.29.tar.gz"], capture_output=True, text=True
    )
    assert "leadgreen-data-v2026.11.29/data/models/qwen-3-8b.json" in listing.stdout.split()


RELEASE_EPOCH = 1795910400  # 2026-11-29T00:00:00Z, the release date of v2026.11.29


def test_archive_is_reproducible(repo: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive's bytes depend on its files, its name and the release date, never on the
    clock."""
    assert release(cli).exit_code == 0
    archive = (repo / "dist" / "leadgreen-data-v2026.11.29.tar.gz").read_bytes()
    assert archive[:2] == b"\x1f\x8b"
    assert archive[4:8] == b"\0\0\0\0"  # the gzip header's MTIME field
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        mtimes = {member.name: member.mtime for member in tar.getmembers()}
    assert "leadgreen-data-v2026.11.29/data/index.json" in mtimes
    assert set(mtimes.values()) == {RELEASE_EPOCH}
    first = (repo / "dist" / "SHA256SUMS").read_bytes()
    later = time.time() + 400 * 86400  # rebuilt more than a year later: not one byte differs
    monkeypatch.setattr(time, "time", lambda: later)
    assert cli("dist").exit_code == 0
    monkeypatch.undo()
    assert (repo / "dist" / "SHA256SUMS").read_bytes() == first


def test_second_run_refuses_because_the_tag_exists(released_repo: Path, cli) -> None:
    repo = released_repo
    head = git(repo, "rev-parse", "HEAD")
    result = release(cli)
    assert result.exit_code == 1
    assert "tag v2026.11.29 already exists" in result.output
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "rev-parse", "v2026.11.29^{commit}") == head  # the tag did not move


def test_dirty_tree_refuses(repo: Path, cli) -> None:
    (repo / "data" / "index.json").write_text((repo / "data" / "index.json").read_text() + " ")
    result = release(cli)
    assert result.exit_code == 1
    assert "the working tree is dirty (data/index.json)" in result.output
    assert git(repo, "tag") == ""


def test_commit_that_breaks_the_data_refuses(repo: Path, cli) -> None:
    path = repo / "data" / "models" / "qwen-3-8b.json"
    doc = json.loads(path.read_text())
    doc["best"]["H100"]["joules_per_output_token"] = 0.01
    path.write_text(json.dumps(doc, indent=2) + "\n")
    git(repo, "commit", "--quiet", "-am", "hand edit")
    result = release(cli)
    assert result.exit_code == 1
    assert (
        "data/models/qwen-3-8b.json: /best/H100: expected a copy of configuration" in result.output
    )
    assert git(repo, "tag") == ""
    assert not (repo / "CHANGELOG.md").exists()


def test_a_placeholder_url_or_a_stale_consumer_text_refuses_in_one_line(repo: Path, cli) -> None:
    """builder.release.consumer's rules (tests/test_consumer_sync.py), through the command once."""
    meta = repo / "metadata.toml"
    meta.write_text(meta.read_text().replace("repository = ", "# PLACEHOLDER\nrepository = "))
    cff = repo / "CITATION.cff"
    cff.write_text(cff.read_text().replace("Text to Video", "Text to Film"))
    git(repo, "commit", "--quiet", "-am", "a placeholder and a stale citation")
    result = release(cli)
    assert result.exit_code == 1
    assert result.stderr == (
        "error: refusing to tag what a consumer would read as true: CITATION.cff: expected every "
        "workload, unit "
        "and their count, found no workload Text to Video; metadata.toml: repository: expected a "
        "decided URL, "
        "found https://github.com/leadgreen/leadgreen-data marked PLACEHOLDER\n"
    )
    assert git(repo, "tag") == ""
    assert not (repo / "CHANGELOG.md").exists()


def test_data_older_than_the_newest_tag_refuses(released_repo: Path, cli) -> None:
    """v2026.12.01 names the data committed at it (a commit whose data is dated later); main's
    data is older."""
    repo = released_repo
    git(repo, "checkout", "--quiet", "-b", "later")
    rebuild_with(repo, cli, 1.05, "2026-12-01")
    git(repo, "tag", "--annotate", "v2026.12.01", "-m", "a release from another branch")
    git(repo, "checkout", "--quiet", "main")
    result = release(cli)
    assert result.exit_code == 1
    assert "data version 2026-11-29 is older than the newest release v2026.12.01" in result.output
    assert git(repo, "tag") == "v2026.11.29\nv2026.12.01"


def test_large_change_refuses_without_acceptance_then_releases_with_reason(
    released_repo: Path, cli
) -> None:
    repo = released_repo
    rebuild_with(repo, cli, 1.3, "2026-12-01")
    head = git(repo, "rev-parse", "HEAD")
    refused = release(cli)
    assert refused.exit_code == 1
    assert (
        "large changes since v2026.11.29: qwen-3-8b B200 wh_per_million_output_tokens: 14.74 -> "
        "19.16" in refused.output
    )
    assert "--accept-large-changes REASON" in refused.output
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""
    accepted = release(cli, "--accept-large-changes", "upstream corrected Qwen 3 8B power readings")
    assert accepted.exit_code == 0, accepted.output
    changelog = (repo / "CHANGELOG.md").read_text()
    entry = changelog.split("## v2026.11.29 ")[0]
    assert "## v2026.12.01 — data version 2026-12-01, API v1" in entry
    assert "Large changes accepted: upstream corrected Qwen 3 8B power readings" in entry
    assert "- qwen-3-8b H100 joules_per_output_token: 0.0721292 -> 0.0937679 (+30.0 %)" in entry
    assert "Compared with v2026.11.29:" in entry
    assert changelog.index("## v2026.12.01") < changelog.index("## v2026.11.29")
    assert "Large changes accepted" in git(repo, "tag", "-l", "--format=%(contents)", "v2026.12.01")


def test_small_change_releases_without_acceptance(released_repo: Path, cli) -> None:
    repo = released_repo
    rebuild_with(repo, cli, 1.05, "2026-12-02")
    result = release(cli)
    assert result.exit_code == 0, result.output
    assert (
        "best changed: qwen-3-8b H100 joules_per_output_token: 0.0721292 -> 0.0757356 (+5.0 %)"
        in (repo / "CHANGELOG.md").read_text()
    )


def test_second_release_on_the_same_date_gets_a_serial(released_repo: Path, cli) -> None:
    repo = released_repo
    rebuild_with(repo, cli, 1.05, "2026-12-03")
    assert release(cli).exit_code == 0
    rebuild_with(repo, cli, 1.02, "2026-12-03")
    result = release(cli)
    assert result.exit_code == 0, result.output
    assert "git push --atomic origin main v2026.12.03.2" in result.output
