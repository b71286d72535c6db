"""Hostile corpus of `builder release`: incomplete clones, failing hooks, no identity, a tag that
cannot be made, an unwritable dist/, and stray files beside the committed ones.

Every refused case holds the release to all of: exit 1, a message naming the cause (file, tag or
git state), no traceback, the whole repo folder hashed identical before and after (refs, HEAD and
config included), `git status` as before, `git for-each-ref` and HEAD unchanged; then the cause is
fixed and a rerun releases.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from consumer_release import GIT_IDENTITY as IDENTITY
from consumer_release import copy_release_files
from edits import scale_model_upstream
from helpers import default_signals
from hostile import Outcome, assert_refused, run_cli, tree_digest

INCLUDED = (
    "data",
    "schemas",
    "datapackage.json",
    "CHANGELOG.md",
    "LICENSE",
    "DATA-LICENCE.md",
    "CITATION.cff",
)
# and README.md, written from data/workloads.json
INCLUDED += (
    "croissant.json",
    "docs/data-dictionary.md",
)
FIRST = "v2026.11.29"
RELEASED_NOTHING = "Nothing was released"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def new_repo(root: Path) -> Path:
    copy_release_files(root)
    git(root, "init", "--quiet", "--initial-branch", "main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "data")
    return root


def rebuild_with(repo: Path, factor: float, date: str) -> None:
    """Scale Qwen 3 8B's energy upstream, re-pin, rebuild and commit, as `nox -s update` would."""
    scale_model_upstream(repo, "Qwen/Qwen3-8B", factor, date)
    built = run_cli("build", "--date", date)
    assert built.exit_code == 0, built.output
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", f"upstream x{factor}")


def release(*args: str) -> Outcome:
    return run_cli("release", *args)


def released(outcome: Outcome, tag: str) -> None:
    """A rerun after the fix: it tags, leaves a clean tree and a dist/ that checks."""
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.exit_code == 0, outcome.output
    assert f"Tagged {tag}." in outcome.output
    repo = Path.cwd()
    assert git(repo, "cat-file", "-t", tag) == "tag"
    assert git(repo, "rev-parse", f"{tag}^{{commit}}") == git(repo, "rev-parse", "HEAD")
    assert git(repo, "status", "--porcelain") == ""
    check = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=repo / "dist", capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr


@dataclass(frozen=True)
class State:
    digest: dict[str, str]
    refs: str
    head: str
    status: str


def state(repo: Path) -> State:
    head = git(repo, "symbolic-ref", "--quiet", "HEAD") + " " + git(repo, "rev-parse", "HEAD")
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    return State(tree_digest(repo), refs, head, git(repo, "status", "--porcelain"))


def assert_nothing_changed(
    outcome: Outcome, names: tuple[str, ...], before: State, after: State
) -> None:
    assert_refused(outcome, 1, names, before.digest, after.digest)
    assert after.refs == before.refs
    assert after.head == before.head
    assert after.status == before.status


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Made once, copied per case: "fresh" (the data committed, never released) and "second"
    (released
    as v2026.11.29, with CHANGELOG.md and dist/, then an unreleased change dated 2026-12-02)."""
    base = tmp_path_factory.mktemp("templates")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in IDENTITY.items():
            mp.setenv(key, value)
        mp.setenv("HOME", str(base))
        fresh = new_repo(base / "fresh")
        second = base / "second"
        shutil.copytree(fresh, second, symlinks=True)
        mp.chdir(second)
        released(release(), FIRST)
        rebuild_with(second, 1.05, "2026-12-02")
    return {"fresh": fresh, "second": second}


@pytest.fixture
def make_repo(
    templates: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Path]:
    """A private copy of a template as the working directory, with a git identity and an empty
    HOME."""

    def make(kind: str) -> Path:
        for key, value in IDENTITY.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("HOME", str(tmp_path))
        root = tmp_path / "pkg"
        shutil.copytree(templates[kind], root, symlinks=True)
        monkeypatch.chdir(root)
        return root

    return make


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("fresh")


def trust_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip `builder validate` and the drift check inside the release (about 1 s a run): these cases
    break what comes after them. test_release.py and the archive cases here run them."""
    from builder.release import flow

    monkeypatch.setattr(flow, "check_committed", lambda _data, _date: None)


