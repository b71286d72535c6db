"""`builder dist`: rebuild dist/ (archive, manifest, wheel, SHA256SUMS) from the release tag at HEAD.

Every file comes from the tagged commit's objects, never the working tree, and every timestamp from
its committer date (SOURCE_DATE_EPOCH from the environment is ignored): any clone gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from builder import git
from builder.errors import ReleaseError
from builder.guards import check_dist_output
from builder.layout import CHANGELOG, DIST, INDEX, LOCK
from builder.pin import Lock, lock_json, parse_lock
from builder.release import artifacts, wheel
from builder.release.artifacts import CONTENTS
from builder.release.rules import Version
from builder.write import publish

REQUIRED = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
READER_PATHS = (wheel.READER, wheel.METADATA)  # the reader's source, and metadata.toml for its project URLs


@dataclass(frozen=True)
class Release:
    """The release checked out: its tag, version, commit and SOURCE_DATE_EPOCH."""

    tag: str
    version: Version
    commit: str
    epoch: int


def resolve_commit(ref: str) -> str:
    """The full sha of the commit a ref names (never read as an option, whatever it starts with)."""
    commit = git.commit_of(ref)
    if commit is None:
        raise ReleaseError(f"{ref}: expected a commit, found none")
    return commit


def commit_epoch(commit: str) -> int:
    """SOURCE_DATE_EPOCH for a release: the committer date of its commit, in seconds."""
    return int(git.git("log", "-1", "--format=%ct", resolve_commit(commit)))


def files_at(commit: str, paths: tuple[str, ...] = CONTENTS) -> dict[str, bytes]:
    """Every file under `paths` at `commit` by path, from git's objects (links and submodules refused)."""
    files, odd = git.tree_files(resolve_commit(commit), paths)
    if odd:
        raise ReleaseError(f"expected regular files only in the release, found {', '.join(odd[:5])} at {commit[:12]}")
    return {rel: data for rel, data in files.items() if not rel.startswith("schemas/inputs/")}  # never published


def release_at_head() -> Release:
    """The release tag at HEAD, refused unless the working tree is clean."""
    dirty = git.dirty_paths()
    if dirty:
        raise ReleaseError(
            f"the working tree is dirty ({', '.join(dirty[:5])}); dist/ is built from a clean checkout of a release tag"
        )
    head = resolve_commit("HEAD")
    found = sorted(v for v in map(Version.parse, git.git("tag", "--points-at", head).split()) if v is not None)
    if not found:
        newest = sorted(v for v in map(Version.parse, git.tags()) if v is not None)
        hint = f" (for example git checkout {newest[-1].tag})" if newest else ""
        raise ReleaseError(f"no release tag at HEAD ({head[:12]}); check out a release tag first{hint}")
    version = found[-1]
    return Release(version.tag, version, head, commit_epoch(head))


def lock_at(commit: str) -> dict[str, Lock]:
    data = files_at(commit, (LOCK.as_posix(),)).get(LOCK.as_posix())
    if data is None:
        raise ReleaseError(f"expected {LOCK} at {commit[:12]}, found none")
    return parse_lock(data, f"{LOCK} at {commit[:12]}")


def dist_files(release: Release) -> dict[str, bytes]:
    """The files of dist/, by name: archive, manifest, wheel and SHA256SUMS over the other three."""
    files = files_at(release.commit)
    missing = [p for p in REQUIRED if not any(rel == p or rel.startswith(p + "/") for rel in files)]
    if missing:
        raise ReleaseError(f"expected {', '.join(missing)} at {release.tag}, found none")
    api = json.loads(files[f"data/{INDEX}"])["version"]
    name = f"leadgreen-data-{release.tag}"
    named = {
        f"{name}.tar.gz": artifacts.archive(files, name, release.version.date),
        f"{name}.manifest.json": artifacts.manifest(
            files, release.tag, release.version.date, api, lock_json(lock_at(release.commit))
        ),
    }
    whl_name, whl = wheel.build_wheel(files, files_at(release.commit, READER_PATHS), release.tag, release.epoch)
    named[whl_name] = whl
    return named | {"SHA256SUMS": artifacts.sha256sums(named)}


def build_dist(out: Path = DIST) -> tuple[Release, list[Path]]:
    """Make `out` hold exactly the release's dist files, built from the release tag at HEAD."""
    check_dist_output(out)
    release = release_at_head()
    named = dist_files(release)
    publish(out, named)
    return release, [out / name for name in named]


def changelog_notes(changelog: str, tag: str) -> str:
    """The changelog entry of one tag (its heading and body, up to the next entry), for release notes."""
    heading = re.compile(rf"^## {re.escape(tag)}(?: |$)", re.MULTILINE)
    found = heading.search(changelog)
    if found is None:
        raise ReleaseError(f"{CHANGELOG} has no entry for {tag}")
    following = re.compile(r"^## ", re.MULTILINE).search(changelog, found.end())
    return changelog[found.start() : following.start() if following else len(changelog)].rstrip() + "\n"


def notes_at(release: Release) -> str:
    text = files_at(release.commit, (str(CHANGELOG),)).get(CHANGELOG.as_posix())
    if text is None:
        raise ReleaseError(f"expected {CHANGELOG} at {release.tag}, found none")
    return changelog_notes(text.decode("utf-8"), release.tag)
