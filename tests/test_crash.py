"""Killed and signalled runs: every writer leaves its old output or its new one, never a mix.

A run is a forked child of this process (imports already warm) that sends itself a signal just
before a chosen call: the n-th file-system call of a build for SIGKILL (60 seeded points), or a
named step for SIGINT, SIGTERM and SIGHUP in `build`, `site`, `dist`, `fetch` and `release`.
After each, what is on disk must be the old output or the new one, and after the same command
runs again, the new one with no stage left beside it. `builder validate` is checked read-only
under strace.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, MutableMapping
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

import builder.build
import builder.pin
from builder.write import stages
from consumer_release import GIT_IDENTITY, copy_release_files, make_release_repo
from helpers import REPO, copy_package, default_signals

pytestmark = pytest.mark.slow  # forked builds killed and signalled, strace

DATE = "2026-12-01"
FS_CALLS = (
    "open",
    "write",
    "fsync",
    "close",
    "fchmod",
    "chmod",
    "mkdir",
    "rename",
    "replace",
    "unlink",
    "rmdir",
    "link",
)
EXIT = {signal.SIGINT: 1, signal.SIGTERM: 143, signal.SIGHUP: 129}  # Ctrl-C: click's "Aborted!"


def digest(*paths: Path) -> str:
    """Every entry below each path (a folder's entries, or one file's bytes), as one digest;
    stages left out."""
    sha = hashlib.sha256()
    for top in paths:
        sha.update(b"\1")
        if top.is_file():
            sha.update(top.read_bytes())
        for path in sorted(top.rglob("*")) if top.is_dir() else []:
            if not path.name.startswith("."):
                content = path.read_bytes().hex() if path.is_file() else "/"
                sha.update(f"{path.relative_to(top)}\0{content}\0".encode())
        if not top.exists():
            sha.update(b"<none>")
    return sha.hexdigest()


def package(root: Path) -> str:
    return digest(root / "data", root / "datapackage.json")


def leftovers(*targets: Path) -> list[str]:
    return [p.name for t in targets for p in stages(t)]


# A child that signals itself.


def arm(target: str, n: int, signum: int) -> None:
    """Send `signum` to this process just before the n-th call of `target` ("os.rename", or
    "module:function"; "os" alone counts every call in FS_CALLS)."""
    module, _, name = target.partition(":") if ":" in target else target.partition(".")
    names = FS_CALLS if target == "os" else (name,)
    host = importlib.import_module(module)
    count = [0]

    def wrap(real: Callable) -> Callable:
        def call(*args, **kwargs):
            count[0] += 1
            if count[0] == n:
                os.kill(os.getpid(), signum)
            return real(*args, **kwargs)

        return call

    for each in names:
        setattr(host, each, wrap(getattr(host, each)))


def run(
    args: list[str] | Callable[[], object],
    at: tuple[str, int] | None = None,
    signum: int = signal.SIGKILL,
) -> tuple[int, str]:
    """`builder ARGS` in a forked child, signalled at `at`; its exit code (-signal if killed) and
    stderr."""
    err = Path(tempfile.gettempdir()) / f"builder-child-{os.getpid()}.err"
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            sys.stderr = open(err, "w", buffering=1)  # noqa: SIM115
            sys.argv = ["builder", *([] if callable(args) else args)]
            default_signals()
            if at is not None:
                arm(*at, signum)
            if callable(args):
                args()
            else:
                from builder.cli import run as builder_run

                builder_run()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    text = err.read_text() if err.exists() else ""
    err.unlink(missing_ok=True)
    return (-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)), text


def assert_stopped(code: int, stderr: str, signum: int) -> None:
    assert "Traceback" not in stderr, stderr
    assert code == EXIT[signum], stderr
    assert ("Aborted!" if signum == signal.SIGINT else f"Stopped by {signum.name}.") in stderr


# Packages: a repository copy with two upstream files whose packages differ.


def make_lane(root: Path) -> Path:
    root.mkdir(parents=True)
    for name in ("upstream", "schemas", "data"):
        shutil.copytree(REPO / name, root / name)
    for name in ("metadata.toml", "datapackage.json"):
        shutil.copy2(REPO / name, root / name)
    raw = json.loads((root / "upstream" / "lm-arena-chat.json").read_text())
    (root / "a.json").write_text(json.dumps(raw))
    (root / "b.json").write_bytes(scaled(raw, 1.01))
    return root


def scaled(raw: dict, factor: float) -> bytes:
    for conf in raw["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-8B":
            conf["avg_power_watts"] *= factor
            conf["energy_per_token_joules"] *= factor
            conf["energy_per_request_joules"] *= factor
    return json.dumps(raw).encode()


# A task file given in the pin's place leaves its per-model files out, by design: one warning, no
# output lengths.
UNPINNED = (
    "warning: lm-arena-chat: per-model files not used: they were pinned with the task file given "
    "in its place;"
    " no output lengths\n"
)


def build_args(upstream: str) -> list[str]:
    return ["build", "--upstream", upstream, "--date", DATE]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict[str, str]]:
    """A lane holding package a.json, and each package built in memory (reads only) and digest."""
    root = make_lane(tmp_path_factory.mktemp("reference") / "lane")
    renders, digests = {}, {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        for upstream in ("b.json", "a.json"):
            builder.build.build(Path("data"), {"lm-arena-chat": Path(upstream)}, DATE)
            digests[upstream] = package(root)
            pins = {"lm-arena-chat": builder.pin.local_pin(Path(upstream))}
            renders[upstream] = builder.build.build_in_memory(Path("data"), pins, DATE)
    assert digests["a.json"] != digests["b.json"]
    return root, renders, digests


@pytest.fixture
def lane(reference, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "lane"
    shutil.copytree(reference[0], root, symlinks=True)
    monkeypatch.chdir(root)
    # a kill keeps the page cache: no fsync is needed here
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    return root


@pytest.fixture
def cached_renders(reference, lane: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The two packages' digests, by upstream file; a build renders from the cache."""
    renders = reference[1]

    def replay(out: Path, up: dict, date: str, files: MutableMapping[str, bytes]) -> object:
        """The cached render, its files put in `files` (a build's stage) one by one."""
        found = renders[up["lm-arena-chat"].name]
        for rel, data in found.files.items():
            files[rel] = data
        return found

    monkeypatch.setattr(builder.build, "build_in_memory", replay)
    return reference[2]


