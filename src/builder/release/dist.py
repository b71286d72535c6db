"""`builder dist`: dist/ (archive, manifest, wheel, SHA256SUMS) from the tag at HEAD, the same bytes in any clone."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder import git
from builder.errors import ReleaseError
from builder.guards import check_dist_output
from builder.layout import CHANGELOG, DIST, INDEX, LOCK
from builder.pin import lock_json, parse_lock, sha256
from builder.release import wheel
from builder.release.rules import Version, newest_release
from builder.write import publish

REQUIRED = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
CONTENTS = (*REQUIRED, "CHANGELOG.md", "CITATION.cff")  # what a release archive holds, when the commit has it
READER_PATHS = (wheel.READER, wheel.METADATA)  # the reader's source, and metadata.toml for its project URLs
Paths = tuple[str, ...]


@dataclass(frozen=True)
class Release:
    """The release checked out: its tag, version, commit and SOURCE_DATE_EPOCH."""

    tag: str
    version: Version
    commit: str
    epoch: int


def files_at(commit: str, paths: Paths = CONTENTS, required: Paths = (), where: str = "") -> dict[str, bytes]:
    """The regular files under `paths` at `commit`, from git's objects; ReleaseError when a `required` one is absent."""
    files, odd = git.tree_files(commit, paths)
    if odd:
        raise ReleaseError(f"expected regular files only in the release, found {', '.join(odd[:5])} at {commit[:12]}")
    files = {rel: data for rel, data in files.items() if not rel.startswith("schemas/inputs/")}  # never published
    present = {rel.split("/")[0] for rel in files} | set(files)
    missing = [name for name in required if name not in present]
    if missing:
        raise ReleaseError(f"expected {', '.join(missing)} {where}, found none")
    return files


def release_at_head() -> Release:
    """The release tag at HEAD, refused unless the working tree is clean."""
    git.require_clean("dist/ is built from a clean checkout of a release tag")
    head = git.head()
    version = newest_release(git.git("tag", "--points-at", head).split())
    if version is None:
        newest = newest_release(git.tags())
        hint = f" (for example git checkout {newest.tag})" if newest else ""
        raise ReleaseError(f"no release tag at HEAD ({head[:12]}); check out a release tag first{hint}")
    return Release(version.tag, version, head, int(git.git("log", "-1", "--format=%ct", head)))


def dist_files(release: Release) -> dict[str, bytes]:
    """The files of dist/, by name: archive, manifest, wheel and SHA256SUMS over the other three."""
    files = files_at(release.commit, required=REQUIRED, where=f"at {release.tag}")
    api = json.loads(files[f"data/{INDEX}"])["version"]
    where = f"at {release.commit[:12]}"
    lock = parse_lock(files_at(release.commit, (str(LOCK),), (str(LOCK),), where)[str(LOCK)], f"{LOCK} {where}")
    name = f"leadgreen-data-{release.tag}"
    named = {
        f"{name}.tar.gz": archive(files, name, release.version.date),
        f"{name}.manifest.json": manifest(files, release.tag, release.version.date, api, lock_json(lock)),
    }
    whl_name, whl = wheel.build_wheel(files, files_at(release.commit, READER_PATHS), release.tag, release.epoch)
    named[whl_name] = whl
    sums = "".join(f"{sha256(data)}  {name}\n" for name, data in named.items())  # as `sha256sum -c` reads
    return named | {"SHA256SUMS": sums.encode()}


def build_dist(out: Path = DIST) -> tuple[Release, list[Path]]:
    """Make `out` hold exactly the release's dist files, built from the release tag at HEAD."""
    check_dist_output(out)
    release = release_at_head()
    named = dist_files(release)
    publish(out, named)
    return release, [out / name for name in named]


def archive(files: dict[str, bytes], top: str, date: str) -> bytes:
    """A .tar.gz whose bytes depend only on the files, the folder name and the date."""
    mtime = int(dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC).timestamp())
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, data in files.items():
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def manifest(files: dict[str, bytes], tag: str, data_version: str, api: str, lock: dict[str, Any]) -> bytes:
    """Name, tag, versions, the upstream lock, and each file's size and sha256, as JSON."""
    entries = [{"path": rel, "bytes": len(data), "sha256": sha256(data)} for rel, data in files.items()]
    doc = {"name": "leadgreen-data", "tag": tag, "data_version": data_version, "api_version": api, "upstream": lock}
    return (json.dumps(doc | {"files": entries}, indent=2, allow_nan=False) + "\n").encode()


def changelog_notes(changelog: str, tag: str) -> str:
    """The changelog entry of one tag (its heading and body, up to the next entry), for release notes."""
    heading = re.compile(rf"^## {re.escape(tag)}(?: |$)", re.MULTILINE)
    found = heading.search(changelog)
    if found is None:
        raise ReleaseError(f"{CHANGELOG} has no entry for {tag}")
    following = re.compile(r"^## ", re.MULTILINE).search(changelog, found.end())
    return changelog[found.start() : following.start() if following else len(changelog)].rstrip() + "\n"


def notes_at(release: Release) -> str:
    changelog = files_at(release.commit, (str(CHANGELOG),), (str(CHANGELOG),), f"at {release.tag}")[str(CHANGELOG)]
    return changelog_notes(changelog.decode("utf-8"), release.tag)
