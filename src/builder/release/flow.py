"""`builder release`: refuse unless everything holds, then changelog, dist/, commit and annotated tag."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder import git
from builder.diff import diff_trees, load_docs
from builder.errors import ReleaseError
from builder.layout import CHANGELOG, DATA, DIST, LOCK
from builder.pin import Lock, load_lock, lock_json
from builder.release import artifacts
from builder.release.rules import (
    LARGE_CHANGE_PCT,
    Version,
    changelog_entry,
    insert_entry,
    newest_release,
    next_version,
)
from builder.release.rules import summary as tag_summary
from builder.verify import check_committed
from builder.write import replace_files


@dataclass(frozen=True)
class Released:
    version: Version
    artifacts: list[Path]
    summary: str


def check_git_state() -> None:
    dirty = git.dirty_paths()
    if dirty:
        raise ReleaseError(f"the working tree is dirty ({', '.join(dirty[:5])}); commit or stash first")
    branch = git.current_branch()
    if branch != "main":
        raise ReleaseError(f"releases are cut from main, found branch {branch}")


def cut_release(today: str, accept: str | None) -> Released:
    check_git_state()
    check_committed(DATA, today)
    docs = load_docs(str(DATA))
    data_version = max(doc["data_version"] for doc in docs.values())
    api = docs["index.json"]["version"]
    existing = git.tags()
    previous = newest_release(existing)
    diff = diff_trees(load_docs(previous.tag), docs) if previous else None
    version = next_version(data_version, previous, changed=diff is not None and not diff.empty)
    if version.tag in existing:
        raise ReleaseError(f"tag {version.tag} already exists; tags never move")
    large = diff.large_changes(LARGE_CHANGE_PCT) if diff else []
    if large and not accept:
        listed = "; ".join(large)
        raise ReleaseError(f"large changes since {previous.tag}: {listed}. Rerun with --accept-large-changes REASON")
    locks = load_lock(LOCK)
    upstream = "".join(
        f"\n- {task}: {lock.url} at commit {lock.commit}, sha256 {lock.sha256}, retrieved {lock.retrieved}"
        for task, lock in locks.items()
    )
    old_changelog = CHANGELOG.read_text() if CHANGELOG.exists() else ""
    entry = changelog_entry(version, api, previous, diff, accept, upstream)
    message = tag_summary(version, previous, diff) + (f"\nLarge changes accepted: {accept}\n" if large else "")
    CHANGELOG.write_text(insert_entry(old_changelog, entry))
    try:
        artifacts = write_dist(version, api, locks)
        git.git("add", str(CHANGELOG))
        git.git("commit", "--quiet", "--message", f"Release {version.tag}\n\n{message}")
    except Exception:
        if old_changelog:
            CHANGELOG.write_text(old_changelog)
        else:
            CHANGELOG.unlink(missing_ok=True)
        raise
    try:
        git.create_annotated_tag(version.tag, message)
    except ReleaseError:
        git.git("reset", "--soft", "HEAD~1")
        raise
    return Released(version, artifacts, message)


def write_dist(version: Version, api: str, locks: dict[str, Lock]) -> list[Path]:
    files = artifacts.release_files(Path("."))
    name = f"leadgreen-data-{version.tag}"
    archive = artifacts.archive(files, name, version.date)
    manifest = artifacts.manifest(files, version.tag, version.date, api, lock_json(locks))
    named = {f"{name}.tar.gz": archive, f"{name}.manifest.json": manifest}
    DIST.mkdir(exist_ok=True)
    outputs = {DIST / n: data for n, data in named.items()} | {DIST / "SHA256SUMS": artifacts.sha256sums(named)}
    replace_files(outputs)
    return list(outputs)
