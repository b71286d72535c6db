"""Frictionless runs in a forked worker while the other checks run; its answer is the inline one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

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
forked = pending._worker is not None
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


def test_a_worker_interrupted_alone_is_answered_by_the_inline_check(repo_copy) -> None:
    """An interrupt that reaches only the worker (not validate itself) costs its answer, not a traceback."""
    broken_csv(repo_copy)
    same, found = in_a_fresh_process(
        repo_copy,
        """
main, real = os.getpid(), tables.check_tables
def interrupted_in_the_worker(tree):
    if os.getpid() != main:
        raise KeyboardInterrupt
    return real(tree)
tables.check_tables = interrupted_in_the_worker
pending = tables.start_tables(tree)
answer = [pending.result() == real(tree), len(real(tree))]
""",
    )
    assert same
    assert found == 2


def test_the_worker_checks_two_groups_at_once_and_answers_as_one(repo_copy) -> None:
    """Faults in both groups (the CSV's; an index's foreign key, whose model list is in the other
    group) come back in the descriptor's order, as the inline check lists them, answered by the
    groups and not by the fallback."""
    broken_csv(repo_copy)
    index = repo_copy / "data" / "workloads" / "video-chat" / "index.json"
    index.write_text(index.read_text().replace('"slug": "qwen-3-vl-8b-instruct"', '"slug": "no-such-model"', 1))
    groups, split, together, by_groups = in_a_fresh_process(
        repo_copy,
        """
from builder.validate.descriptor import safe_tables
handed = safe_tables(tree)
groups = tables._groups(tree, handed)
inline = tables.check_tables(tree)
tables._IN_WORKER = True  # as in the forked worker
split = tables.check_tables(tree)
answer = [[[handed[i]["name"] for i in g] for g in groups], [str(p) for p in split], split == inline]
answer.append(tables._in_two(tree, handed, groups) == inline)  # answered by the groups, not the fallback
""",
    )
    assert together
    assert by_groups
    assert sorted(map(len, groups)) == [9, 9]  # 18 tables: the generation workloads add six
    first, second = (
        next(i for i, g in enumerate(groups) if name in g) for name in ("configurations", "index-rows-video-chat")
    )
    assert len(groups) == 2  # with the generation workloads' tables, the CSV and this index share a group
    assert {first, second} <= {0, 1}
    assert "model-list-video-chat" not in groups[second]  # the foreign key is checked across the groups
    assert [p.split(": ")[0:2] for p in split] == [
        ["data/workloads/video-chat/index.json", "/rows/0"],
        ["data/configurations.csv", "row 2, column gpu_power_watts_total"],
        ["data/configurations.csv", "/"],
    ]


def test_tables_that_cannot_be_told_apart_are_checked_together(repo_copy) -> None:
    """Two tables of one name: the groups give no answer, and frictionless words the fault for the
    whole package, as inline."""
    desc_path = repo_copy / "datapackage.json"
    desc = json.loads(desc_path.read_text())
    desc["resources"][2]["name"] = desc["resources"][0]["name"]
    desc_path.write_text(json.dumps(desc, indent=2) + "\n")
    by_groups, same = in_a_fresh_process(
        repo_copy,
        """
from builder.validate.descriptor import safe_tables
handed = safe_tables(tree)
inline = tables.check_tables(tree)
tables._IN_WORKER = True
by_groups = tables._in_two(tree, handed, tables._groups(tree, handed))
answer = [by_groups, tables.check_tables(tree) == inline and bool(inline)]
""",
    )
    assert by_groups is None
    assert same


def test_a_worker_that_cannot_fork_again_checks_every_table_itself(repo_copy) -> None:
    broken_csv(repo_copy)
    same, found = in_a_fresh_process(
        repo_copy,
        """
def no_fork():
    raise BlockingIOError(11, "Resource temporarily unavailable")
inline = tables.check_tables(tree)
tables.os.fork = no_fork
tables._IN_WORKER = True
split = tables.check_tables(tree)
answer = [split == inline, len(split)]
""",
    )
    assert same
    assert found == 2


def test_no_worker_when_the_system_cannot_fork_then_the_check_runs_inline(repo_copy) -> None:
    broken_csv(repo_copy)
    forked, same, frozen = in_a_fresh_process(
        repo_copy,
        """
import gc, multiprocessing.context
def refuse(self):
    raise BlockingIOError(11, "Resource temporarily unavailable")
