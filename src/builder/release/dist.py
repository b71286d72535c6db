"""`builder dist`: dist/ (archive, manifest, data wheel, sdist, SHA256SUMS) from the tag at HEAD,
alike in any clone."""

import datetime as dt
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path
from string import Template
from typing import Any

from builder import card, git
from builder.croissant import CROISSANT
from builder.dates import date_fault, today_utc
from builder.errors import ReleaseError, printable
from builder.guards import check_dist_output
from builder.layout import (
    CHANGELOG,
    DATA,
    DIST,
    INDEX,
    LOCK,
    METADATA,
    PACKAGE_NAME,
    PUBLISHED_SCHEMAS,
    SCHEMAS,
    WORKLOAD_LIST,
    below,
    is_published,
)
from builder.pin import lock_json, parse_locks, sha256
from builder.release.rules import TAG, Version, newest_release, read_tag
from builder.release.tags import data_version_at, mismatch
from builder.repository import parse as parse_repository
from builder.scratch import scratch_folder
from builder.write import publish

REQUIRED = ("data", "schemas", "datapackage.json", "LICENSE", "DATA-LICENCE.md")
# What a release archive holds, when the commit has it; the archive's README.md is written from
# workloads.json.
CONTENTS = (*REQUIRED, "CHANGELOG.md", "CITATION.cff", CROISSANT, "docs/data-dictionary.md")
# The data wheel `leadgreen-data`: the published files and the `leadgreen_data` reader,
# byte-reproducible by flit_core.
MODULE = "leadgreen_data"
BACKEND = "flit_core.buildapi"
BACKEND_VERSION = "4.2.0"  # keep equal to the builder's own dependency pin in pyproject.toml
# the reader's source folder in the repository: reader/leadgreen_data/, reader/README.md
READER = "reader"
# The release files in the module: lg.path() holds them as the archive does.
PUBLISHED = (
    "data/",
    "schemas/",
    "datapackage.json",
    "CITATION.cff",
    CROISSANT,
    "docs/data-dictionary.md",
    "README.md",
)
LICENCES = ("LICENSE", "DATA-LICENCE.md")


@dataclass(frozen=True)
class Release:
    """The release checked out: its version (and so its tag), commit and SOURCE_DATE_EPOCH."""

    version: Version
    commit: str
    epoch: int


def files_at(
    commit: str, paths: tuple[str, ...] = CONTENTS, required: tuple[str, ...] = ()
) -> dict[str, bytes]:
    """The regular files under `paths` at `commit`, from git's objects; ReleaseError when a
    `required` one is absent."""
    files, odd = git.tree_files(commit, paths)
    if odd:
        raise ReleaseError(
            f"expected regular files only in the release, found {', '.join(odd[:5])} at "
            f"{commit[:12]}"
        )
    # never published
    files = {rel: data for rel, data in files.items() if not rel.startswith("schemas/inputs/")}
    present = {rel.split("/")[0] for rel in files} | set(files)
    if missing := [name for name in required if name not in present]:
        raise ReleaseError(f"expected {', '.join(missing)} in commit {commit[:12]}, found none")
    return files


def shipped(files: dict[str, bytes], commit: str) -> dict[str, bytes]:
    """`files` when every one under data/ is a published file and every one under schemas/ a
    published schema (validate's rules), else ReleaseError naming the others."""
    data, schemas = DATA.as_posix(), SCHEMAS.as_posix()
    stray = [
        rel
        for rel in files
        if ((inside := below(rel, data)) is not None and not is_published(inside))
        or ((schema := below(rel, schemas)) is not None and schema not in PUBLISHED_SCHEMAS)
    ]
    if stray:
        shown = ", ".join(printable(rel) for rel in stray[:5]) + (
            f" and {len(stray) - 5} more" * (len(stray) > 5)
        )
        raise ReleaseError(
            f"expected only published files under {data}/ and {schemas}/ at {commit[:12]}, found "
            f"{shown} (refused by `builder validate`); remove them and release a new commit"
        )
    return files


