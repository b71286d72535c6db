"""Shared fixtures: the repo root as working directory, a CLI runner, and no network but loopback.

The fast tier (plain `pytest`) holds every unit case and, for each class of a corpus, every variant
through the pure rule that words its message (the upstream parser, validate's checks on an edited
copy with jsonschema on the edited documents alone: tests/rules.py, the diff loader) and one or two
variants through the CLI. The slow tier (`pytest -m slow`) holds the further CLI variants of a class
(`slow_after`), a whole command already covered by a cheaper fast case of its class, and every case
that needs a git release, a wheel or a fresh venv, a browser, a signal or a killed process, a full
site build, or an outside tool over the site or the README's examples. Every class of each hostile
corpus keeps a CLI case in one tier or the other, and all its variants by rule in the fast tier (but
the release corpus, every case a git release: all slow).
"""

from __future__ import annotations

import ipaddress
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main

REPO = Path(__file__).resolve().parent.parent


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


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the CLI expects."""
    monkeypatch.chdir(REPO)
    return REPO


def copy_package(root: Path) -> Path:
    """A scratch copy of the inputs and committed outputs at `root`."""
    root.mkdir()
    for name in ("upstream", "data", "schemas"):
        shutil.copytree(REPO / name, root / name)
    for name in ("metadata.toml", "datapackage.json"):
        shutil.copy2(REPO / name, root / name)
    return root


@pytest.fixture(scope="session")
def built_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`builder build --date 2026-09-27` of the pinned upstream into a scratch folder, once a session.

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


def invoke(*args: str):
    """Run the builder CLI in this process; exceptions other than the builder's own propagate."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def cli():
    return invoke


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root, by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def slow_after(cases: list, fast: int = 1) -> list:
    """The cases of one class as pytest params: the first `fast` in the fast tier, the other variants marked slow."""
    params = []
    for i, case in enumerate(cases):
        if not hasattr(case, "marks"):  # a plain tuple of values
            case = pytest.param(*case)
        if i >= fast:
            case = pytest.param(*case.values, id=case.id, marks=[*case.marks, pytest.mark.slow])
        params.append(case)
    return params
