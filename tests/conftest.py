"""Shared fixtures: the repo root as working directory, a CLI runner, and no network but loopback.

The fast tier (plain `pytest`) holds every unit case; every variant of each hostile class through
the pure rule that words its message (the upstream parser, validate's checks on an edited copy with
jsonschema on the edited documents alone: tests/rules.py, the diff loader, the guard or check that
decides); a small fixed set of whole-command smoke cases that exercise each command's wiring once (a
clean build, a clean validate, a failing validate, a fetch from 127.0.0.1, a diff and a schema-diff,
a refused upstream through build); and the one CLI case of each class that has no pure rule to run
by (what a command opens or fetches, the file kinds it refuses, the output folders build refuses;
what the builder imports runs by rule, through builder._drop_current_folder); and the CLI cases that
end before a command's work (usage errors, a refusal before anything is read or fetched). The slow
tier (`pytest -m slow`) holds every other whole-command case: a class's CLI case is slow only when
every variant of the class runs by rule in the fast tier. It also holds every case that needs a git
release, a wheel or a fresh venv, a browser, a signal or a killed process, a full site build, or an
outside tool. Every class of each hostile corpus keeps a CLI case in one tier or the other.

What cases share, to keep the fast tier near a minute: the by-rule cases edit one package copy a
worker, put back as committed after each case (`reused_copy`), and tests/rules.py parses the
committed documents once; the cases that only read the committed package's `builder validate` share
one run a format (`committed_validate`).
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import REPO, copy_package, invoke


def _loopback_only(real_connect):
    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else None
        if host is not None:
            try:
                if not ipaddress.ip_address(host).is_loopback:
                    raise ConnectionRefusedError(f"tests may not reach {host}")
            except ValueError:
                if host != "localhost":
                    raise ConnectionRefusedError(f"tests may not reach {host}") from None
        return real_connect(self, address)

    return connect


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only(socket.socket.connect))


@pytest.fixture(scope="session", autouse=True)
def _shared_documents_stay_as_parsed() -> Iterator[None]:
    """The documents tests/rules.py shares between cases are read only: checked once the session
    ends."""
    yield
    rules = sys.modules.get("rules")
    changed = rules.changed_shared_documents() if rules else []
    assert not changed, f"a rule changed a shared parsed document: {changed}"


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the CLI expects."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(scope="session")
def built_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`builder build --date 2026-09-27` of the pinned upstream into a scratch folder, once a
    session.

    Tests only read it, or copy it (`shutil.copytree`) before they change anything.
    """
    root = copy_package(tmp_path_factory.mktemp("built") / "repo")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        result = invoke("build", "--out", str(root / "out" / "data"), "--date", "2026-09-27")
    assert result.exit_code == 0, result.output
    return root / "out" / "data"


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch copy of the inputs and committed outputs, used as the working directory."""
    root = copy_package(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def _entries(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry below root by relative path: its lstat mode, and its bytes if it is a regular
    file."""
    found = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        found[str(path.relative_to(root))] = (
            mode,
            path.read_bytes() if stat.S_ISREG(mode) else None,
        )
    return found


# The mtime (ns) each regular file of a reused copy is given, one a file, far from any clock
# reading: a write (even within one clock tick of the last put-back), a copy or a rename leaves
# another.
_STAMP = 10**18  # 2001-09-09


def _stamp(root: Path, pristine: dict[str, tuple[int, bytes | None, int]], rels) -> None:
    """Give each regular file of `rels` below root its own mtime (pristine's last item)."""
    for rel in rels:
        mode, _, ns = pristine[rel]
        if stat.S_ISREG(mode):
            os.utime(root / rel, ns=(ns, ns), follow_symlinks=False)


def _look(st: os.stat_result) -> tuple[int, ...]:
    """An entry told apart without reading it: a regular file by mode, size, mtime, inode and ctime
    (which no one can set: an edit whose mtime was put back with os.utime moves it), anything else
    by its mode."""
    if stat.S_ISREG(st.st_mode):
        return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    return (st.st_mode,)


def _looks(root: Path) -> dict[str, tuple[int, ...]]:
    """Every entry below root by relative path, with its `_look`."""
    found = {}
    start = len(str(root)) + 1
    folders = [str(root)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                found[entry.path[start:]] = _look(entry.stat(follow_symlinks=False))
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    return found


@pytest.fixture(scope="session")
def _reused_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    root = copy_package(tmp_path_factory.mktemp("reused") / "repo")
    entries = sorted(_entries(root).items())
    pristine = {rel: (mode, data, _STAMP + i) for i, (rel, (mode, data)) in enumerate(entries)}
    _stamp(root, pristine, pristine)
    return root, pristine, _looks(root)


@pytest.fixture
def reused_copy(
    _reused_copy: tuple[Path, dict, dict], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """repo_copy for cases that only edit files: one copy a worker, put back as committed after each
    case.

    Regular files a case rewrote, added, removed or chmodded are put back; after any other change (a
    folder, a link) the copy is made afresh. A change is seen without reading a file: each file
    keeps its own mtime (`_stamp`) until something writes, copies or renames into it.
    """
    root, pristine, looks = _reused_copy
    monkeypatch.chdir(root)
    yield root
    now = _looks(root)
    changed = [rel for rel in sorted(looks.keys() | now.keys()) if now.get(rel) != looks.get(rel)]
    if not all(_regular(now.get(rel)) and _regular(pristine.get(rel)) for rel in changed):
        shutil.rmtree(root)
        copy_package(root)
        _stamp(root, pristine, pristine)
        looks.clear()
        looks.update(_looks(root))
        return
    for rel in changed:
        if rel not in pristine:
            (root / rel).unlink()
            continue
        mode, data, _ = pristine[rel]
        if rel in now:
            os.chmod(root / rel, stat.S_IMODE(mode))
        (root / rel).write_bytes(data)
        os.chmod(root / rel, stat.S_IMODE(mode))
    put_back = [rel for rel in changed if rel in pristine]
    _stamp(root, pristine, put_back)
    looks.update({rel: _look(os.lstat(root / rel)) for rel in put_back})


def _regular(entry: tuple | None) -> bool:
    """A regular file, or no entry at all."""
    return entry is None or stat.S_ISREG(entry[0])


_VALIDATED: dict[str, Any] = {}


@pytest.fixture
def committed_validate(in_repo: Path) -> Callable[[str], Any]:
    """`builder validate --format FORMAT` on the committed package, run once a worker for each
    format.

    The cases that use it only read its result (validate writes nothing).
    """

    def result(fmt: str) -> Any:
        if fmt not in _VALIDATED:
            _VALIDATED[fmt] = invoke("validate", "--format", fmt)
        return _VALIDATED[fmt]

    return result


@pytest.fixture
def cli():
    return invoke