def release_at_head(wanted: str | None = None) -> Release:
    """The release tag at HEAD (`wanted`, else the newest one there) that names its data's version;
    the working tree must be clean. ReleaseError for a tag of an impossible or future date, or one
    that names other data."""
    git.require_clean("dist/ is built from a clean checkout of a release tag")
    head = git.head()
    at_head = git.git("tag", "--points-at", head).split()
    if wanted is not None and wanted not in at_head:
        raise ReleaseError(
            f"tag {printable(wanted)} is not at HEAD ({head[:12]}); check it out first"
        )
    candidates = [wanted] if wanted is not None else [tag for tag in at_head if TAG.fullmatch(tag)]
    if not candidates:
        newest = newest_release(git.git("tag", "--list").split())
        hint = f" (for example git checkout {newest.tag})" if newest else ""
        raise ReleaseError(
            f"no release tag at HEAD ({head[:12]}); check out a release tag first{hint}"
        )
    data_version, good, faults = data_version_at(head), [], []
    for tag in candidates:
        try:
            version = read_tag(tag)
        except ReleaseError as exc:
            faults.append(str(exc))
            continue
        if (fault := mismatch(version, data_version, head)) or (
            fault := date_fault(version.date, today_utc())
        ):
            faults.append(fault if fault.startswith("tag ") else f"tag {tag}: {fault}")
        else:
            good.append(version)
    if not good:
        raise ReleaseError(faults[0])
    return Release(max(good), head, int(git.git("log", "-1", "--format=%ct", head)))


def dist_files(release: Release) -> dict[str, bytes]:
    """The files of dist/, by name: archive, manifest, wheel, sdist and SHA256SUMS over the other
    four."""
    files = shipped(files_at(release.commit, required=REQUIRED), release.commit)
    tag, date = release.version.tag, release.version.date
    api = json.loads(files[f"data/{INDEX}"])["version"]
    tasks, models = parse_locks(
        files_at(release.commit, (str(LOCK),), (str(LOCK),))[str(LOCK)], f"{LOCK} at {tag}"
    )
    curated = files_at(release.commit, (str(METADATA),)).get(str(METADATA), b"")
    found = parse_repository(curated.decode("utf-8", "replace"))
    workloads = card.listed_workloads(files[f"data/{WORKLOAD_LIST}"])
    readme = card.archive_readme(workloads, tag, date, found.url if found else None).encode()
    # in path order, as git lists the others
    files = dict(sorted({**files, "README.md": readme}.items()))
    name = f"{PACKAGE_NAME}-{tag}"
    named = {
        f"{name}.tar.gz": archive(files, name, date),
        f"{name}.manifest.json": manifest(files, tag, date, api, lock_json(tasks, models)),
    }
    named |= build_packages(files, files_at(release.commit, (READER, str(METADATA))), release)
    # as `sha256sum -c` reads
    sums = "".join(f"{sha256(data)}  {name}\n" for name, data in named.items())
    return named | {"SHA256SUMS": sums.encode()}


def build_dist(out: Path = DIST, tag: str | None = None) -> tuple[Release, list[Path]]:
    """Make `out` hold exactly the release's dist files, built from the release tag at HEAD
    (`tag`, if given)."""
    check_dist_output(out)
    release = release_at_head(tag)
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


def manifest(
    files: dict[str, bytes], tag: str, data_version: str, api: str, lock: dict[str, Any]
) -> bytes:
    """Name, tag, versions, the upstream lock, and each file's size and sha256, as JSON."""
    entries = [
        {"path": rel, "bytes": len(data), "sha256": sha256(data)} for rel, data in files.items()
    ]
    doc = {
        "name": PACKAGE_NAME,
        "tag": tag,
        "data_version": data_version,
        "api_version": api,
        "upstream": lock,
    }
    return (json.dumps(doc | {"files": entries}, indent=2, allow_nan=False) + "\n").encode()


def changelog_notes(changelog: str, tag: str) -> str:
    """The changelog entry of one tag (its heading and body, up to the next entry), for release
    notes."""
    heading = re.compile(rf"^## {re.escape(tag)}(?: |$)", re.MULTILINE)
    found = heading.search(changelog)
    if found is None:
        raise ReleaseError(f"{CHANGELOG} has no entry for {tag}")
    following = re.compile(r"^## ", re.MULTILINE).search(changelog, found.end())
    return (
        changelog[found.start() : following.start() if following else len(changelog)].rstrip()
        + "\n"
    )


def notes_at(release: Release) -> str:
    changelog = files_at(release.commit, (str(CHANGELOG),), (str(CHANGELOG),))[str(CHANGELOG)]
    return changelog_notes(changelog.decode("utf-8"), release.version.tag)


