"""`builder release`: refuse unless everything holds, then changelog, commit, dist/ and annotated tag.

Everything is checked and computed before the first write, from the committed tree (HEAD), never
from the working folder. Then, in this order: CHANGELOG.md, `git add`, `git commit` (hooks run),
the archive, manifest and SHA256SUMS built from the new commit's objects and written to dist/,
and last the annotated tag, the one step that makes the release. Any failure after the first
write rolls back what this run did, newest first, each step only while it is in the state this
run left it: the tag is deleted if it is on this run's commit (which no one else has seen), HEAD
goes back (compare-and-swap) if it is still that commit, the index entry and the bytes of
CHANGELOG.md are restored, and dist/ files are restored byte for byte, or removed when this run
created them and they still hold this run's bytes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder import git
from builder.diff import diff_trees, load_docs
from builder.errors import BuilderError, OutputError, ReleaseError, ValidationError
from builder.layout import CHANGELOG, DATA, DESCRIPTOR, DIST, LOCK
from builder.pin import Lock, load_lock
from builder.release import artifacts
from builder.release.compat import guard_release
from builder.release.dist import Release, commit_epoch, dist_files, files_at
from builder.release.rules import (
    LARGE_CHANGE_PCT,
    Version,
    changelog_entry,
    insert_entry,
    missing_tags,
    newest_release,
    next_version,
)
from builder.release.rules import summary as tag_summary
from builder.verify import check_committed
from builder.write import new_file, replace_files


@dataclass(frozen=True)
class Released:
    version: Version
    artifacts: list[Path]
    summary: str


@dataclass(frozen=True)
class Plan:
    """Everything a release writes, computed before it writes anything."""

    start: str  # the commit the release builds on
    version: Version
    api: str
    locks: dict[str, Lock]  # by upstream task
    message: str  # the tag message
    changelog: bytes  # CHANGELOG.md as it will be committed


def check_git_state() -> None:
    """The clone can cut a release: complete, clean, on main, and with an identity to sign with."""
    if git.is_shallow():
        raise ReleaseError(
            "this clone is shallow (git rev-parse --is-shallow-repository: true), so earlier release tags and "
            "history may be missing; run `git fetch --tags --unshallow` first"
        )
    dirty = git.dirty_paths()
    if dirty:
        raise ReleaseError(f"the working tree is dirty ({', '.join(dirty[:5])}); commit or stash first")
    branch = git.current_branch()
    if branch != "main":
        raise ReleaseError(f"releases are cut from main, found branch {branch}")
    missing = git.missing_identity()
    if missing:
        raise ReleaseError(
            f"no git identity to author the release commit and tag ({missing}); "
            "set one with `git config user.name NAME` and `git config user.email EMAIL`"
        )


def cut_release(today: str, accept: str | None, accept_schema: str | None = None) -> Released:
    check_git_state()
    plan = plan_release(today, accept, accept_schema)
    undo = Undo(plan.start, CHANGELOG, _read(CHANGELOG))
    try:
        return _release(plan, undo)
    except BaseException as exc:
        with _no_interrupts():
            left = undo.run()
        if not isinstance(exc, BuilderError | OSError):
            raise  # a bug or an interrupt: rolled back, and shown as it is
        cause = f"{exc.filename or exc}: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        cause = cause.rstrip(". ")
        if left:
            note = "Rollback incomplete; fix by hand: " + "; ".join(left)
        else:
            note = f"Nothing was released: {CHANGELOG}, HEAD, the tags and {DIST}/ are as they were"
        raise ReleaseError(f"{cause}. {note}") from exc


def plan_release(today: str, accept: str | None, accept_schema: str | None = None) -> Plan:
    """Check the committed package and compute the release; writes nothing."""
    start = git.head()
    committed = _committed(start)
    old_changelog = committed.get(CHANGELOG.as_posix(), b"")
    try:
        changelog_text = old_changelog.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReleaseError(f"{CHANGELOG}: expected UTF-8 text, found undecodable bytes ({exc.reason})") from None
    working = _read(CHANGELOG)
    if (working or b"") != old_changelog or (working is None) != (CHANGELOG.as_posix() not in committed):
        raise ReleaseError(
            f"{CHANGELOG}: expected the committed file in the working folder, found other bytes although git status "
            "shows no change (skip-worktree, assume-unchanged or git-ignored?); restore it from HEAD first"
        )
    existing = git.tags()
    absent = missing_tags(changelog_text, existing)
    if absent:
        raise ReleaseError(
            f"{CHANGELOG} names release tag(s) this clone does not have: {', '.join(absent)} "
            "(not in `git tag --list`); run `git fetch --tags` first"
        )
    docs = _check_committed_data(committed, start, today)
    data_version = max(doc["data_version"] for doc in docs.values())
    api = docs["index.json"]["version"]
    previous = newest_release(existing)
    diff = diff_trees(load_docs(previous.tag), docs) if previous else None
    version = next_version(data_version, previous, changed=diff is not None and not diff.empty)
    if version.tag in existing:
        raise ReleaseError(f"tag {version.tag} already exists; tags never move")
    large = diff.large_changes(LARGE_CHANGE_PCT) if diff else []
    if large and not accept:
        listed = "; ".join(large)
        raise ReleaseError(f"large changes since {previous.tag}: {listed}. Rerun with --accept-large-changes REASON")
    schemas = guard_release(previous.tag, start, docs, accept_schema) if previous else ""  # refuses unaccepted
    locks = load_lock(LOCK)
    upstream = "".join(
        f"\n- {task}: {lock.url} at commit {lock.commit}, sha256 {lock.sha256}, retrieved {lock.retrieved}"
        for task, lock in locks.items()
    )
    entry = changelog_entry(version, api, previous, diff, accept, upstream) + schemas
    message = tag_summary(version, previous, diff) + (f"\nLarge changes accepted: {accept}\n" if large else "")
    message += f"\nSchema change accepted: {accept_schema}\n" if schemas and accept_schema else ""
    new_changelog = insert_entry(changelog_text, entry).encode("utf-8")
    return Plan(start, version, api, locks, message, new_changelog)


def _committed(commit: str) -> dict[str, bytes]:
    """The release contents as committed in `commit`; refuses links, submodules and missing parts."""
    files = files_at(commit)
    present = {rel.split("/")[0] for rel in files}
    optional = (CHANGELOG.as_posix(), *artifacts.OPTIONAL)
    lacking = [name for name in artifacts.CONTENTS if name not in present and name not in optional]
    if lacking:
        raise ReleaseError(f"expected {', '.join(lacking)} in commit {commit[:12]}, found none")
    return files


def _check_committed_data(committed: dict[str, bytes], commit: str, today: str) -> dict[str, Any]:
    """Validate and drift-check the data as committed (a copy of it, away from git-ignored files)."""
    with tempfile.TemporaryDirectory(prefix="builder-release-") as scratch:
        root = Path(scratch)
        (root / DATA).mkdir()
        for rel, data in committed.items():
            if rel == DESCRIPTOR or rel.startswith(f"{DATA.as_posix()}/"):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(data)
        try:
            check_committed(root / DATA, today)
        except ValidationError as exc:
            summary = f"{DATA} as committed in {commit[:12]}: {len(exc.problems)} problem(s)"
            raise ValidationError(summary, exc.problems) from None
        return load_docs(str(root / DATA))


def _release(plan: Plan, undo: Undo) -> Released:
    tag = plan.version.tag
    undo.changelog_written = True  # from here on, even a failed write is undone
    _put(CHANGELOG, plan.changelog)
    git.run("add", "--", CHANGELOG.as_posix())
    undo.staged = True
    git.commit(f"Release {tag}\n\n{plan.message}", CHANGELOG.as_posix())
    made = git.head()
    if made == plan.start or git.parents(made) != [plan.start]:
        raise ReleaseError(f"expected HEAD to be the release commit on {plan.start[:12]}, found {made[:12]}")
    undo.commit = made
    release = Release(tag, plan.version, made, commit_epoch(made))
    outputs = {DIST / name: data for name, data in dist_files(release).items()}
    undo.save_dist(outputs)
    _write_dist(outputs)
    undo.tag = tag  # recorded before git runs: an interrupt may land after git made the tag
    git.create_annotated_tag(tag, plan.message, made)
    return Released(plan.version, list(outputs), plan.message)


def _write_dist(outputs: dict[Path, bytes]) -> None:
    try:
        DIST.mkdir(exist_ok=True)
    except OSError as exc:
        found = "a file" if DIST.is_file() else "a link to nothing" if DIST.is_symlink() else exc.strerror
        raise OutputError(f"{DIST}: expected a folder to write the release files into, found {found}") from None
    replace_files(outputs)


@dataclass
class Undo:
    """What this run changed so far, and how to put it back."""

    start: str
    changelog_path: Path
    changelog_before: bytes | None
    changelog_written: bool = False
    staged: bool = False
    commit: str | None = None
    tag: str | None = None  # the tag this run set out to make, on `commit`
    dist_existed: bool = False
    dist_before: dict[Path, bytes | None] = field(default_factory=dict)
    dist_ours: dict[Path, bytes] = field(default_factory=dict)

    def save_dist(self, outputs: dict[Path, bytes]) -> None:
        self.dist_existed = DIST.is_dir()
        self.dist_before = {path: _read(path) for path in outputs}
        self.dist_ours = dict(outputs)

    def run(self) -> list[str]:
        """Undo, newest step first; what could not be undone, one phrase each."""
        left: list[str] = []
        steps = (self._tag, self._head, self._index, self._changelog, self._dist)
        for step in steps:
            try:
                step(left)
            except (BuilderError, OSError) as exc:
                left.append(f"{step.__name__.strip('_')}: {exc}")
        return left

    def _tag(self, left: list[str]) -> None:
        """Delete the tag if it is there and on this run's commit, which no one else has seen."""
        if self.tag is None or self.commit is None:
            return
        made = git.lookup(f"refs/tags/{self.tag}")
        if made is not None and git.resolve(f"{made}^{{commit}}") == self.commit:
            git.delete_tag(self.tag, made)

    def _head(self, left: list[str]) -> None:
        now = git.head()
        if self.commit is not None and now == self.commit:
            try:
                git.move_head(self.start, self.commit, "builder release: roll back the release commit")
            except ReleaseError as exc:
                left.append(
                    f"HEAD is still the release commit {now[:12]} ({exc}); "
                    f"undo it with `git reset --keep {self.start[:12]}`"
                )
        elif now != self.start:
            left.append(f"HEAD moved to {now[:12]} during the release, left there (was {self.start[:12]})")

    def _index(self, left: list[str]) -> None:
        if self.staged and git.head() == self.start:
            git.unstage(self.changelog_path.as_posix(), self.start)

    def _changelog(self, left: list[str]) -> None:
        if not self.changelog_written:
            return
        if git.head() != self.start:
            left.append(f"{self.changelog_path} left as committed, since HEAD is not back at {self.start[:12]}")
            return
        now = _read(self.changelog_path)
        if self.changelog_before is None:
            if now is not None:  # this run created it (a hook may have edited it since)
                self.changelog_path.unlink()
        elif now != self.changelog_before:
            _put(self.changelog_path, self.changelog_before)

    def _dist(self, left: list[str]) -> None:
        for path, before in self.dist_before.items():
            now = _read(path)
            if before is None:
                if now is not None and now == self.dist_ours.get(path):
                    path.unlink()
            elif now != before:
                _put(path, before)
        if self.dist_before and not self.dist_existed and DIST.is_dir() and not any(DIST.iterdir()):
            DIST.rmdir()


@contextlib.contextmanager
def _no_interrupts() -> Iterator[None]:
    """Ignore Ctrl-C while rolling back (a second one would leave the rollback half done)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def _read(path: Path) -> bytes | None:
    """A regular file's bytes, or None when there is none (or something else is there)."""
    return path.read_bytes() if path.is_file() else None


def _put(path: Path, data: bytes) -> None:
    """Replace a file's bytes in one rename, keeping its mode."""
    mode = path.stat().st_mode & 0o7777 if path.is_file() else None
    tmp = new_file(path, data)
    try:
        if mode is not None:
            tmp.chmod(mode)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
