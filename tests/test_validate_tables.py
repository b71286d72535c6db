"""Frictionless runs in a forked worker while the other checks run; its answer is the inline one."""

from __future__ import annotations

import os
import threading

import pytest

from builder.errors import Problem
from builder.validate import tables
from builder.validate.tree import load_tree


@pytest.fixture
def single_threaded() -> None:
    """No other thread, so that the worker really forks. A fetch that hit its deadline leaves its
    download thread to end at its own read timeout (a second or so in the tests): wait for it."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(timeout=30)
    assert threading.enumerate() == [threading.main_thread()], "a thread outlived its test"


def broken_csv(repo):
    """The package with one CSV cell that is not a number: frictionless reports it."""
    csv = repo / "data" / "configurations.csv"
    csv.write_text(csv.read_text().replace(",3854,", ",lots,", 1))
    return load_tree(repo / "data")


def test_forked_worker_returns_what_the_inline_check_returns(repo_copy, single_threaded) -> None:
    tree = broken_csv(repo_copy)
    inline = tables.check_tables(tree)
    found = {(p.path, p.where, p.message.split(":")[0]) for p in inline}
    assert found == {
        ("data/configurations.csv", "row 2, column gpu_power_watts_total", "type-error"),
        ("data/configurations.csv", "/", "hash-count"),
    }
    assert tables.start_tables(tree).result() == inline


def where_checked(tree) -> list[Problem]:
    return [Problem("pid", "/", str(os.getpid()))]


def test_the_check_runs_in_another_process(repo_copy, monkeypatch, single_threaded) -> None:
    monkeypatch.setattr(tables, "check_tables", where_checked)
    pending = tables.start_tables(load_tree(repo_copy / "data"))
    (problem,) = pending.result()
    assert problem.message != str(os.getpid())


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


def test_a_failing_worker_fails_the_check(repo_copy, monkeypatch, single_threaded) -> None:
    def broken(tree):
        raise ValueError("frictionless blew up")

    monkeypatch.setattr(tables, "check_tables", broken)
    pending = tables.start_tables(load_tree(repo_copy / "data"))
    with pytest.raises(RuntimeError, match="ValueError: frictionless blew up"):
        pending.result()