@pytest.fixture
def trusted_data(monkeypatch: pytest.MonkeyPatch) -> None:
    trust_data(monkeypatch)


def hook(repo: Path, name: str, body: str) -> Path:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def listing(repo: Path, tag: str) -> dict[str, bytes]:
    """The archive's members (prefix stripped) with their bytes."""
    data = (repo / "dist" / f"leadgreen-data-{tag}.tar.gz").read_bytes()
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        top = f"leadgreen-data-{tag}/"
        return {
            m.name.removeprefix(top): tar.extractfile(m).read()
            for m in tar.getmembers()
            if m.isfile()
        }


# --- Incomplete clones: a shallow clone, or a full one without the tags CHANGELOG.md names ---


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repo with releases v2026.11.29 and v2026.11.29.2, then an unreleased change dated
    2026-12-02."""
    base = tmp_path_factory.mktemp("origin")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in IDENTITY.items():
            mp.setenv(key, value)
        mp.setenv("HOME", str(base))
        root = new_repo(base / "origin")
        mp.chdir(root)
        released(release(), FIRST)
        rebuild_with(root, 1.05, "2026-11-29")
        released(release(), f"{FIRST}.2")
        rebuild_with(root, 1.02, "2026-12-02")
    return root


def clone(origin: Path, dest: Path, *options: str) -> Path:
    subprocess.run(["git", "clone", "--quiet", *options, f"file://{origin}", str(dest)], check=True)
    return dest


def fetch_all(repo: Path) -> None:
    if git(repo, "rev-parse", "--is-shallow-repository") == "true":
        git(repo, "fetch", "--quiet", "--tags", "--unshallow")
    else:
        git(repo, "fetch", "--quiet", "--tags")


UNSHALLOW = ("shallow", "git fetch --tags --unshallow")
CLONES = [
    pytest.param(("--depth", "1", "--no-tags"), None, UNSHALLOW, id="depth-1-no-tags"),
    pytest.param(("--depth", "1"), None, UNSHALLOW, id="depth-1-with-tags"),
    pytest.param(("--depth", "3", "--no-tags"), None, UNSHALLOW, id="depth-3-no-tags"),
    pytest.param(
        ("--shallow-exclude", FIRST),
        None,
        ("shallow", "--unshallow"),
        id="shallow-exclude-first-tag",
    ),
    pytest.param(
        ("--no-tags",),
        None,
        ("CHANGELOG.md", "v2026.11.29.2, v2026.11.29", "git fetch --tags"),
        id="full-no-tags",
    ),
    pytest.param(
        (),
        (f"{FIRST}.2",),
        ("CHANGELOG.md", f"{FIRST}.2 ", "git fetch --tags"),
        id="newest-tag-deleted",
    ),
    pytest.param(
        (),
        (FIRST,),
        ("CHANGELOG.md", f"{FIRST} (not in", "git fetch --tags"),
        id="oldest-tag-deleted",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("options", "delete", "names"), CLONES)
@pytest.mark.usefixtures("trusted_data")
def test_incomplete_clone_is_refused_until_fetched(
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    options: tuple[str, ...],
    delete: tuple[str, ...] | None,
    names: tuple[str, ...],
) -> None:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    repo = clone(origin, tmp_path / "clone", *options)
    for tag in delete or ():
        git(repo, "tag", "--delete", tag)
    monkeypatch.chdir(repo)
    before = state(repo)
    outcome = release()
    assert_nothing_changed(outcome, names, before, state(repo))
    fetch_all(repo)
    done = release()
    released(done, "v2026.12.02")
    entry = (repo / "CHANGELOG.md").read_text().split(f"## {FIRST}.2 ")[0]
    assert "## v2026.12.02 — data version 2026-12-02" in entry
    assert f"Compared with {FIRST}.2:" in entry
    assert "First release." not in entry


# --- The commit fails: hooks, a ref update that is refused; everything written so far is undone ---

LINT_FAILS = "echo 'pre-commit: lint failed' >&2; exit 1"
COMMIT_FAILURES = [
    pytest.param(
        "pre-commit",
        "echo 'pre-commit: lint failed' >&2; exit 1",
        False,
        "lint failed",
        id="pre-commit-first",
    ),
    pytest.param(
        "pre-commit",
        "echo 'pre-commit: lint failed' >&2; exit 1",
        True,
        "lint failed",
        id="pre-commit-second",
    ),
    pytest.param(
        "pre-commit",
        "echo scribble >> CHANGELOG.md; git add CHANGELOG.md; echo 'pre-commit: edited and "
        "failed' >&2; exit 1",
        True,
        "edited and failed",
        id="pre-commit-edits-changelog",
    ),
    pytest.param(
        "commit-msg",
        "echo 'commit-msg: no ticket' >&2; exit 1",
        False,
        "no ticket",
        id="commit-msg",
    ),
    pytest.param(
        "reference-transaction",
        'if [ "$1" = prepared ]; then echo "ref-tx: frozen" >&2; exit 1; fi',
        False,
        "frozen",
        id="reference-transaction-refuses-all",
    ),
]


@pytest.mark.slow
def test_held_index_lock_fails_the_staging_and_rolls_back(repo: Path) -> None:
    """`git add` cannot take .git/index.lock (another git process holds it): CHANGELOG.md goes,
    nothing else moved."""
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = state(repo)
    outcome = release()
    assert_nothing_changed(
        outcome, ("git add", "index.lock", RELEASED_NOTHING), before, state(repo)
    )
    lock.unlink()
    released(release(), FIRST)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "body", "second", "said"), COMMIT_FAILURES)
@pytest.mark.usefixtures("trusted_data")
def test_failed_commit_rolls_everything_back(
    make_repo: Callable[[str], Path], name: str, body: str, second: bool, said: str
) -> None:
    repo = make_repo("second" if second else "fresh")
    tag = "v2026.12.02" if second else FIRST
    script = hook(repo, name, body)
    before = state(repo)
    outcome = release()
    assert_nothing_changed(outcome, ("git commit", said, RELEASED_NOTHING), before, state(repo))
    script.unlink()
    released(release(), tag)
    assert (repo / "CHANGELOG.md").read_text().count("## v") == (2 if second else 1)


# --- No git identity: refused before anything is written (and undone if the commit still fails) ---


def bare_env(home: Path, config_only: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "EMAIL"}
    env |= {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}
    if config_only:  # as on a host whose name gives git no usable e-mail address: no guessing
        env |= {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "user.useConfigOnly",
            "GIT_CONFIG_VALUE_0": "true",
        }
    return env


def _guesses_identity(env: dict[str, str]) -> bool:
    return (
        subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], env=env, capture_output=True).returncode
        == 0
    )


IDENTITIES = [
    pytest.param({}, True, id="nothing-configured"),
    pytest.param({"user.name": "Ada"}, True, id="name-only"),
    pytest.param({"user.email": "ada@example.org"}, True, id="email-only"),
    pytest.param({}, False, id="nothing-configured-host-guess"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("config", "config_only"), IDENTITIES)
def test_no_identity_is_refused(
    templates: dict[str, Path], tmp_path: Path, config: dict[str, str], config_only: bool
) -> None:
    """The CLI as a process whose environment names nobody: no GIT_* identity, no global or system
    config, an empty HOME; the repo config has at most half an identity."""
    home = tmp_path / "home"
    home.mkdir()
    env = bare_env(home, config_only)
    if _guesses_identity(env):
        pytest.skip("git guesses an identity from this host's name")
    repo = shutil.copytree(templates["fresh"], tmp_path / "pkg", symlinks=True)
    for key, value in config.items():
        git(repo, "config", key, value)
    before = state(repo)
    outcome = run_cli("release", subprocess_=True, cwd=repo, env=env)
    assert_nothing_changed(
        outcome, ("no git identity", "git config user.email"), before, state(repo)
    )
    git(repo, "config", "user.name", "Ada")
    git(repo, "config", "user.email", "ada@example.org")
    # the rerun in-process (faster), in the same environment
    with pytest.MonkeyPatch.context() as mp:
        for key in os.environ.keys() - env.keys():
            mp.delenv(key)
        for key, value in env.items():
            mp.setenv(key, value)
        mp.chdir(repo)
        trust_data(mp)
        released(release(), FIRST)
    assert "Ada <ada@example.org>" in git(repo, "log", "-1", "--format=%an <%ae>")


@pytest.mark.slow
@pytest.mark.parametrize(
    "second", [pytest.param(False, id="first"), pytest.param(True, id="second")]
)
@pytest.mark.usefixtures("trusted_data")
def test_commit_without_identity_past_the_check_rolls_back(
    make_repo: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, second: bool
) -> None:
    """Should the identity check pass and `git commit` still find none, the commit step's
    rollback runs."""
    repo = make_repo("second" if second else "fresh")
    from builder import git as builder_git

    monkeypatch.setattr(builder_git, "missing_identity", lambda: None)
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    before = state(repo)
    outcome = release()
    assert_nothing_changed(outcome, ("git commit", RELEASED_NOTHING), before, state(repo))
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    released(release(), "v2026.12.02" if second else FIRST)


# --- The tag cannot be made: the commit is undone ---


def lock_file(tag: str) -> Callable[[Path], Callable[[], None]]:
    def setup(repo: Path) -> Callable[[], None]:
        lock = repo / ".git" / "refs" / "tags" / f"{tag}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("")
        return lock.unlink

    return setup


def refuse_tags(repo: Path) -> Callable[[], None]:
    script = hook(
        repo,
        "reference-transaction",
        'if [ "$1" = prepared ] && grep -q " refs/tags/"; then echo "ref-tx: tags are frozen" '
        ">&2; exit 1; fi",
    )
    return script.unlink


def folder_in_the_way(tag: str) -> Callable[[Path], Callable[[], None]]:
    def setup(repo: Path) -> Callable[[], None]:
        git(repo, "tag", f"{tag}/draft")  # refs/tags/<tag>/ is a folder: no ref <tag> can be made

        def fix() -> None:
            git(repo, "tag", "--delete", f"{tag}/draft")

        return fix

    return setup


TAG_FAILURES = [
    pytest.param(lock_file(FIRST), False, (FIRST, ".lock"), id="ref-lock-file"),
    pytest.param(
        refuse_tags, False, (FIRST, "tags are frozen"), id="reference-transaction-refuses-tags"
    ),
    pytest.param(folder_in_the_way(FIRST), False, (FIRST, "git tag"), id="ref-folder-in-the-way"),
    pytest.param(
        lock_file("v2026.12.02"), True, ("v2026.12.02", ".lock"), id="ref-lock-file-second-release"
    ),
    pytest.param(
        refuse_tags,
        True,
        ("v2026.12.02", "tags are frozen"),
        id="reference-transaction-second-release",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "second", "names"), TAG_FAILURES)
@pytest.mark.usefixtures("trusted_data")
def test_failed_tag_rolls_back_the_commit(
    make_repo: Callable[[str], Path],
    setup: Callable[[Path], Callable[[], None]],
    second: bool,
    names: tuple[str, ...],
) -> None:
    repo = make_repo("second" if second else "fresh")
    fix = setup(repo)
    before = state(repo)
    outcome = release()
    assert_nothing_changed(outcome, (*names, RELEASED_NOTHING), before, state(repo))
    fix()
    released(release(), "v2026.12.02" if second else FIRST)


# --- dist/ would be damaged by the rebuild after the tag: refused before anything is written ---


def dist_file(ignored: bool) -> Callable[[Path], Callable[[], None]]:
    """dist is a file; .gitignore's `dist/` matches folders only, so unless ignored it makes the
    tree dirty."""

    def setup(repo: Path) -> Callable[[], None]:
        if ignored:
            exclude(repo, "/dist")
        (repo / "dist").write_bytes(b"not a folder\n")
        return (repo / "dist").unlink

    return setup


def dist_dangling_link(repo: Path) -> Callable[[], None]:
    exclude(repo, "/dist")
    (repo / "dist").symlink_to(repo / "nowhere")
    return (repo / "dist").unlink


def folder_at(name: str, stale: bool) -> Callable[[Path], Callable[[], None]]:
    """dist/ holds a file of someone's, a folder where a release file goes, and maybe a stale
    archive."""

    def setup(repo: Path) -> Callable[[], None]:
        dist = repo / "dist"
        (dist / name).mkdir(parents=True)
        (dist / name / "inside").write_bytes(b"keep\n")
        (dist / "notes.txt").write_bytes(b"someone's notes\n")
        if stale:
            (dist / f"leadgreen-data-{FIRST}.tar.gz").write_bytes(
                b"a stale archive, not this release's\n"
            )
        return lambda: shutil.rmtree(dist / name)

    return setup


def read_only_dist(repo: Path) -> Callable[[], None]:
    dist = repo / "dist"
    dist.mkdir()
    (dist / "notes.txt").write_bytes(b"someone's notes\n")
    dist.chmod(0o555)
    return lambda: dist.chmod(0o755)


def immutable_dist(repo: Path) -> Callable[[], None]:
    """dist/ holds someone's file and takes no new ones, even from root (`chattr +i`)."""
    dist = repo / "dist"
    dist.mkdir()
    (dist / "notes.txt").write_bytes(b"someone's notes\n")
    if (
        not shutil.which("chattr")
        or subprocess.run(["chattr", "+i", dist], capture_output=True).returncode
    ):
        pytest.skip("this file system or user cannot mark a folder immutable")
    return lambda: subprocess.run(["chattr", "-i", dist], check=True) and None


ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOT_A_FOLDER = "dist: expected a folder, found"
FOREIGN = "dist: expected an empty folder or a folder of release files, found"
DIST_FAILURES = [
    pytest.param(dist_file(False), ("the working tree is dirty (dist)",), id="dist-is-a-file"),
    pytest.param(
        dist_file(True), (f"{NOT_A_FOLDER} a regular file",), id="dist-is-an-ignored-file"
    ),
    pytest.param(
        dist_dangling_link, (f"{NOT_A_FOLDER} a symbolic link",), id="dist-is-a-dangling-link"
    ),
    pytest.param(
        folder_at("SHA256SUMS", False),
        (f"{FOREIGN} SHA256SUMS/, notes.txt",),
        id="sums-name-is-a-folder",
    ),
    pytest.param(
        folder_at(f"leadgreen-data-{FIRST}.manifest.json", True),
        (f"{FOREIGN} leadgreen-data-{FIRST}.manifest.json/, notes.txt",),
        id="manifest-name-is-a-folder-stale-archive",
    ),
    pytest.param(immutable_dist, (f"{FOREIGN} notes.txt",), id="dist-immutable"),
    pytest.param(
        read_only_dist,
        (f"{FOREIGN} notes.txt",),
        id="dist-read-only",
        marks=pytest.mark.skipif(ROOT, reason="root writes into a read-only folder"),
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "names"), DIST_FAILURES)
@pytest.mark.usefixtures("trusted_data")
def test_a_dist_folder_the_rebuild_would_damage_is_refused_first(
    repo: Path, setup: Callable[[Path], Callable[[], None]], names: tuple[str, ...]
) -> None:
    fix = setup(repo)
    try:
        before = state(repo)
        outcome = release()
        after = state(repo)
    finally:
        fix()  # before any assertion can fail: pytest must be able to delete an immutable folder
    assert_nothing_changed(outcome, names, before, after)
    assert git(repo, "tag") == ""
    (repo / "dist" / "notes.txt").unlink(missing_ok=True)
    released(release(), FIRST)


