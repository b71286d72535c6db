"""Frictionless over the package's tables: types, constraints, primary and foreign keys.

Only the tabular resources go through frictionless (two per workload, the workload list and the
CSV, whatever the number of models); the JSON documents are checked whole by jsonschema, and every
file's size and hash by crossfile.

A JSON table reaches frictionless as the rows of the bytes the tree read, parsed as frictionless's
own JSON reader would (numbers with a fraction or exponent as Decimal) and laid out as its keyed
reader lays them out (the dialect's `keys` as the header, a missing key as an empty cell). Its
row, type, constraint, primary-key and foreign-key checks are frictionless's own; only the
reading is done here, which saves it re-reading the file and inferring a schema it then discards.
A table whose JSON does not have that shape (no such property, an empty or non-list value,
an item that is not an object, a null `keys`, an empty or dotted property or a dotted top-level
key, which frictionless's dotted path may read otherwise) goes to frictionless as the file,
so it reports the fault in its own words. The CSV goes as the file.

Importing frictionless and validating the tables is most of `builder validate` on a small
package, so it runs in a forked worker while the caller does the other checks. `builder validate`
forks it before it reads anything (`worker_ahead`), so that frictionless is imported there (without
pydantic, which validation never uses: builder.validate.lean) while the caller reads the tree, and
then hands it the tables (`start_tables(tree, ahead)`). The worker makes the frictionless package
once and checks its tables in two groups at once (`_in_two`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import traceback
import weakref
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from builder.errors import Problem
from builder.layout import DESCRIPTOR, below
from builder.validate.descriptor import frictionless_descriptor, safe_tables
from builder.validate.lean import LeftOut, import_frictionless
from builder.validate.tree import Tree


class PendingTables:
    """check_tables(tree), running in a forked worker; `result()` waits for its problems.

    `ahead` is a worker forked before the tree was read (worker_ahead), which has been importing
    frictionless meanwhile: it is handed the tree's tables. Without one, a worker is forked now,
    and inherits the tree."""

    def __init__(self, tree: Tree, ahead: Worker | None = None) -> None:
        self._tree = tree
        self._problems: list[Problem] | None = None
        if ahead is not None and not ahead.hand(tree):
            ahead.stop()  # gone before it was handed the tree: fork another
            ahead = None
        self._worker = ahead or Worker.fork(tree)

    def result(self) -> list[Problem]:
        """The same problems, in the same order, as check_tables(tree) would return here."""
        if self._problems is not None:
            return self._problems
        if self._worker is None:
            self._problems = check_tables(self._tree)
            return self._problems
        try:
            ok, value = self._worker.answers.recv()
        except EOFError:  # the worker died without an answer: check here instead
            ok, value = True, check_tables(self._tree)
        finally:
            self._worker.stop()
        if not ok:
            raise RuntimeError(f"the frictionless worker failed:\n{value}")
        self._problems = value
        return value


def start_tables(tree: Tree, ahead: Worker | None = None) -> PendingTables:
    """Begin check_tables(tree) in a forked worker (inline where fork is unavailable or unsafe)."""
    return PendingTables(tree, ahead)


def worker_ahead() -> Worker | None:
    """A worker forked before the tree is read, to import frictionless while the caller reads it
    (then start_tables(tree, worker)); None where frictionless is imported here already, so that
    a worker forked with the tree inherits it, or where no worker can be forked."""
    if "frictionless" in sys.modules:
        return None
    return Worker.fork(None)


class Worker:
    """A forked process that runs check_tables on one tree and sends back its answer."""

    def __init__(self, process: Any, answers: Any, trees: Any, frozen: bool) -> None:
        self.process, self.answers, self._trees = process, answers, trees
        self.stop = weakref.finalize(self, _stop, process, answers, trees, frozen)

    @classmethod
    def fork(cls, tree: Tree | None) -> Worker | None:
        """The worker, given the tree (which it inherits) or not (it imports frictionless, then
        waits to be handed one); None where it cannot fork, and the check runs inline."""
        if threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
            return None  # forking a threaded process can deadlock the child
        context = multiprocessing.get_context("fork")
        pipes: list[tuple[Any, Any]] = []
        try:
            for _ in range(1 if tree is not None else 2):  # answers, and trees when it is handed one
                pipes.append(context.Pipe(duplex=False))
        except OSError:  # out of file descriptors
            _close(*(end for pipe in pipes for end in pipe))
            return None
        (answers, answer), (take, trees) = pipes[0], (pipes[1] if tree is None else (None, None))
        process = context.Process(target=_worker, args=(tree, take, trees, answer), daemon=True)
        # Frozen objects are left alone by the garbage collector, so neither process's collections
        # write to (and so copy) the memory pages they share until the worker is done.
        frozen = gc.get_freeze_count() == 0
        if frozen:
            gc.freeze()
        try:
            process.start()
        except BaseException as exc:
            if frozen:
                gc.unfreeze()
            _close(answers, answer, take, trees)
            if isinstance(exc, OSError):  # out of processes or memory
                return None
            raise
        _close(answer, take)
        return cls(process, answers, trees, frozen)

    def hand(self, tree: Tree) -> bool:
        """Send a worker forked ahead what check_tables reads of the tree; False if it is gone (or
        the tree cannot be sent), and then nothing was sent."""
        if self._trees is None or self._trees.closed:
            return False
        try:
            self._trees.send(tables_part(tree))
        except Exception:  # a broken or closed pipe, or a tree pickle refuses (too deep)
            return False
        finally:
            self._trees.close()
        return True


def tables_part(tree: Tree) -> Tree:
    """The part of the tree that check_tables reads: the descriptor, and the files its tables name."""
    rels = {below(table["path"], tree.data_dir) for table in safe_tables(tree)}  # each one read (safe_tables)
    raw = {rel: tree.raw[rel] for rel in rels}
    docs = {rel: tree.docs[rel] for rel in rels if rel in tree.docs}  # the CSV has none
    return Tree(root=tree.root, data_dir=tree.data_dir, raw=raw, docs=docs, descriptor=tree.descriptor)


def _worker(tree: Tree | None, take: Any, trees: Any, send: Any) -> None:
    global _IN_WORKER
    _IN_WORKER = True  # here check_tables splits its tables in two and checks both halves at once
    _close(trees)  # the caller's end, inherited: it alone may hold it open, so that its exit ends recv()
    try:
        handed: list[Any] = [tree] if tree is not None else []
        taker = None
        if tree is None:  # forked ahead of the tree: a thread takes it while frictionless is imported,
            taker = threading.Thread(target=_take, args=(take, handed))
            taker.start()  # so that the caller's send never waits for the import
        try:
            import_frictionless()  # without pydantic, unless imported already (builder.validate.lean)
        finally:
            if taker is not None:
                taker.join()  # before any fork here
        if not handed:  # never handed one (the caller stopped first)
            return
        answer: tuple[bool, Any] = (True, check_tables(handed[0]))
    except (KeyboardInterrupt, LeftOut):  # the worker alone interrupted, or frictionless needs what
        return  # it left out: no answer, and the caller checks inline
    except BaseException:  # reported to the parent, which raises it
        answer = (False, traceback.format_exc())
    send.send(answer)
    send.close()


_IN_WORKER = False


def _take(take: Any, handed: list[Any]) -> None:
    """The tree the caller sends, into `handed`; nothing if it closes its end unsent (the worker then
    ends without an answer, and the caller checks inline)."""
    with contextlib.suppress(BaseException):  # EOF, or a part of a tree: nothing to check
        handed.append(take.recv())


def _stop(process: Any, answers: Any, trees: Any, frozen: bool) -> None:
    _close(answers, trees)
    if process.is_alive():
        process.terminate()
    process.join()
    if frozen:
        gc.unfreeze()


def _close(*ends: Any) -> None:
    for end in ends:
        if end is not None:
            end.close()


def check_tables(tree: Tree) -> list[Problem]:
    """Every problem frictionless finds in the package's tables, in the descriptor's order.

    In the forked worker the tables are split in two groups of about the same work, checked at
    once, one in a child of the worker; the answer is the same list. A descriptor fault, or a child
    that fails, is answered by checking every table together, as everywhere else."""
    desc = tree.descriptor
    if not isinstance(desc, dict) or not isinstance(desc.get("resources"), list):
        return []
    tables = safe_tables(tree)  # never a path outside the package, a URL, or a schema to fetch
    if not tables:
        return [Problem(DESCRIPTOR, "/resources", "expected tabular resources, found none")]
    groups = _groups(tree, tables) if _IN_WORKER and threading.active_count() == 1 else None
    if groups is not None and (found := _in_two(tree, tables, groups)) is not None:
        return found
    return _validated(tree, tables)


def _validated(tree: Tree, tables: list[dict[str, Any]]) -> list[Problem]:
    """Frictionless on these tables, as one package: each table's problems in turn, then the descriptor's."""
    from frictionless import system

    with system.use_context(trusted=False):
        try:
            package = _package(tree, tables)
        except Exception as exc:  # frictionless reports descriptor faults as its own exceptions
            return [Problem(DESCRIPTOR, "/", f"expected a valid Data Package descriptor, found: {exc}")]
        report = package.validate()
    message = "expected a valid Data Package descriptor, found: {}"
    return _task_problems(tables, report) + [Problem(DESCRIPTOR, "/", message.format(e.message)) for e in report.errors]


def _package(tree: Tree, tables: list[dict[str, Any]]) -> Any:
    """The frictionless Package of these tables (a JSON table as its rows: as_rows); frictionless's
    own exception when the descriptor is not one it accepts."""
    from frictionless import Package

    return Package(frictionless_descriptor([as_rows(tree, t) for t in tables]), basepath=str(tree.root))


def _in_two(tree: Tree, tables: list[dict[str, Any]], groups: list[list[int]]) -> list[Problem] | None:
    """The problems of every table, the two groups checked at once (the second in a forked child);
    None when the descriptor has a fault only the whole package can word, or the child fails.

    The package is made and its descriptor checked once, before the fork, as Package.validate does
    first; each process then checks its group's tables as Package.validate checks each table, with
    the whole package at hand for foreign keys. So neither process pays frictionless's setup twice."""
    from frictionless import system

    with system.use_context(trusted=False):
        try:
            package = _package(tree, tables)
            package.to_descriptor(validate=True)
        except Exception:  # a descriptor fault: the whole check words it
            return None
        if len(package.resources) != len(tables):
            return None
        answers = _forked(lambda: _checked(package, tables, groups[1]), lambda: _checked(package, tables, groups[0]))
    if answers is None:
        return None
    by_table = dict(answers[0] + answers[1])
    if sorted(by_table) != list(range(len(tables))):
        return None
    return [problem for i in range(len(tables)) for problem in by_table[i]]