def rebuild(upstream: str) -> None:
    builder.build.build(Path("data"), {"lm-arena-chat": Path(upstream)}, DATE)


# SIGKILL at seeded points of `build`.


def count_calls(fn: Callable[[], object]) -> int:
    """How many FS_CALLS `fn` makes."""
    calls, saved = [0], {name: getattr(os, name) for name in FS_CALLS}

    def wrap(real: Callable) -> Callable:
        def call(*args, **kwargs):
            calls[0] += 1
            return real(*args, **kwargs)

        return call

    try:
        for name, real in saved.items():
            setattr(os, name, wrap(real))
        fn()
    finally:
        for name, real in saved.items():
            setattr(os, name, real)
    return calls[0]


def test_build_killed_at_60_seeded_points_leaves_old_or_new(
    lane: Path, cached_renders: dict[str, str]
) -> None:
    total = count_calls(lambda: rebuild("b.json"))
    assert total > 200
    rebuild("a.json")
    seen, current = Counter(), "a.json"
    # a few past the end: never killed
    for n in sorted(random.Random(19).sample(range(1, total + 20), 60)):
        target = "b.json" if current == "a.json" else "a.json"
        old, new = cached_renders[current], cached_renders[target]
        code, err = run(lambda target=target: rebuild(target), ("os", n), signal.SIGKILL)
        after = package(lane)
        if code == 0:
            assert after == new, err
            seen["finished"] += 1
        elif not (lane / "data").exists():  # killed between the swap's two renames
            (stage,) = stages(lane / "data")
            # the old package, moved aside whole
            assert digest(stage / "old", lane / "datapackage.json") == old
            seen["old, moved aside"] += 1
            code, err = run(["validate"])
            assert (code, err.count("\n")) == (1, 1), err
            assert "run `builder build`" in err
        else:
            assert code == -signal.SIGKILL, err
            assert after in (old, new), (
                f"killed before call {n}: neither the old package nor the new"
            )
            seen["old" if after == old else "new"] += 1
        rebuild(target)  # the next build
        assert package(lane) == new
        assert leftovers(lane / "data") == []
        current = target
    print(f"\nSIGKILL at 60 of {total} calls: {dict(seen)}")  # shown with -s
    assert seen["old"] >= 10
    assert seen["new"] >= 1