# --- The archive holds the committed tree, whatever else lies in the working folder ---


def exclude(repo: Path, *patterns: str) -> None:
    with (repo / ".git" / "info" / "exclude").open("a") as f:
        f.write("".join(f"{p}\n" for p in patterns))


def stray_pyc(repo: Path) -> None:
    (repo / "schemas" / "__pycache__").mkdir()
    (repo / "schemas" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\x00compiled")


def stray_notes(repo: Path) -> None:
    exclude(repo, "schemas/notes.md", "data/NOTES.txt")
    (repo / "schemas" / "notes.md").write_text("private notes\n")
    (repo / "data" / "NOTES.txt").write_text("private notes\n")


def stray_json_in_data(repo: Path) -> None:
    exclude(repo, "data/scratch/", "data/models/ghost.json")
    (repo / "data" / "scratch").mkdir()
    (repo / "data" / "scratch" / "big.json").write_text('{"not": "published"}\n')
    (repo / "data" / "models" / "ghost.json").write_text('{"slug": "ghost"}\n')


def hidden_edit(flag: str, rel: str) -> Callable[[Path], None]:
    """An edit git status does not show (skip-worktree or assume-unchanged): the archive has
    HEAD's bytes."""

    def setup(repo: Path) -> None:
        git(repo, "update-index", flag, rel)
        path = repo / rel
        path.write_bytes(path.read_bytes() + b"\n\n")

    return setup


ARCHIVES = [
    pytest.param(stray_pyc, id="ignored-pycache-in-schemas"),
    pytest.param(stray_notes, id="excluded-notes-in-schemas-and-data"),
    pytest.param(stray_json_in_data, id="excluded-json-in-data"),
    pytest.param(
        hidden_edit("--skip-worktree", "data/models/qwen-3-8b.json"),
        id="skip-worktree-edit-in-data",
    ),
    pytest.param(
        hidden_edit("--assume-unchanged", "schemas/model.schema.json"),
        id="assume-unchanged-in-schemas",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("setup", ARCHIVES)
def test_archive_holds_only_the_committed_tree(repo: Path, setup: Callable[[Path], None]) -> None:
    setup(repo)
    assert git(repo, "status", "--porcelain") == ""
    strays = {
        rel: digest
        for rel, digest in tree_digest(repo).items()
        if rel.split("/")[0] in ("data", "schemas")
    }
    released(release(), FIRST)
    members = listing(repo, FIRST)
    tree = git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", *INCLUDED).splitlines()
    assert sorted(members) == sorted(
        ["README.md", *(rel for rel in tree if not rel.startswith("schemas/inputs/"))]
    )
    for rel, data in members.items():
        if rel == "README.md":
            continue  # written by builder dist from the committed data/workloads.json
        committed = subprocess.run(
            ["git", "cat-file", "blob", f"HEAD:{rel}"], cwd=repo, capture_output=True, check=True
        )
        assert data == committed.stdout, rel
    manifest = json.loads((repo / "dist" / f"leadgreen-data-{FIRST}.manifest.json").read_text())
    assert [f["path"] for f in manifest["files"]] == sorted(members)
    after = tree_digest(repo)
    # the stray files are still there, untouched
    assert {rel: after.get(rel) for rel in strays} == strays


@pytest.mark.slow
def test_untracked_file_in_data_is_refused_as_dirty(repo: Path) -> None:
    (repo / "data" / "draft.json").write_text("{}\n")
    before = state(repo)
    outcome = release()
    assert_nothing_changed(
        outcome, ("the working tree is dirty", "data/draft.json"), before, state(repo)
    )
    (repo / "data" / "draft.json").unlink()
    released(release(), FIRST)
    assert "data/draft.json" not in listing(repo, FIRST)


@pytest.mark.slow
def test_changelog_hidden_from_git_status_is_refused(make_repo: Callable[[str], Path]) -> None:
    repo = make_repo("second")
    hidden_edit("--skip-worktree", "CHANGELOG.md")(repo)
    before = state(repo)
    outcome = release()
    assert_nothing_changed(
        outcome, ("CHANGELOG.md: expected the committed file", "skip-worktree"), before, state(repo)
    )
    git(repo, "update-index", "--no-skip-worktree", "CHANGELOG.md")
    git(repo, "checkout", "--", "CHANGELOG.md")
    released(release(), "v2026.12.02")


# --- Interrupted (Ctrl-C) at each step after the first write: the same rollback, then click's
# "Aborted!" ---


def interrupt_at_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    from builder import git as builder_git

    def stop(*_args: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(builder_git, "create_annotated_tag", stop)


def interrupt_at_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    from builder import git as builder_git

    def stop(*_args: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(builder_git, "commit", stop)


INTERRUPTS = [
    pytest.param(interrupt_at_commit, False, id="at-commit"),
    pytest.param(interrupt_at_tag, False, id="at-tag"),
    pytest.param(interrupt_at_tag, True, id="at-tag-second-release"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("interrupt", "second"), INTERRUPTS)
@pytest.mark.usefixtures("trusted_data")
def test_interrupt_before_the_tag_rolls_everything_back(
    make_repo: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    interrupt: Callable[[pytest.MonkeyPatch], None],
    second: bool,
) -> None:
    repo = make_repo("second" if second else "fresh")
    before = state(repo)
    with monkeypatch.context() as mp:
        interrupt(mp)
        outcome = release()
    assert_nothing_changed(outcome, ("Aborted!",), before, state(repo))
    released(release(), "v2026.12.02" if second else FIRST)


@pytest.mark.slow
@pytest.mark.usefixtures("trusted_data")
def test_interrupt_after_the_tag_keeps_the_release_and_dist_is_rebuilt(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from builder import git as builder_git

    real = builder_git.create_annotated_tag

    def made_then_stop(tag: str, message: str, target: str) -> None:
        real(tag, message, target)
        raise KeyboardInterrupt

    with monkeypatch.context() as mp:
        mp.setattr(builder_git, "create_annotated_tag", made_then_stop)
        outcome = release()
    assert outcome.exit_code == 1
    assert "Aborted!" in outcome.output
    assert git(repo, "rev-parse", f"{FIRST}^{{commit}}") == git(repo, "rev-parse", "HEAD")
    assert not (repo / "dist").exists()
    assert run_cli("dist").exit_code == 0
    check = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=repo / "dist", capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr


# --- The changelog's headings, as the incomplete-clone check reads them ---


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        pytest.param("# Changelog\n\n## v2026.10.19 — data version\n", ["v2026.10.19"], id="one"),
        pytest.param(
            "## v2026.10.19.2 — x\n\n## v2026.10.19 — y\n",
            ["v2026.10.19.2", "v2026.10.19"],
            id="serial",
        ),
        pytest.param("### v2026.10.19\n## v2026.10.19x\n ## v2026.10.19\n", [], id="not-headings"),
        pytest.param(
            "## v2026.10.19 — a\r\n## v2026.10.19 — again\r\n",
            ["v2026.10.19"],
            id="crlf-and-repeat",
        ),
    ],
)
def test_changelog_tags(text: str, tags: list[str]) -> None:
    from builder.release.rules import missing_tags

    assert missing_tags(text, tags) == []
    assert missing_tags(text, []) == tags


@pytest.mark.slow
def test_ctrl_c_during_the_pre_commit_hook_rolls_back(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    """A real Ctrl-C: SIGINT to the whole process group (builder, git, the hook) while the hook
    runs."""
    import signal
    import sys
    import time

    repo = make_repo("second")
    started = tmp_path / "hook-started"
    script = hook(repo, "pre-commit", f"touch '{started}'; sleep 60")
    before = state(repo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "builder", "release"],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=default_signals,  # the hook and git inherit them
    )
    deadline = time.monotonic() + 120
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the hook never ran"
    os.killpg(proc.pid, signal.SIGINT)
    output, _ = proc.communicate(timeout=120)
    assert_nothing_changed(Outcome(proc.returncode, output), ("Aborted!",), before, state(repo))
    script.unlink()
    released(release(), "v2026.12.02")


@pytest.mark.slow
@pytest.mark.usefixtures("trusted_data")
def test_rollback_git_refuses_is_reported_not_hidden(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    """The tag is refused, and so is moving main back: the message says the rollback is incomplete
    and what is left; dist/ is still restored and no tag exists."""
    repo = make_repo("second")
    mark = tmp_path / "main-moved-once"
    hook(
        repo,
        "reference-transaction",
        f"""[ "$1" = prepared ] || exit 0
input=$(cat)
case "$input" in *refs/tags/*) echo "ref-tx: tags are frozen" >&2; exit 1;; esac
case "$input" in *refs/heads/main*)
  if [ -e '{mark}' ]; then echo "ref-tx: main is frozen" >&2; exit 1; fi; touch '{mark}';;
esac""",
    )
    start = git(repo, "rev-parse", "HEAD")
    dist_before = {k: v for k, v in tree_digest(repo).items() if k.startswith("dist")}
    outcome = release()
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.exit_code == 1
    for said in (
        "tags are frozen",
        "Rollback incomplete; fix by hand",
        "main is frozen",
        "CHANGELOG.md left as",
    ):
        assert said in outcome.output, outcome.output
    assert f"git reset --keep {start[:12]}" in outcome.output
    # the release commit stays, and the message says so
    assert git(repo, "rev-parse", "HEAD^") == start
    assert git(repo, "tag", "--list", "v2026.12.02") == ""
    assert {k: v for k, v in tree_digest(repo).items() if k.startswith("dist")} == dist_before