def _checked(package: Any, tables: list[dict[str, Any]], group: list[int]) -> list[tuple[int, list[Problem]]]:
    """Each of these tables (by position) checked as Package.validate checks it: its own metadata,
    then its rows with the default checklist and error limit."""
    from frictionless import Checklist

    checklist = Checklist()
    found = []
    for i in group:
        found.append((i, _task_problems(tables, package.resources[i].validate(checklist=checklist))))
    return found


def _task_problems(tables: list[dict[str, Any]], report: Any) -> list[Problem]:
    """The problems of each table a frictionless report checked, in its order."""
    return [_problem(tables, task.name, error) for task in report.tasks for error in task.errors]


def _forked(theirs: Callable[[], Any], mine: Callable[[], Any]) -> tuple[Any, Any] | None:
    """(theirs(), mine()), theirs computed in a forked child meanwhile and sent back pickled; None
    when the child cannot be made or does not answer in full."""
    try:
        read, write = os.pipe()
    except OSError:  # out of file descriptors: one process checks them all
        return None
    guard = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}) if guard else None
    try:
        pid = os.fork()
    except OSError:  # out of processes or memory: likewise
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: answer, then leave without cleaning up
        try:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a SIGTERM meanwhile ends it here
            os.close(read)
            try:
                answer = pickle.dumps(theirs())
            except BaseException:  # the parent checks every table itself
                answer = pickle.dumps(None)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(answer)
        finally:
            os._exit(0)
    if mask is not None:  # the worker stopped (PendingTables._stop) takes its child with it
        previous = signal.signal(signal.SIGTERM, functools.partial(_end_with, pid))
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    os.close(write)
    try:
        here = mine()
    finally:
        with os.fdopen(read, "rb") as pipe:
            sent = pipe.read()
        if mask is not None:  # before the wait: once reaped, the child's pid may be another's
            signal.signal(signal.SIGTERM, previous)
        os.waitpid(pid, 0)
    try:
        there = pickle.loads(sent) if sent else None
    except Exception:  # the child ended part way through its answer (killed while the pipe was full)
        return None
    return None if there is None else (there, here)