def test_a_build_killed_between_the_two_renames_is_reported_then_repaired(
    lane: Path, cached_renders
) -> None:
    """The one instant with no data folder: the old one sits whole in the stage until the next
    build."""
    code, _ = run(build_args("b.json"), ("os.rename", 2), signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert not (lane / "data").exists()
    (stage,) = stages(lane / "data")
    assert digest(stage / "old", lane / "datapackage.json") == cached_renders["a.json"]
    for command in ("validate", "drift"):
        code, err = run([command])
        assert (code, err.count("\n")) == (1, 1), err
        assert err.startswith(f"error: data: half-published: {stage.name} was left")
        assert "run `builder build`" in err
    assert run(build_args("b.json")) == (0, UNPINNED)
    assert package(lane) == cached_renders["b.json"]
    assert leftovers(lane / "data") == []


def test_only_marked_stages_are_removed(lane: Path, cached_renders) -> None:
    """A folder, file or link named like a stage but without the mark stays, reported; an empty one
    (a run killed before it marked its stage) goes."""
    user = lane / ".data.stage-abcdefgh"
    (user / "old").mkdir(parents=True)
    (user / "old" / "notes.txt").write_text("mine\n")
    (lane / ".data.stage-f1le0000").write_text("mine too\n")
    (lane / ".data.stage-l1nk0000").symlink_to(user)
    (lane / ".data.stage-empty000").mkdir()
    code, err = run(build_args("b.json"))
    assert code == 0, err
    assert err.splitlines() == [
        UNPINNED.strip(),
        *(
            f"warning: {name}: named like a stage, but the builder did not make it; left in place"
            for name in (".data.stage-abcdefgh", ".data.stage-f1le0000", ".data.stage-l1nk0000")
        ),
    ]
    assert (user / "old" / "notes.txt").read_text() == "mine\n"
    assert (lane / ".data.stage-f1le0000").read_text() == "mine too\n"
    assert os.readlink(lane / ".data.stage-l1nk0000") == str(user)
    assert not (lane / ".data.stage-empty000").exists()
    assert package(lane) == cached_renders["b.json"]
    assert stages(lane / "data") == []
    # it fails on the unpinned upstream b.json alone
    assert "half-published" not in run(["validate"])[1]


# SIGINT, SIGTERM and SIGHUP in every command that writes.

BUILD_POINTS = [
    pytest.param(signal.SIGINT, ("builder.write:_write", 10), id="SIGINT-staging"),
    pytest.param(signal.SIGTERM, ("os.rename", 1), id="SIGTERM-at-the-swap"),
    pytest.param(signal.SIGHUP, ("os.rmdir", 1), id="SIGHUP-removing-the-stage"),
]


def check_signalled(
    code: int, err: str, signum: int, after: str, old: str, again: Callable[[], str], targets
) -> None:
    """Stopped as the signal says, old or new on disk; the same command again: new, and no stage
    left."""
    assert_stopped(code, err, signum)
    new = again()
    assert after in (old, new)
    assert leftovers(*targets) == []


@pytest.mark.parametrize(("signum", "at"), BUILD_POINTS)
def test_build_signalled(lane: Path, cached_renders, signum: int, at: tuple[str, int]) -> None:
    code, err = run(build_args("b.json"), at, signum)
    after = package(lane)

    def again() -> str:
        assert run(build_args("b.json")) == (0, UNPINNED)
        return package(lane)

    check_signalled(code, err, signum, after, cached_renders["a.json"], again, [lane / "data"])
    assert package(lane) == cached_renders["b.json"]


def fake_site(monkeypatch: pytest.MonkeyPatch, version: list[str]) -> None:
    """`builder site` with a small plan per version (the real plan is pure and tested in
    test_site)."""
    import builder.site.build as site
    import builder.site.plan

    plan = {f"p/{i}.html": f"<p>{i} {version[0]}</p>\n".encode() for i in range(40)}
    monkeypatch.setattr(site, "load_package", lambda root: None)
    monkeypatch.setattr(site, "data_version", lambda pkg: version[0])
    site_files = {**plan, "index.html": version[0].encode()}
    monkeypatch.setattr(builder.site.plan, "plan_site", lambda pkg: site_files.items())


@pytest.mark.parametrize(
    ("signum", "at"),
    [
        pytest.param(signal.SIGINT, ("builder.write:_write", 20), id="SIGINT-staging"),
        pytest.param(signal.SIGTERM, ("os.rename", 1), id="SIGTERM-at-the-swap"),
        pytest.param(signal.SIGHUP, ("os.rename", 2), id="SIGHUP-between-the-renames"),
    ],
)
def test_site_signalled(
    lane: Path, monkeypatch: pytest.MonkeyPatch, signum: int, at: tuple[str, int]
) -> None:
    version = ["old"]
    fake_site(monkeypatch, version)
    assert run(["site"]) == (0, "")
    old = digest(lane / "site")
    version[0] = "new"
    code, err = run(["site"], at, signum)
    assert (lane / "site" / "index.html").is_file()  # never lost, not even between the renames
    after = digest(lane / "site")

    def again() -> str:
        assert run(["site"]) == (0, "")
        return digest(lane / "site")

    check_signalled(code, err, signum, after, old, again, [lane / "site"])


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))


