"""Frictionless runs in a forked worker while the other checks run; its answer is the inline one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from builder.errors import Problem
from builder.validate import tables
from builder.validate.tree import load_tree


def in_a_fresh_process(repo: Path, body: str) -> Any:
    """Run `body` in a new interpreter (no thread of this test session, so the worker really forks);
    `tree` is the package of `repo`, and the value of `answer` comes back."""
    code = f"""
import json, os, sys
from pathlib import Path
from builder.errors import Problem
from builder.validate import tables
from builder.validate.tree import load_tree
tree = load_tree(Path({str(repo)!r}) / "data")
{body}
print(json.dumps(answer))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def broken_csv(repo):
    """The package with one CSV cell that is not a number: frictionless reports it."""
    csv = repo / "data" / "configurations.csv"
    csv.write_text(csv.read_text().replace(",3854,", ",lots,", 1))
    return load_tree(repo / "data")


def test_forked_worker_returns_what_the_inline_check_returns(repo_copy) -> None:
    broken_csv(repo_copy)
    same, forked, found = in_a_fresh_process(
        repo_copy,
        """
inline = tables.check_tables(tree)
pending = tables.start_tables(tree)
forked = pending._process is not None
answer = [pending.result() == inline, forked, sorted({(p.path, p.where, p.message.split(":")[0]) for p in inline})]
""",
    )
    assert same
    assert forked
    assert found == sorted(
        [
            ["data/configurations.csv", "row 2, column gpu_power_watts_total", "type-error"],
            ["data/configurations.csv", "/", "hash-count"],
        ]
    )


def where_checked(tree) -> list[Problem]:
    return [Problem("pid", "/", str(os.getpid()))]


def test_the_check_runs_in_another_process(repo_copy) -> None:
    here, there, frozen_meanwhile, frozen_after = in_a_fresh_process(
        repo_copy,
        """
import gc
tables.check_tables = lambda tree: [Problem("pid", "/", str(os.getpid()))]
pending = tables.start_tables(tree)
frozen_meanwhile = gc.get_freeze_count() > 0  # the collector leaves the shared objects alone meanwhile
(problem,) = pending.result()
answer = [str(os.getpid()), problem.message, frozen_meanwhile, gc.get_freeze_count()]
""",
    )
    assert here != there
    assert frozen_meanwhile
    assert frozen_after == 0


def test_a_threaded_process_checks_inline(repo_copy, monkeypatch) -> None:
    """Forking while another thread runs can deadlock the child; then the check runs here, at result()."""
    monkeypatch.setattr(tables, "check_tables", where_checked)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        pending = tables.start_tables(load_tree(repo_copy / "data"))
    finally:
        stop.set()
        thread.join()
    assert pending.result() == [Problem("pid", "/", str(os.getpid()))]


def test_a_failing_worker_fails_the_check(repo_copy) -> None:
    message = in_a_fresh_process(
        repo_copy,
        """
def broken(tree):
    raise ValueError("frictionless blew up")
tables.check_tables = broken
try:
    tables.start_tables(tree).result()
    answer = None
except RuntimeError as exc:
    answer = str(exc)
""",
    )
    assert message is not None
    assert "ValueError: frictionless blew up" in message
