"""A release as consumers get it, built once per test run and shared by the consumer tests.

A new git repository of the working tree's files (tracked and not ignored), with a changelog
entry, committed at a fixed date and tagged as the current data version's release; then
`builder dist` in it, as the release workflow runs it. Also: a fresh virtual environment.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path

from helpers import REPO

COMMIT_DATE = "2026-10-19T12:00:00+00:00"
COMMIT_EPOCH = 1792411200  # COMMIT_DATE in seconds
GIT_IDENTITY = {  # who commits in a test repository, and no user or system git configuration
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
# What a consumer reads beside the data, which `builder release` checks against workloads.json
# (release.consumer).
CONSUMER_FILES = ("README.md", "docs", "CITATION.cff", ".zenodo.json", "croissant.json")
# what a release repository of the tests holds, copied from the working tree
RELEASE_FILES = (
    "data",
    "schemas",
    "upstream",
    "reader",
    "metadata.toml",
    "datapackage.json",
    "LICENSE",
    "DATA-LICENCE.md",
    ".gitignore",
    *CONSUMER_FILES,
)
GIT_ENV = {**GIT_IDENTITY, "GIT_AUTHOR_DATE": COMMIT_DATE, "GIT_COMMITTER_DATE": COMMIT_DATE}


@dataclass(frozen=True)
class Built:
    root: Path  # scratch folder, removed at exit
    repo: Path  # the tagged repository
    tag: str
    version: str  # the wheel's version
    data_version: str

    @property
    def dist(self) -> Path:
        return self.repo / "dist"

    @property
    def wheel(self) -> Path:
        return self.dist / f"leadgreen_data-{self.version}-py3-none-any.whl"

    @property
    def archive(self) -> Path:
        return self.dist / f"leadgreen-data-{self.tag}.tar.gz"


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, **GIT_ENV, **extra}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=env(), check=True, capture_output=True, text=True
    ).stdout


def builder(repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`builder ARGS` as its own process in `repo`, as CI runs it."""
    return subprocess.run(
        [sys.executable, "-m", "builder", *args],
        cwd=repo,
        env=env(**extra),
        capture_output=True,
        text=True,
    )


def make_release_repo(dest: Path) -> tuple[str, str]:
    """The working tree's files in a new repository, with a changelog entry, committed and
    tagged."""
    from builder.release.rules import Version, changelog_entry, insert_entry

    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)
    data_version = json.loads((dest / "datapackage.json").read_bytes())["version"]
    version = Version(data_version)
    entry = changelog_entry(version, "1", None, None, None, "the pinned upstream")
    (dest / "CHANGELOG.md").write_text(insert_entry("", entry))
    git(dest, "init", "--quiet", "--initial-branch", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "--quiet", "-m", f"Release {version.tag}")
    git(dest, "tag", "--annotate", version.tag, "-m", f"LeadGreen data {version.tag}")
    return version.tag, data_version


@functools.cache
def built() -> Built:
    from builder.release.rules import Version

    root = Path(tempfile.mkdtemp(prefix="leadgreen-consumer-"))
    atexit.register(shutil.rmtree, root, True)
    repo = root / "leadgreen-data"
    repo.mkdir()
    tag, data_version = make_release_repo(repo)
    done = builder(repo, "dist", "--notes", str(root / "notes.md"))
    assert done.returncode == 0, done.stdout + done.stderr
    return Built(root, repo, tag, Version(data_version).number, data_version)


def fresh_venv(where: Path, with_pip: bool = True) -> Path:
    """A new virtual environment (pip, when asked, comes offline from Python's own copy); its
    python."""
    venv.EnvBuilder(with_pip=with_pip, clear=True).create(where)
    return where / "bin" / "python"


def offline_pip_env() -> dict[str, str]:
    """The environment for pip with no index, no find-links and no configuration files."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {
        **keep,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def copy_release_files(root: Path) -> None:
    """RELEASE_FILES of the working tree into `root` (made here)."""
    root.mkdir()
    for name in RELEASE_FILES:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, root / name)