@pytest.mark.parametrize(
    ("signum", "at"),
    [
        pytest.param(signal.SIGINT, ("builder.write:_write", 2), id="SIGINT-staging"),
        pytest.param(signal.SIGTERM, ("os.rename", 1), id="SIGTERM-at-the-swap"),
        pytest.param(signal.SIGHUP, ("os.rmdir", 1), id="SIGHUP-removing-the-stage"),
    ],
)
@pytest.mark.usefixtures("git_env")
def test_dist_signalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, at: tuple[str, int]
) -> None:
    import builder.release.dist as dist

    repo = tmp_path / "repo"
    repo.mkdir()
    make_release_repo(repo)
    monkeypatch.chdir(repo)
    files = dist.dist_files(dist.release_at_head())  # computed once: it only reads git
    monkeypatch.setattr(dist, "dist_files", lambda release: files)
    (repo / "dist").mkdir()
    (repo / "dist" / "SHA256SUMS").write_text("stale sums\n")
    old = digest(repo / "dist")
    code, err = run(["dist"], at, signum)
    after = digest(repo / "dist")

    def again() -> str:
        assert run(["dist"]) == (0, "")
        return digest(repo / "dist")

    check_signalled(code, err, signum, after, old, again, [repo / "dist"])
    assert {p.name: p.read_bytes() for p in (repo / "dist").iterdir()} == files


FETCH_POINTS = [
    pytest.param(signal.SIGINT, ("builder.fetch:download", 1), id="SIGINT-before-the-download"),
    pytest.param(signal.SIGTERM, ("os.replace", 1), id="SIGTERM-committing"),
    pytest.param(signal.SIGHUP, ("builder.write:_write", 2), id="SIGHUP-staging-the-lock"),
]
TASK_PATH = "/tasks/lm-arena-chat.json"


def pin(root: Path) -> str:
    return digest(root / "upstream")