multiprocessing.context.ForkProcess.start = refuse
inline = tables.check_tables(tree)
pending = tables.start_tables(tree)
answer = [pending._worker is not None, pending.result() == inline, gc.get_freeze_count()]
""",
    )
    assert not forked
    assert same
    assert frozen == 0


def test_a_child_that_answers_in_part_is_answered_by_checking_every_table(repo_copy) -> None:
    """A child killed while it writes its report leaves part of a pickle in the pipe (a report over
    the pipe's buffer waits there until the worker reads); the worker then checks every table itself."""
    broken_csv(repo_copy)
    fell_back, same = in_a_fresh_process(
        repo_copy,
        """
import types
from builder.validate.descriptor import safe_tables
inline = tables.check_tables(tree)
tables._IN_WORKER = True
whole = tables.pickle
tables.pickle = types.SimpleNamespace(dumps=lambda value: whole.dumps(value)[:-9], loads=whole.loads)
fell_back = tables._in_two(tree, safe_tables(tree), tables._groups(tree, safe_tables(tree))) is None
answer = [fell_back, tables.check_tables(tree) == inline]
""",
    )
    assert fell_back
    assert same


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="tells a running process from a zombie by /proc")
def test_stopping_the_worker_stops_its_child(repo_copy, tmp_path) -> None:
    """When the worker is stopped before it answers (validate ending early on another error), the
    child checking the other group ends with it: no process outlives builder validate."""
    record = tmp_path / "child.pid"
    child, alive = in_a_fresh_process(
        repo_copy,
        f"""
import signal, time
main, real = os.getpid(), tables._checked
def slow_in_the_child(package, handed, group):
    if os.getppid() != main:  # the worker's child
        Path({str(record)!r}).write_text(str(os.getpid()))
        time.sleep(60)
    return real(package, handed, group)
tables._checked = slow_in_the_child
pending = tables.start_tables(tree)
while not Path({str(record)!r}).exists():
    time.sleep(0.05)
child = int(Path({str(record)!r}).read_text())
pending._worker.stop()  # as when the PendingTables is dropped unanswered
def running(pid):
    try:
        return Path(f"/proc/{{pid}}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
deadline = time.monotonic() + 10
while running(child) and time.monotonic() < deadline:
    time.sleep(0.05)
alive = running(child)
if alive:
    os.kill(child, signal.SIGKILL)
answer = [child, alive]
""",
    )
    assert child
    assert not alive


def test_a_worker_forked_ahead_of_the_tree_answers_as_the_inline_check(repo_copy) -> None:
    """`builder validate` forks the worker before it reads anything (worker_ahead); the worker imports
    frictionless meanwhile and is handed the tree's tables: the same problems as inline, in both groups."""
    broken_csv(repo_copy)
    index = repo_copy / "data" / "workloads" / "video-chat" / "index.json"
    index.write_text(index.read_text().replace('"slug": "qwen-3-vl-8b-instruct"', '"slug": "no-such-model"', 1))
    forked, imported_here, same, found = in_a_fresh_process(
        repo_copy,
        """
import sys
ahead = tables.worker_ahead()
forked, imported_here = ahead is not None, "frictionless" in sys.modules
answer = tables.start_tables(tree, ahead).result()
inline = tables.check_tables(tree)
answer = [forked, imported_here, answer == inline, [p.path for p in answer]]
""",
    )
    assert forked
    assert not imported_here  # the worker imported it, not this process
    assert same
    assert found == [
        "data/workloads/video-chat/index.json",
        "data/configurations.csv",
        "data/configurations.csv",
    ]


def test_no_worker_ahead_where_frictionless_is_imported_already(repo_copy) -> None:
    """Then a worker forked with the tree inherits the import: nothing to overlap."""
    ahead, same = in_a_fresh_process(
        repo_copy,
        """
import frictionless
ahead = tables.worker_ahead()
answer = [ahead is not None, tables.start_tables(tree, ahead).result() == tables.check_tables(tree)]
""",
    )
    assert not ahead
    assert same


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="tells a running process from a zombie by /proc")
def test_a_worker_ahead_that_is_never_handed_a_tree_ends(repo_copy) -> None:
    """validate ending before it reads the tree (a missing schema, an interrupt): the worker is stopped
    when dropped, and one whose caller closed its end unsent ends by itself."""
    stopped, ended = in_a_fresh_process(
        repo_copy,
        """
import gc, time
def gone(pid):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return False  # ended, not yet reaped
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False
dropped = tables.worker_ahead()
pid = dropped.process.pid
del dropped  # its finalizer stops it
gc.collect()
stopped = gone(pid)
unsent = tables.worker_ahead()
unsent._trees.close()  # the caller's end closed unsent: the worker's taker sees EOF
unsent.process.join(30)
answer = [stopped, unsent.process.exitcode == 0]
""",
    )
    assert stopped
    assert ended


def test_a_worker_ahead_that_died_is_replaced_by_one_forked_with_the_tree(repo_copy) -> None:
    broken_csv(repo_copy)
    handed, same = in_a_fresh_process(
        repo_copy,
        """
import signal
ahead = tables.worker_ahead()
os.kill(ahead.process.pid, signal.SIGKILL)
ahead.process.join()
handed = ahead.hand(tree)
answer = [handed, tables.start_tables(tree, ahead).result() == tables.check_tables(tree)]
""",
    )
    assert not handed
    assert same