def _pyproject(version: Version, repository: str | None, summary: str) -> str:
    """The staging project's pyproject.toml, its URLs into the repository at the tag (when
    metadata.toml names one)."""
    blob = f"{repository}/blob/{version.tag}"
    pages = {
        "Repository": repository,
        "Data dictionary": f"{blob}/docs/data-dictionary.md",
        "Changelog": f"{blob}/CHANGELOG.md",
    }
    urls = (
        "".join(f"{json.dumps(name)} = {json.dumps(url)}\n" for name, url in pages.items())
        if repository
        else ""
    )
    template = Template(
        resources.files("builder.release").joinpath("wheel-pyproject.toml.in").read_text("utf-8")
    )
    licences = json.dumps(list(LICENCES), allow_nan=False)
    fields = {
        "backend_version": BACKEND_VERSION,
        "backend": BACKEND,
        "name": PACKAGE_NAME,
        "licence_files": licences,
    }
    return template.substitute(fields, version=version.number, summary=json.dumps(summary)) + urls


def staged_files(
    files: dict[str, bytes], reader: dict[str, bytes], version: Version
) -> dict[str, bytes]:
    """Every file of the staging project, by path: pure, so what goes into the wheel is testable."""
    prefix = f"{READER}/{MODULE}/"
    staged = {
        f"{MODULE}/{rel.removeprefix(prefix)}": data
        for rel, data in reader.items()
        if rel.startswith(prefix)
        and "__pycache__" not in rel.split("/")
        and not rel.endswith(".pyc")
    }
    if f"{MODULE}/__init__.py" not in staged or f"{READER}/README.md" not in reader:
        raise ReleaseError(
            f"expected {prefix}__init__.py and {READER}/README.md at the release commit"
        )
    for rel, data in files.items():
        if rel.startswith(PUBLISHED):
            target = f"{MODULE}/{rel}"
            if target in staged:
                raise ReleaseError(f"{prefix}{rel} would shadow the published file {rel}")
            staged[target] = data
    staged |= {name: files[name] for name in LICENCES}  # dist.files_at requires them
    staged["README.md"] = reader[f"{READER}/README.md"]
    found = parse_repository(reader.get(str(METADATA), b"").decode("utf-8", "replace"))
    summary = card.summary(card.listed_workloads(files[f"data/{WORKLOAD_LIST}"]))
    staged["pyproject.toml"] = _pyproject(version, found.url if found else None, summary).encode()
    staged[f"{MODULE}/_release.py"] = (
        '"""Written when the wheel was built: which release this is."""\n\n'
        f'__version__ = "{version.number}"\nTAG = "{version.tag}"\nDATA_VERSION = '
        f'"{version.date}"\n'
    ).encode()
    return dict(sorted(staged.items()))


def build_packages(
    files: dict[str, bytes], reader: dict[str, bytes], release: Release
) -> dict[str, bytes]:
    """Stage the project, run the backend's build_wheel and build_sdist hooks with
    SOURCE_DATE_EPOCH: name -> bytes."""
    from pyproject_hooks import BuildBackendHookCaller

    try:
        found = installed_version("flit_core")
    except PackageNotFoundError:
        found = None
    if found != BACKEND_VERSION:
        raise ReleaseError(
            f"the data wheel is reproducible with flit_core {BACKEND_VERSION}, found "
            f"{found or 'none'}; "
            "reinstall the builder with its release extra (pip install -e '.[release]')"
        )
    staged = staged_files(files, reader, release.version)
    with scratch_folder(
        "leadgreen-wheel-", {f"project/{rel}": data for rel, data in staged.items()}
    ) as tmp:
        stage, out = tmp / "project", tmp / "out"
        out.mkdir()

        def run(cmd: Any, cwd: str | None = None, extra_environ: Any = None) -> None:
            env = {**os.environ, **(extra_environ or {}), "SOURCE_DATE_EPOCH": str(release.epoch)}
            done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
                raise ReleaseError(
                    f"the build backend ({BACKEND}) failed to build the wheel or sdist:\n{tail}"
                )

        caller = BuildBackendHookCaller(
            str(stage), BACKEND, runner=run, python_executable=sys.executable
        )
        made = {}
        for hook, expected in (
            (caller.build_wheel, f"{MODULE}-{release.version.number}-py3-none-any.whl"),
            (caller.build_sdist, f"{MODULE}-{release.version.number}.tar.gz"),
        ):
            if (name := hook(str(out))) != expected:
                raise ReleaseError(f"expected the backend to write {expected}, found {name}")
            made[name] = (out / name).read_bytes()
        return made