@pytest.mark.parametrize(("signum", "at"), FETCH_POINTS)
def test_fetch_signalled(
    lane: Path, httpserver: HTTPServer, signum: int, at: tuple[str, int]
) -> None:
    httpserver.expect_request(TASK_PATH).respond_with_data((lane / "b.json").read_bytes())
    args = [
        "fetch",
        "--task",
        "lm-arena-chat",
        "--url",
        httpserver.url_for(TASK_PATH),
        "--commit",
        "ab" * 20,
        "--retries",
        "0",
    ]
    old = pin(lane)
    code, err = run(args, at, signum)
    after = pin(lane)

    def again() -> str:
        code, err = run(args)
        assert code == 0, err
        return pin(lane)

    check_signalled(code, err, signum, after, old, again, list((lane / "upstream").iterdir()))
    assert (lane / "upstream" / "lm-arena-chat.json").read_bytes() == (lane / "b.json").read_bytes()


def test_fetch_killed_between_snapshot_and_lock_is_detected(
    lane: Path, httpserver: HTTPServer
) -> None:
    """The lock is renamed last: a snapshot it does not name is refused by the next build; fetch
    again repairs."""
    httpserver.expect_request(TASK_PATH).respond_with_data((lane / "b.json").read_bytes())
    args = [
        "fetch",
        "--task",
        "lm-arena-chat",
        "--url",
        httpserver.url_for(TASK_PATH),
        "--commit",
        "ab" * 20,
        "--retries",
        "0",
    ]
    code, _ = run(args, ("os.replace", 2), signal.SIGKILL)
    assert code == -signal.SIGKILL
    code, err = run(["build", "--date", DATE])
    assert code == 1, err
    assert "sha256" in err
    assert run(args)[0] == 0
    code, err = run(["build"])  # dated today: a build may not predate the fetch it builds from
    assert code == 0, err
    assert leftovers(*(lane / "upstream").iterdir()) == []


