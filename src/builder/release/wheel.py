"""The data wheel `leadgreen-data` (published files and the `leadgreen_data` reader), byte-reproducible by flit_core."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

from builder.errors import ReleaseError
from builder.repository import parse as parse_repository
from builder.write import newest_data_version

DIST_NAME = "leadgreen-data"
MODULE = "leadgreen_data"
BACKEND = "flit_core.buildapi"
BACKEND_VERSION = "4.2.0"  # keep equal to the builder's own dependency pin in pyproject.toml
READER = "reader"  # the reader's source folder in the repository: reader/leadgreen_data/, reader/README.md
PUBLISHED = ("data/", "schemas/", "datapackage.json", "CITATION.cff")  # the release files in the module
LICENCES = ("LICENSE", "DATA-LICENCE.md")
METADATA = "metadata.toml"  # its repository gives the wheel's project URLs
GENERATED = "_release.py"  # written into the module at build time: version, tag, data version


def dist_version(tag: str) -> str:
    """The tag without its `v`, in PEP 440's normal form: v2026.01.05 -> 2026.1.5 (installers match either)."""
    from packaging.version import InvalidVersion, Version

    if not tag.startswith("v"):
        raise ReleaseError(f"expected a release tag like v2026.10.19, found {tag!r}")
    try:
        parsed = Version(tag[1:])
    except InvalidVersion as exc:
        raise ReleaseError(f"tag {tag}: {tag[1:]!r} is not a valid PEP 440 version") from exc
    if parsed.local or parsed.is_prerelease or parsed.is_postrelease or parsed.epoch:
        raise ReleaseError(f"tag {tag}: expected a plain release version, found {parsed}")
    return str(parsed)


def _pyproject(version: str, tag: str, repository: str | None) -> str:
    """The staging project's pyproject.toml, its URLs into the repository at the tag (when metadata.toml names one)."""
    blob = f"{repository}/blob/{tag}"
    pages = {
        "Repository": repository,
        "Data dictionary": f"{blob}/docs/data-dictionary.md",
        "Changelog": f"{blob}/CHANGELOG.md",
    }
    urls = "".join(f"{json.dumps(name)} = {json.dumps(url)}\n" for name, url in pages.items()) if repository else ""
    return f"""\
[build-system]
requires = ["flit_core=={BACKEND_VERSION}"]
build-backend = "{BACKEND}"

[project]
name = "{DIST_NAME}"
version = "{version}"
description = "GPU energy per output token of large language models, per model and GPU (LeadGreen API v1 data)"
readme = "README.md"
requires-python = ">=3.10"
license = "MIT AND Apache-2.0"
license-files = {json.dumps(list(LICENCES), allow_nan=False)}
authors = [{{ name = "LeadGreen" }}]
keywords = ["energy", "llm", "gpu", "inference", "dataset"]
classifiers = ["Intended Audience :: Science/Research", "Programming Language :: Python :: 3",
  "Topic :: Scientific/Engineering", "Typing :: Typed"]
dependencies = []

[project.urls]
Homepage = "https://leadgreen.ai"
{urls}"""


def staged_files(files: dict[str, bytes], reader: dict[str, bytes], tag: str) -> dict[str, bytes]:
    """Every file of the staging project, by path: pure, so what goes into the wheel is testable."""
    version = dist_version(tag)
    prefix = f"{READER}/{MODULE}/"
    staged = {
        f"{MODULE}/{rel.removeprefix(prefix)}": data
        for rel, data in reader.items()
        if rel.startswith(prefix) and "__pycache__" not in rel.split("/") and not rel.endswith(".pyc")
    }
    if f"{MODULE}/__init__.py" not in staged or f"{READER}/README.md" not in reader:
        raise ReleaseError(f"expected {prefix}__init__.py and {READER}/README.md at the release commit")
    for rel, data in files.items():
        if rel.startswith(PUBLISHED):
            target = f"{MODULE}/{rel}"
            if target in staged:
                raise ReleaseError(f"{prefix}{rel} would shadow the published file {rel}")
            staged[target] = data
    staged |= {name: files[name] for name in LICENCES}  # dist.files_at requires them
    staged["README.md"] = reader[f"{READER}/README.md"]
    found = parse_repository(reader.get(METADATA, b"").decode("utf-8", "replace"))
    staged["pyproject.toml"] = _pyproject(version, tag, found.url if found else None).encode()
    data = [json.loads(b) for rel, b in files.items() if rel.startswith("data/") and rel.endswith(".json")]
    data_version = newest_data_version(data)
    if data_version is None:
        raise ReleaseError("expected documents with a data_version under data/, found none")
    staged[f"{MODULE}/{GENERATED}"] = (
        '"""Written when the wheel was built: which release this is."""\n\n'
        f'__version__ = "{version}"\nTAG = "{tag}"\nDATA_VERSION = "{data_version}"\n'
    ).encode()
    return dict(sorted(staged.items()))


def build_wheel(files: dict[str, bytes], reader: dict[str, bytes], tag: str, epoch: int) -> tuple[str, bytes]:
    """Stage the project, run the backend's build_wheel hook with SOURCE_DATE_EPOCH=epoch, return (name, bytes)."""
    from pyproject_hooks import BuildBackendHookCaller

    try:
        found = installed_version("flit_core")
    except PackageNotFoundError:
        found = None
    if found != BACKEND_VERSION:
        raise ReleaseError(
            f"the data wheel is reproducible with flit_core {BACKEND_VERSION}, found {found or 'none'}; "
            "reinstall the builder with its release extra (pip install -e '.[release]')"
        )
    staged = staged_files(files, reader, tag)
    with tempfile.TemporaryDirectory(prefix="leadgreen-wheel-") as tmp:
        stage, out = Path(tmp) / "project", Path(tmp) / "out"
        for rel, data in staged.items():
            target = stage / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(0o644)
        out.mkdir()

        def run(cmd: Any, cwd: str | None = None, extra_environ: Any = None) -> None:
            env = {**os.environ, **(extra_environ or {}), "SOURCE_DATE_EPOCH": str(epoch)}
            done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
                raise ReleaseError(f"the build backend ({BACKEND}) failed to build the wheel:\n{tail}")

        caller = BuildBackendHookCaller(str(stage), BACKEND, runner=run, python_executable=sys.executable)
        name = caller.build_wheel(str(out))
        expected = f"{MODULE}-{dist_version(tag)}-py3-none-any.whl"
        if name != expected:
            raise ReleaseError(f"expected the backend to write {expected}, found {name}")
        return name, (out / name).read_bytes()
