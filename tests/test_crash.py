"""Killed or concurrent builds: the data folder and the descriptor beside it change as one unit.

Three angles on the publish protocol of builder.write:
- in process, a simulated kill before every file-system call of a publish (and of the recovery
  after it): what is on disk is then recovered to the old package or the new one, never a mix;
- real `builder build` processes killed with SIGKILL at random instants, half of them timed to land
  while the build publishes, then checked without a fresh build first;
- two real builds at once, from different inputs: one consistent package.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

import builder.write
from builder.build import build
from builder.verify import problems_in
from builder.write import journal_path, output_lock, publish, recover, staging_prefix
from conftest import REPO
from hostile import run_cli

DATE = "2031-01-01"


def state(out: Path) -> str:
    """What a reader sees: the data folder's entries and the descriptor beside it, as one digest."""
    digest = hashlib.sha256()
    for path in sorted(out.rglob("*")) if out.is_dir() else []:
        rel = path.relative_to(out).as_posix()
        digest.update(rel.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"<folder>") + b"\0")
    descriptor = out.parent / "datapackage.json"
    digest.update(b"descriptor\0" + (descriptor.read_bytes() if descriptor.is_file() else b"<none>"))
    return digest.hexdigest()


def leftovers(out: Path) -> list[str]:
    """Staging folders and journals of ours beside `out` (the lock file may stay: see builder.write)."""
    names = (p.name for p in out.parent.iterdir())
    return sorted(n for n in names if n.startswith(staging_prefix(out)) or n == journal_path(out).name)


# In process: a kill before each file-system call.


class Killed(BaseException):
    """What SIGKILL does to a publish: nothing after this point runs, no except or finally of ours cleans up."""


CALLS = ("mkdir", "rename", "replace", "unlink", "link", "rmdir", "open", "write", "fsync")


@pytest.fixture
def kill_at(monkeypatch: pytest.MonkeyPatch):
    """kill_at(n, fn): run fn with a Killed raised before its n-th file-system call; True if it was killed."""

    def run(n: int, fn) -> bool:
        count = {"calls": 0}

        def counted(real):
            def call(*args, **kwargs):
                count["calls"] += 1
                if count["calls"] == n:
                    raise Killed
                return real(*args, **kwargs)

            return call

        with monkeypatch.context() as patch:
            for name in CALLS:
                patch.setattr(os, name, counted(getattr(os, name)))
            patch.setattr(Path, "write_bytes", counted(Path.write_bytes))
            patch.setattr(builder.write, "_exchange", counted(builder.write._exchange))
            try:
                fn()
            except Killed:
                return True
        return False

    return run