def release_repo(root: Path) -> Path:
    copy_release_files(root)
    for args in (
        ["init", "--quiet", "--initial-branch", "main"],
        ["add", "-A"],
        ["commit", "--quiet", "-m", "data"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def git_state(repo: Path) -> str:
    out = [
        subprocess.run(["git", *a], cwd=repo, capture_output=True, text=True).stdout
        for a in (["rev-parse", "HEAD"], ["tag"], ["status", "--porcelain"])
    ]
    return "\n".join(out)


@pytest.mark.parametrize(
    ("signum", "at"),
    [
        pytest.param(signal.SIGINT, ("builder.git:commit", 1), id="SIGINT-before-the-commit"),
        pytest.param(
            signal.SIGTERM, ("builder.git:create_annotated_tag", 1), id="SIGTERM-before-the-tag"
        ),
        pytest.param(signal.SIGHUP, ("os.rename", 1), id="SIGHUP-after-the-tag-making-dist"),
    ],
)
@pytest.mark.usefixtures("git_env")
def test_release_signalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, at: tuple[str, int]
) -> None:
    import builder.release.dist as dist
    import builder.release.flow as flow

    repo = release_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    # validate and drift: tested elsewhere
    monkeypatch.setattr(flow, "check_committed", lambda data, date: None)
    monkeypatch.setattr(
        dist, "dist_files", lambda release: {"SHA256SUMS": f"{release.version.tag}\n".encode()}
    )
    old = git_state(repo), (repo / "CHANGELOG.md").exists()
    code, err = run(["release"], at, signum)
    assert_stopped(code, err, signum)
    tagged = subprocess.run(["git", "tag"], cwd=repo, capture_output=True, text=True).stdout.split()
    if tagged:  # the release is made: dist/ comes from the tag, and rebuilding it needs no rollback
        assert (tagged, signum) == (["v2026.11.29"], signal.SIGHUP)
        assert run(["dist"]) == (0, "")
    else:
        assert (git_state(repo), (repo / "CHANGELOG.md").exists()) == old
        code, err = run(["release"])
        assert code == 0, err
    assert (repo / "dist" / "SHA256SUMS").read_text() == "v2026.11.29\n"
    assert git_state(repo).endswith("\nv2026.11.29\n\n")  # tagged, and a clean tree
    assert leftovers(repo / "dist", repo / "CHANGELOG.md") == []


# A signal while git runs inside `release`: sent by git's own child (a hook or a filter) to git's
# parent.

SIGNAL_BUILDER = (
    "kill -TERM $(cut -d' ' -f4 /proc/$PPID/stat)"  # $PPID is git; field 4 of its stat, the builder
)


def slow_pre_commit_hook(repo: Path) -> Callable[[], None]:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\n{SIGNAL_BUILDER}\nsleep 0.5\n")
    hook.chmod(0o755)
    return hook.unlink


def clean_filter_during_git_add(repo: Path) -> Callable[[], None]:
    (repo / ".git" / "info").mkdir(exist_ok=True)
    attributes = repo / ".git" / "info" / "attributes"
    attributes.write_text("CHANGELOG.md filter=signal\n")
    subprocess.run(
        ["git", "config", "filter.signal.clean", f"{SIGNAL_BUILDER}; cat"], cwd=repo, check=True
    )
    return attributes.unlink


@pytest.mark.parametrize("plant", [slow_pre_commit_hook, clean_filter_during_git_add])
@pytest.mark.usefixtures("git_env")
def test_release_signalled_while_git_runs_rolls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plant: Callable[[Path], Callable[[], None]]
) -> None:
    import builder.release.dist as dist
    import builder.release.flow as flow

    repo = release_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    # validate and drift: tested elsewhere
    monkeypatch.setattr(flow, "check_committed", lambda data, date: None)
    monkeypatch.setattr(
        dist, "dist_files", lambda release: {"SHA256SUMS": f"{release.version.tag}\n".encode()}
    )
    old = git_state(repo), (repo / "CHANGELOG.md").exists()
    remove = plant(repo)
    code, err = run(["release"])
    assert_stopped(code, err, signal.SIGTERM)
    # no commit, nothing staged, no CHANGELOG
    assert (
        git_state(repo),
        (repo / "CHANGELOG.md").exists(),
    ) == old
    assert not (repo / ".git" / "index.lock").exists()
    remove()
    code, err = run(["release"])
    assert code == 0, err
    assert git_state(repo).endswith("\nv2026.11.29\n\n")


# `builder validate` only reads.


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
@pytest.mark.parametrize("planted", [False, True], ids=["clean", "stage-and-old-journal-planted"])
def test_validate_only_reads(tmp_path: Path, planted: bool) -> None:
    lane = copy_package(tmp_path / "repo")  # the committed package
    if planted:
        stage = lane / ".data.stage-k1ll3d00"
        (stage / "old" / "models").mkdir(parents=True)
        (stage / ".builder-stage").touch()
        (stage / "old" / "index.json").write_text("{}\n")
        (lane / ".data.publish").write_text(
            json.dumps({"kind": "leadgreen builder publish journal", "stage": stage.name})
        )
    before = {p: p.read_bytes() if p.is_file() else None for p in sorted(lane.rglob("*"))}
    trace = lane.parent / "trace"
    done = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=%file",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "builder",
            "validate",
        ],
        cwd=lane,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )
    calls = trace.read_text().splitlines()
    writes = [c for c in calls if any(flag in c for flag in ("O_WRONLY", "O_RDWR", "O_CREAT"))]
    changes = [
        c
        for c in calls
        if c.split("(")[0].split()[-1]
        in {
            "rename",
            "renameat",
            "renameat2",
            "unlink",
            "unlinkat",
            "mkdir",
            "mkdirat",
            "rmdir",
            "symlink",
            "symlinkat",
            "link",
            "linkat",
        }
    ]
    assert writes + changes == []
    assert {p: p.read_bytes() if p.is_file() else None for p in sorted(lane.rglob("*"))} == before
    if planted:
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1, done.stderr
        assert "half-published" in done.stderr
        assert "`builder build`" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