# The worker imports frictionless without pydantic (builder.validate.lean).


def frictionless_modules() -> dict[str, Any]:
    """Each module of the installed frictionless (its tests left out), by name: its parsed source."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("frictionless")
    assert spec is not None
    assert spec.submodule_search_locations
    top = Path(next(iter(spec.submodule_search_locations)))
    found = {}
    for path in sorted(top.rglob("*.py")):
        parts = path.relative_to(top.parent).with_suffix("").parts
        if "__spec__" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = (path.name == "__init__.py", ast.parse(path.read_bytes()))
    return found


def test_frictionless_needs_pydantic_only_where_the_worker_stands_in() -> None:
    """The premise of the stand-ins: the modules of frictionless that import pydantic are the two
    stood in, and frictionless takes from them only the names the stand-ins have. A frictionless
    release that uses pydantic anywhere else fails here, before the worker could differ."""
    import ast

    from builder.validate.lean import STAND_INS

    importers, taken = set(), {}
    for name, (is_package, tree) in frictionless_modules().items():
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = (
                    f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module)
                )
                targets = [(source, alias.name) for alias in node.names]
            else:
                continue
            for source, imported in targets:
                if source == "pydantic" or source.startswith("pydantic."):
                    importers.add(name)
                if source in STAND_INS:
                    taken.setdefault(source, set()).add(imported)
                if imported is not None and f"{source}.{imported}" in STAND_INS:  # from . import models
                    used = {
                        n.attr
                        for n in ast.walk(tree)
                        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == imported
                    }
                    taken.setdefault(f"{source}.{imported}", set()).update(used)
    assert importers == set(STAND_INS)
    assert {module: sorted(names) for module, names in taken.items()} == {
        module: sorted(names) for module, names in STAND_INS.items()
    }


def test_the_worker_ahead_checks_without_pydantic_and_answers_as_frictionless_whole(repo_copy) -> None:
    """A CSV cell and a foreign key at fault: the worker, which never imports pydantic, finds what
    frictionless imported whole (this session's) finds."""
    broken_csv(repo_copy)
    index = repo_copy / "data" / "workloads" / "code-completion" / "index.json"
    index.write_text(index.read_text().replace('"slug": "qwen-3-coder-30b-a3b"', '"slug": "no-such-model"', 1))
    whole = tables.check_tables(load_tree(repo_copy / "data"))
    assert "pydantic" in sys.modules  # this session imported frictionless whole
    in_worker, found = in_a_fresh_process(
        repo_copy,
        """
import sys
watched = ("pydantic", "pydantic_core", "frictionless")
tables.check_tables = lambda tree, real=tables.check_tables: real(tree) + [
    Problem("modules", "/", " ".join(sorted(m for m in watched if m in sys.modules)))]
found = tables.start_tables(tree, tables.worker_ahead()).result()
answer = [found.pop().message, [[p.path, p.where, p.message] for p in found]]
""",
    )
    assert in_worker == "frictionless"
    assert [Problem(*p) for p in found] == whole
    assert [p.path for p in whole] == [
        "data/workloads/code-completion/index.json",
        "data/configurations.csv",
        "data/configurations.csv",
    ]


def left_out(touch: Any) -> str | None:
    """What LeftOut says when `touch()` raises it; a test failure if anything catching Exception could."""
    from builder.validate.lean import LeftOut

    try:
        touch()
    except Exception as exc:  # as frictionless, or a plugin of it, might
        pytest.fail(f"caught as an Exception: {exc!r}")
    except LeftOut as exc:
        return str(exc)
    return None


def test_a_stand_in_used_raises_past_any_handler_of_frictionless() -> None:
    """Any use of a stand-in, or of a name its module lacks, raises LeftOut, which no `except
    Exception` turns into a report; the dunders the import system probes stay plain lookups."""
    import abc
    import copy
    import importlib.util
    import types

    from builder.validate.lean import STAND_INS, StandIns

    finder = StandIns()
    assert finder.find_spec("frictionless.system", None) is None
    spec = finder.find_spec("frictionless.system.models", None)
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    assert [name for name in vars(models) if not name.startswith("__")] == list(STAND_INS[models.__name__])
    result = models.PublishResult
    used = "frictionless.system.models.PublishResult was used"
    uses = {
        "created": lambda: result(url="https://example.org"),
        "subclassed": lambda: types.new_class("Mine", (result,)),  # as a class statement does
        "subclassed beside a metaclass": lambda: types.new_class("Mine", (abc.ABC, result)),
        "isinstance": lambda: isinstance(object(), result),
        "issubclass": lambda: issubclass(int, result),
        "subscripted": lambda: result[int],
        "in a union": lambda: result | None,
        "set": lambda: setattr(result, "x", 1),
    }
    for what, use in uses.items():
        assert left_out(use) == used, what
    assert left_out(lambda: result.model_validate) == f"{used[: -len(' was used')]}.model_validate was used"
    assert left_out(lambda: result.__fields__) == f"{used[: -len(' was used')]}.__fields__ was used"
    assert left_out(lambda: models.BaseModel) == "frictionless.system.models.BaseModel was used"
    assert left_out(lambda: models.__all__) == "frictionless.system.models.__all__ was used"  # a star import
    assert left_out(lambda: copy.copy(result)) is not None  # its copy has no name, and says so without recursing
    assert not hasattr(models, "__path__")  # a module, not a package, to the import system
    assert repr(result) == "<stand-in for frictionless.system.models.PublishResult>"


@pytest.mark.parametrize(
    "body",
    [
        # a frictionless that takes a name the stand-ins lack: importing it fails in the worker
        'lean.STAND_INS = {"frictionless.system.models": ()}',
        # a stand-in used during the check
        """
main, real = os.getpid(), tables.check_tables
def publishes(tree):
    if os.getpid() != main:
        from frictionless.system.models import PublishResult  # as frictionless takes it
        PublishResult(url="https://example.org")
    return real(tree)
tables.check_tables = publishes
""",
        # a stand-in's attribute read during the check
        """
main, real = os.getpid(), tables.check_tables
def reads(tree):
    if os.getpid() != main:
        from frictionless.system.models import PublishResult
        PublishResult.model_json_schema()
    return real(tree)
tables.check_tables = reads
""",
    ],
    ids=["import", "use", "read"],
)
def test_a_worker_that_needs_what_it_left_out_is_answered_inline(repo_copy, body) -> None:
    broken_csv(repo_copy)
    found, imported = in_a_fresh_process(
        repo_copy,
        f"""
from builder.validate import lean
{body}
found = tables.start_tables(tree, tables.worker_ahead()).result()  # the worker answers nothing
answer = [[p.path for p in found], "pydantic" in sys.modules]  # checked here, frictionless whole
""",
    )
    assert imported
    assert found == ["data/configurations.csv", "data/configurations.csv"]


# Third-party plugins of frictionless, which it imports from the path: the worker imports it whole.
PLUGINS = {
    "reads-an-attribute": "from frictionless.system.models import PublishResult\nPublishResult.model_json_schema()\n",
    "subclasses-beside-abc": "import abc\nfrom frictionless.system.models import PublishResult\n"
    "class Mine(PublishResult, abc.ABC):\n    pass\n",
    "weak-reference": "import weakref\nfrom frictionless.system.models import PublishResult\n"
    "weakref.ref(PublishResult)\n",
    "needs-a-class": "import inspect\nfrom frictionless.system.models import PublishResult\n"
    "if not inspect.isclass(PublishResult):\n    raise ImportError('not the frictionless I know')\n",
}


@pytest.mark.parametrize("source", list(PLUGINS.values()), ids=list(PLUGINS))
def test_with_a_plugin_on_the_path_the_worker_imports_frictionless_whole(repo_copy, tmp_path, source) -> None:
    """A plugin may use what frictionless exports in any way, so none meets a stand-in: the worker
    imports frictionless whole, and answers as it always did."""
    (tmp_path / "frictionless_third_party.py").write_text(source)
    broken_csv(repo_copy)
    in_worker, found, here = in_a_fresh_process(
        repo_copy,
        f"""
sys.path.insert(0, {str(tmp_path)!r})
tables.check_tables = lambda tree, real=tables.check_tables: real(tree) + [
    Problem("modules", "/", " ".join(m for m in ("pydantic",) if m in sys.modules))]
found = tables.start_tables(tree, tables.worker_ahead()).result()
answer = [found.pop().message, [p.path for p in found], "frictionless" in sys.modules]
""",
    )
    assert in_worker == "pydantic"  # frictionless whole, in the worker
    assert found == ["data/configurations.csv", "data/configurations.csv"]
    assert not here  # the worker answered: nothing checked here


def test_a_module_named_as_a_plugin_is_seen_on_any_entry_of_the_path(tmp_path, monkeypatch) -> None:
    from builder.validate import lean

    empty, plugged, archive = tmp_path / "empty", tmp_path / "plugged", tmp_path / "modules.zip"
    empty.mkdir()
    (plugged / "frictionless_ckan_extra").mkdir(parents=True)  # a package counts as a module file does
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip archive: its modules cannot be listed
    cases = {
        (str(empty), str(tmp_path / "missing")): False,
        (str(empty), str(plugged)): True,
        (str(archive),): True,
    }
    for path, possible in cases.items():
        monkeypatch.setattr(sys, "path", list(path))
        assert lean._plugin_possible() is possible, path
