"""What tests share besides fixtures: the repository root, a package copy, the CLI, file
snapshots."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder import jsonschemas
from builder.cli import main
from builder.metadata import load_metadata, upstream_tasks

REPO = Path(__file__).resolve().parent.parent
# the pinned upstream task files, in the lock's order (test_lock.py spells them out)
TASKS = tuple(upstream_tasks(load_metadata(REPO / "metadata.toml")))


def copy_package(root: Path) -> Path:
    """A scratch copy of the inputs and committed outputs at `root`."""
    root.mkdir()
    for name in ("upstream", "data", "schemas"):
        shutil.copytree(REPO / name, root / name)
    for name in ("metadata.toml", "datapackage.json"):
        shutil.copy2(REPO / name, root / name)
    return root


def invoke(*args: str):
    """Run the builder CLI in this process; exceptions other than the builder's own propagate."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root, by relative path, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def slow_after(cases: list, fast: int = 1) -> list:
    """The cases of one class as pytest params: the first `fast` in the fast tier, the other
    variants marked slow."""
    params = []
    for i, case in enumerate(cases):
        if not hasattr(case, "marks"):  # a plain tuple of values
            case = pytest.param(*case)
        if i >= fast:
            case = pytest.param(*case.values, id=case.id, marks=[*case.marks, pytest.mark.slow])
        params.append(case)
    return params


def default_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP act as in a terminal, even where the test run ignores them (a
    background job of a shell, nohup): for a process that the tests signal."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def forget_schemas() -> None:
    """Empty every cache of read, resolved or compiled schemas (a case edited schemas/)."""
    for value in vars(jsonschemas).values():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