def _end_with(child: int, signum: int, _frame: Any) -> None:
    """The worker's SIGTERM handler while its child runs: end the child, then the worker as the signal would."""
    try:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    except OSError:  # already gone
        pass
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _groups(tree: Tree, tables: list[dict[str, Any]]) -> list[list[int]] | None:
    """The tables' positions in two groups of about the same work (a fixed cost per table, plus
    its bytes), heavier first; None when there are not two tables to split."""
    if len(tables) < 2:
        return None
    cost = [TABLE_COST + len(tree.raw.get(below(t["path"], tree.data_dir) or "", b"")) for t in tables]
    loads: list[tuple[int, list[int]]] = [(0, []), (0, [])]
    for i in sorted(range(len(tables)), key=lambda i: -cost[i]):
        load, members = loads.pop(0)
        loads.append((load + cost[i], [*members, i]))
        loads.sort(key=lambda entry: entry[0])
    return [sorted(members) for _, members in reversed(loads)]


TABLE_COST = 24_000  # what frictionless spends on a table whatever its size, in bytes of rows it could read meanwhile


def as_rows(tree: Tree, table: dict[str, Any]) -> dict[str, Any]:
    """The table with its JSON rows inline (see the module docstring), or as it is."""
    control = _json_control(table)
    if table.get("format") != "json" or table.get("encoding", "utf-8") != "utf-8" or control is None:
        return table
    if set(table["dialect"]) != {"json"} or not set(control) <= {"property", "keys"}:
        return table
    keys, prop = control.get("keys"), control.get("property")
    rel = below(table["path"], tree.data_dir)
    doc = tree.docs.get(rel)
    if not (isinstance(prop, str) and isinstance(doc, dict)):  # parsed strictly: one value per key
        return table
    if "keys" in control and not (isinstance(keys, list) and all(isinstance(key, str) for key in keys)):
        return table  # a null `keys` is a fault in frictionless's words, not the same as none
    # Frictionless finds the rows by the dotted path `<property>.item`: an empty property names
    # nothing, and a dot in the property or in another top-level key can name other values too.
    if not prop or any("." in key for key in (prop, *doc)):
        return table
    rows = json.loads(tree.raw[rel], parse_float=Decimal).get(prop)
    if not (isinstance(rows, list) and rows and all(isinstance(row, dict) for row in rows)):
        return table
    header = keys or list(rows[0])
    inline = {key: value for key, value in table.items() if key in INLINE_KEYS}
    return inline | {"data": [header, *([row.get(key) for key in header] for row in rows)]}


INLINE_KEYS = ("name", "title", "description", "type", "schema")  # what an inline table keeps


def _problem(tables: list[dict[str, Any]], name: str, error: Any) -> Problem:
    """A frictionless error at a JSON pointer (JSON tables: row 2 is item 0) or a CSV row and column."""
    res = next((r for r in tables if r.get("name") == name), {})
    message = f"{error.type}: {error.note or error.message}"
    row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
    control = _json_control(res)
    prop = control.get("property") if control is not None else None
    if row is None:
        where = "/"
    elif prop:
        where = f"/{prop}/{row - 2}" + (f"/{field}" if field else "")
    else:
        where = f"row {row}" + (f", column {field}" if field else "")
    return Problem(str(res.get("path", name)), where, message)


def _json_control(table: dict[str, Any]) -> dict[str, Any] | None:
    """The table's `dialect.json` object, or None where a hand edit made either anything else."""
    dialect = table.get("dialect")
    control = dialect.get("json") if isinstance(dialect, dict) else None
    return control if isinstance(control, dict) else None