def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill keeps the page cache: fsync is no part of what these tests check, and slow on a busy disk."""
    monkeypatch.setattr(builder.write, "_fsync", lambda path: None)
    monkeypatch.setattr(os, "fsync", lambda fd: None)


OLD = {"index.json": b"old index\n", "models/a.json": b"a, old\n", "models/b.json": b"b, gone in new\n"}
NEW = {"index.json": b"new index\n", "models/a.json": b"a, new\n", "models/c.json": b"c, new\n"}


def old_package(root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    out = root / "data"
    publish(out, OLD, {"datapackage.json": b"old descriptor\n"})
    (out / ".gitkeep").write_bytes(b"kept\n")
    (out / "models" / ".gitkeep").write_bytes(b"kept too\n")
    return out


def new_publish(out: Path) -> None:
    publish(out, NEW, {"datapackage.json": b"new descriptor\n"})


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2-exchange", "two-renames"])
def test_a_kill_before_any_call_of_a_publish_leaves_old_or_new(tmp_path, monkeypatch, kill_at, exchange) -> None:
    if not exchange:
        monkeypatch.setattr(builder.write, "_exchange", lambda a, b: False)
    no_fsync(monkeypatch)
    root = tmp_path / "pkg"
    old, new = state(old_package(root)), None
    new_publish(out := old_package(root))
    new = state(out)
    assert old != new
    assert (out / ".gitkeep").read_bytes() == b"kept\n"
    seen = Counter()
    for n in range(1, 1000):
        out = old_package(root)
        if not kill_at(n, lambda out=out: new_publish(out)):
            assert state(out) == new
            break
        committed = journal_path(out).exists()
        raw = state(out)
        finished = not committed and raw == new  # killed while removing the staging folder, after the journal
        seen["committed" if committed else "finished" if finished else "before commit"] += 1
        seen["mixed on disk until recovered"] += raw not in (old, new)
        assert committed or raw in (old, new), f"kill before call {n}: no journal, yet neither old nor new"
        recover(out)
        assert state(out) == (new if committed or finished else old), f"kill before call {n}"
        with output_lock(out):  # what the next build does first
            pass
        assert leftovers(out) == [], f"kill before call {n}"
    else:
        pytest.fail("publish never completed")
    assert seen["before commit"] > 20
    assert seen["committed"] > 5
    assert seen["finished"] > 1
    assert seen["mixed on disk until recovered"] >= 1  # the window exists, and recovery closes it


def test_a_kill_during_recovery_is_recovered_by_the_next_command(tmp_path, monkeypatch, kill_at) -> None:
    """Step 5 is idempotent: kill the recovery itself before each of its calls, then recover again."""
    no_fsync(monkeypatch)
    root = tmp_path / "pkg"
    new_publish(out := old_package(root))
    new = state(out)
    killed_after_commit = []
    for n in range(1, 1000):
        out = old_package(root)
        if not kill_at(n, lambda out=out: new_publish(out)):
            break
        if journal_path(out).exists():
            killed_after_commit.append(n)
    assert killed_after_commit
    for n in sorted(
        {killed_after_commit[0], killed_after_commit[len(killed_after_commit) // 2], killed_after_commit[-1]}
    ):
        for m in range(1, 1000):
            out = old_package(root)
            kill_at(n, lambda out=out: new_publish(out))
            if not kill_at(m, lambda out=out: recover(out)):
                break
            recover(out)
            assert state(out) == new, f"publish killed before call {n}, recovery before call {m}"
            with output_lock(out):  # the next build: a staging folder left after the journal went is removed
                pass
            assert leftovers(out) == []


def test_validate_finishes_a_build_killed_between_the_swap_and_the_descriptor(repo_copy, monkeypatch) -> None:
    """The one window where the pair on disk is a mix: `builder validate` rolls it forward, then passes."""
    raw = json.loads((repo_copy / "upstream" / "lm-arena-chat.json").read_text())
    for conf in raw["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-8B":
            conf["avg_power_watts"] *= 1.01
            conf["energy_per_token_joules"] *= 1.01
    pin_upstream(repo_copy, json.dumps(raw).encode())
    old_descriptor = (repo_copy / "datapackage.json").read_bytes()

    def killed(*args):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", killed)  # the descriptor is the one file put with os.replace
        with pytest.raises(Killed):
            build(Path("data"), None, DATE)
    assert journal_path(Path("data")).exists()
    assert (repo_copy / "datapackage.json").read_bytes() == old_descriptor  # beside the new tree: a mix
    problems = problems_in(Path("data"))
    assert any("datapackage.json" in str(p) for p in problems)
    outcome = run_cli("validate")
    assert outcome.exit_code == 0, outcome.output
    assert not journal_path(Path("data")).exists()
    assert (repo_copy / "datapackage.json").read_bytes() != old_descriptor
    assert leftovers(repo_copy / "data") == []


def test_stale_staging_folders_are_removed_only_when_ours(tmp_path) -> None:
    out = tmp_path / "data"
    publish(out, OLD, {"datapackage.json": b"old\n"})
    prefix = staging_prefix(out)
    ours = tmp_path / f"{prefix}killed00"
    (ours / "tree" / "models").mkdir(parents=True)
    (ours / "tree" / "index.json").write_bytes(b"{}")
    (ours / builder.write.MARKER).write_bytes(builder.write.MARK)
    half_marked = tmp_path / f"{prefix}halfmark"
    half_marked.mkdir()
    (half_marked / builder.write.MARKER).write_bytes(builder.write.MARK[:5])
    empty = tmp_path / f"{prefix}emptydir"
    empty.mkdir()
    unmarked = tmp_path / f"{prefix}someones"
    unmarked.mkdir()
    (unmarked / "keep.txt").write_text("not ours\n")
    wrong_mark = tmp_path / f"{prefix}wrongmrk"
    wrong_mark.mkdir()
    (wrong_mark / builder.write.MARKER).write_text("something else\n")
    link = tmp_path / f"{prefix}linkfold"
    link.symlink_to(ours / "tree")
    other_name = tmp_path / ".other.new-abcd1234"
    other_name.mkdir()
    (other_name / builder.write.MARKER).write_bytes(builder.write.MARK)
    longer = tmp_path / f"{prefix}abcd1234.new-abcd1234"  # the staging folder of an output named data.new-abcd1234
    longer.mkdir()
    (longer / builder.write.MARKER).write_bytes(builder.write.MARK)
    empty_other = tmp_path / f"{prefix}x"
    empty_other.mkdir()
    with output_lock(out):
        pass
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    expected = [f"{prefix}abcd1234.new-abcd1234", f"{prefix}linkfold", f"{prefix}someones", f"{prefix}wrongmrk"]
    assert left == [*expected, f"{prefix}x", ".other.new-abcd1234"]
    assert (unmarked / "keep.txt").read_text() == "not ours\n"


def test_a_journal_that_is_not_ours_is_refused_and_kept(tmp_path) -> None:
    out = tmp_path / "data"
    publish(out, OLD, {"datapackage.json": b"old\n"})
    journal_path(out).write_text('{"kind": "something else"}\n')
    before = state(out)
    with pytest.raises(builder.write.OutputError, match=r"\.data\.publish: expected a publish journal"):
        recover(out)
    assert journal_path(out).read_text() == '{"kind": "something else"}\n'
    assert state(out) == before


# Real processes: SIGKILL at random instants.


def pin_upstream(root: Path, data: bytes) -> None:
    """Pin other upstream bytes, as `builder fetch` would: the snapshot and its lock's sha256 and size."""
    (root / "upstream" / "lm-arena-chat.json").write_bytes(data)
    lock = json.loads((root / "upstream" / "lock.json").read_text())
    lock["tasks"]["lm-arena-chat"].update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (root / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")


UNPINNED = "datapackage.json: /sources/0/"  # a lane builds from --upstream files, which the lock does not name


def assert_valid_unpinned(data: Path) -> None:
    """Every check passes but the one that the descriptor's source is the pinned upstream."""
    problems = [str(p) for p in problems_in(data)]
    assert problems, "a package built from an unpinned file must not pass as the pinned one"
    assert all(p.startswith(UNPINNED) for p in problems), problems


def assert_only_unpinned(code: int, stderr: str) -> None:
    lines = stderr.splitlines()
    assert code == 1, stderr
    assert all(line.startswith(UNPINNED) for line in lines[:-1]), stderr
    assert lines[-1].startswith("error: data: ")


def make_lane(root: Path) -> Path:
    """A repository copy with two upstream files whose packages differ (one model's energy scaled)."""
    root.mkdir(parents=True)
    for name in ("upstream", "schemas"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy2(REPO / "metadata.toml", root / "metadata.toml")
    raw = json.loads((root / "upstream" / "lm-arena-chat.json").read_text())
    (root / "a.json").write_text(json.dumps(raw))
    for conf in raw["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-8B":
            conf["avg_power_watts"] *= 1.01
            conf["energy_per_token_joules"] *= 1.01
    (root / "b.json").write_text(json.dumps(raw))
    return root


def build_command(upstream: str) -> list[str]:
    return [sys.executable, "-m", "builder", "build", "--out", "data", "--upstream", upstream, "--date", DATE]


def run_build(lane: Path, upstream: str) -> None:
    done = subprocess.run(build_command(upstream), cwd=lane, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The two packages a lane can hold, by upstream name: built, validated in full, digested."""
    lane = make_lane(tmp_path_factory.mktemp("reference") / "lane")
    found = {}
    here = Path.cwd()
    try:
        os.chdir(lane)
        for upstream in ("a.json", "b.json"):
            run_build(lane, upstream)
            assert_valid_unpinned(Path("data"))
            found[upstream] = state(lane / "data")
    finally:
        os.chdir(here)
    assert found["a.json"] != found["b.json"]
    return found


cli_validated = threading.Event()


def kill_lane(lane: Path, packages: dict[str, str], kills: int, seed: int, report: Counter) -> None:
    """Start builds towards the other package, SIGKILL each at a random instant; check what is left.

    After each kill, without a build first: the package must be the old or the new one, and the new
    one if a journal was left. Once, with a journal left, that is checked by a real `builder validate`;
    otherwise by `recover` (what validate does first) and the digest, equal to one of the two packages
    that `validate_committed` passed in full (validation is a function of those bytes).
    """
    rng = random.Random(seed)
    out = lane / "data"
    current = "a.json"
    started = time.monotonic()
    run_build(lane, current)
    duration = time.monotonic() - started
    assert state(out) == packages[current]  # a build is deterministic: the same bytes in every lane
    done = 0
    while done < kills:
        target = "b.json" if current == "a.json" else "a.json"
        before = {p.name for p in lane.iterdir()}
        launched = time.monotonic()
        process = subprocess.Popen(
            build_command(target), cwd=lane, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if rng.random() < 0.5:  # anywhere in the run: imports, render, publish
            delay = rng.uniform(0, duration)
        else:  # once a new staging folder shows, within the publish window
            while process.poll() is None and not any(
                p.startswith(staging_prefix(out)) and p not in before for p in os.listdir(lane)
            ):
                time.sleep(0.0005)
            delay = rng.uniform(0, 0.06)
        try:
            process.wait(timeout=delay)
            finished = True
            duration = min(duration, time.monotonic() - launched)  # the runs get faster once caches are warm
        except subprocess.TimeoutExpired:
            finished = False
        process.send_signal(signal.SIGKILL)
        process.wait()
        if finished and process.returncode == 0:
            report["finished before the kill"] += 1
            current = target
            continue
        done += 1
        report["kills"] += 1
        new = {p.name for p in lane.iterdir()} - before
        committed = journal_path(out).exists()
        mid_publish = committed or any(n.startswith(staging_prefix(out)) for n in new)
        report["landed mid-publish"] += mid_publish
        report["landed after the commit (journal left)"] += committed
        raw = state(out)
        report["mixed on disk until recovered"] += raw not in packages.values()
        assert len([n for n in os.listdir(lane) if n.startswith(staging_prefix(out))]) <= 1
        if committed and not cli_validated.is_set():
            cli_validated.set()
            check = subprocess.run(
                [sys.executable, "-m", "builder", "validate"], cwd=lane, capture_output=True, text=True, timeout=60
            )
            assert_only_unpinned(check.returncode, check.stderr)
            report["validated by the CLI"] += 1
        else:
            recover(out)  # what `builder validate` does before it reads (validate_committed)
        after = state(out)
        assert after in (packages[current], packages[target]), f"kill {done} in {lane.name}: neither old nor new"
        if committed:
            assert after == packages[target], "a committed publish must roll forward"
        assert journal_path(out).exists() is False
        current = target if after == packages[target] else current
    run_build(lane, "a.json")
    assert state(out) == packages["a.json"]
    assert leftovers(out) == []


def test_builds_killed_at_random_leave_the_old_or_the_new_package(tmp_path, packages) -> None:
    lanes = [make_lane(tmp_path / f"lane{i}") for i in range(3)]
    reports = [Counter() for _ in lanes]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            kill_lane(lanes[i], packages, kills=18, seed=1000 + i, report=reports[i])
        except BaseException as exc:  # reported below, in the test's own thread
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(lanes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    report = sum(reports, Counter())
    keys = ("kills", "landed mid-publish", "landed after the commit (journal left)", "mixed on disk until recovered")
    shown = {key: report[key] for key in (*keys, "finished before the kill", "validated by the CLI")}
    print(f"\nSIGKILL test: {shown} in {time.monotonic() - started:.1f} s")  # shown with -s
    assert report["kills"] == 54
    assert report["landed mid-publish"] >= 10


def test_two_builds_at_once_end_in_one_consistent_package(tmp_path, monkeypatch, packages) -> None:
    lane = make_lane(tmp_path / "lane")
    monkeypatch.chdir(lane)
    for _round in range(3):
        processes = [
            subprocess.Popen(build_command(u), cwd=lane, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for u in ("b.json", "a.json")
        ]
        for process in processes:
            _, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
        assert state(lane / "data") in packages.values()
        assert_valid_unpinned(Path("data"))
        assert leftovers(lane / "data") == []
