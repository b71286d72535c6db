"""validate's checks on an edited copy of the committed package, in a fraction of the CLI's time.

What the cases share: a file whose bytes are the committed file's is parsed once a worker, and every
case gets that parsed document (same bytes, same document; the rules only read it, which the end of
the session checks). A document byte for byte as committed passes jsonschema and every per-document
rule (test_validate.py proves the committed package valid), so those run on the edited documents
alone. Likewise a workload whose files and the root CSV are all as committed passes its frontier's
and its output lengths' rules (they read nothing else), so those run on the other workloads alone;
and its cross-file check (crossfile.check_workload) while the base URL and, for an LLM workload,
the text conversation's files are as committed too.
Everything else (reading the files, every other rule across documents and files) runs in full, as
`builder validate` runs it. `built_problems` does the same for the build's own check of a tree
edited in memory (its documents changed, their bytes left as committed).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from builder import strictjson
from builder.errors import Problem
from builder.layout import CSV, ROOT_WORKLOAD, place, schema_for
from builder.validate import crossfile, frontiers, run
from builder.validate import tree as tree_module
from builder.validate.committed import provenance
from builder.validate.crossfile import GENERATION_WORKLOADS
from builder.validate.tree import Tree, load_tree
from helpers import REPO, snapshot

check_every_schema = run.check_schemas
# each (..., doc) -> problems
PER_DOCUMENT = (
    "check_names",
    "check_model",
    "check_physics",
    "check_dates",
)
_unchanged: set[int] = set()  # the ids of the documents under check that are as committed


@cache
def committed_files() -> dict[str, bytes]:
    """The committed data folder's files, by path relative to it, read once a worker (read only)."""
    return dict(load_tree(REPO / "data").raw)


@cache
def _parsed() -> dict[bytes, Any]:
    """The committed documents (the descriptor too), parsed, by their bytes."""
    files = [data for rel, data in committed_files().items() if rel.endswith(".json")]
    files.append((REPO / "datapackage.json").read_bytes())
    return {data: strictjson.parse_json(data) for data in files}


def changed_shared_documents() -> list[bytes]:
    """The start of each shared document that no longer equals what its bytes parse to (conftest
    asks at the end)."""
    if not _parsed.cache_info().currsize:
        return []
    return [data[:60] for data, doc in _parsed().items() if strictjson.parse_json(data) != doc]


def _as_committed(tree: Tree, rel: str) -> bool:
    """The document's bytes as committed, and the document what they parse to (a document edited in
    memory, its bytes left as they were, is not): the shared parse itself, or a copy that pickles
    the same (which tells 1 from 1.0 and True, as == does not)."""
    committed = committed_files()
    raw = tree.raw.get(rel)
    if rel not in committed or raw != committed[rel]:
        return False
    doc = tree.docs.get(rel)
    return doc is _parsed()[raw] or pickle.dumps(doc) == _pickled(raw)


@cache
def _pickled(raw: bytes) -> bytes:
    return pickle.dumps(_parsed()[raw])


def _edited_schemas(tree: Tree) -> tuple[list, set[str]]:
    """check_schemas on the documents that differ from the committed ones; the others pass."""
    same = {rel for rel in tree.docs if schema_for(rel) and _as_committed(tree, rel)}
    _unchanged.clear()
    _unchanged.update(id(tree.docs[rel]) for rel in same)
    edited = dataclasses.replace(
        tree, docs={rel: doc for rel, doc in tree.docs.items() if rel not in same}
    )
    problems, passed = check_every_schema(edited)
    return problems, passed | same


def _edited_only(check: Callable[..., list]) -> Callable[..., list]:
    """A per-document check, run on the edited documents; a document as committed has no problem."""
    return lambda *args: [] if id(args[-1]) in _unchanged else check(*args)


def _workload_as_committed(tree: Tree, workload: str) -> bool:
    """Each file of the workload (each document too), and the root CSV, as committed; none added or
    gone."""
    committed = committed_files()
    found = {rel for rel, at in tree.places.items() if at.workload == workload}
    wanted = {rel for rel in committed if (at := place(rel)) and at.workload == workload}
    return (
        found == wanted
        and tree.raw.get(CSV) == committed[CSV]
        and all(
            _as_committed(tree, rel) if rel in tree.docs else tree.raw.get(rel) == committed[rel]
            for rel in found
        )
    )


def _edited_workloads(check: Callable[..., list]) -> Callable[..., list]:
    """A workload's check, run when the workload is edited; one as committed has no problem."""
    return lambda tree, workload, *rest: (
        [] if _workload_as_committed(tree, workload) else check(tree, workload, *rest)
    )


@cache
def _committed_base_url() -> str:
    return provenance(REPO, None)[1]


def _edited_cross_checks(check: Callable[..., list]) -> Callable[..., list]:
    """crossfile.check_workload, run when the workload is edited, or (for an LLM workload) the text
    conversation's, or the base URL; it reads nothing else, so one as committed has no problem."""

    def checked(
        tree: Tree, workload: str, groups: Any, base_url: str, *, csv_lines: bool = True
    ) -> list:
        alone = workload in (ROOT_WORKLOAD, *GENERATION_WORKLOADS)
        same = (
            base_url == _committed_base_url()
            and _workload_as_committed(tree, workload)
            and (alone or _workload_as_committed(tree, ROOT_WORKLOAD))
        )
        return [] if same else check(tree, workload, groups, base_url, csv_lines=csv_lines)

    return checked


@contextmanager
def _committed_pass(root: Path) -> Iterator[None]:
    """While the schemas under root are the committed ones: what is as committed passes its schema,
    its per-document rules and its workload's frontier and output lengths rules unchecked."""
    with pytest.MonkeyPatch.context() as patch:
        if snapshot(root / "schemas") == snapshot(REPO / "schemas"):
            patch.setattr(run, "check_schemas", _edited_schemas)
            for name in PER_DOCUMENT:
                patch.setattr(run, name, _edited_only(getattr(run, name)))
            # each workload's: run calls them as frontiers.check_frontier and check_output_lengths
            patch.setattr(frontiers, "check_frontier", _edited_workloads(frontiers.check_frontier))
            patch.setattr(run, "check_output_lengths", _edited_workloads(run.check_output_lengths))
            patch.setattr(
                crossfile, "check_workload", _edited_cross_checks(crossfile.check_workload)
            )
        yield


def built_problems(tree: Tree, base_url: str) -> list[str]:
    """The build's own check (run.check_built) of `tree`, the committed data folder edited in
    memory, one line a problem; what is as committed passes unchecked, as in rule_findings."""
    with _committed_pass(tree.root):
        return [str(p) for p in run.check_built(tree, base_url)]


def consistency_problems(tree: Tree, base_url: str) -> list[str]:
    """validate's rules within and across the files (run.check_consistency: built_problems's but
    the size check, and the flat tables line by line) on `tree` edited in memory, as
    built_problems."""
    with _committed_pass(tree.root):
        return [str(p) for p in run.check_consistency(tree, base_url)[0]]


def rule_problems(data: Path, *, with_tables: bool = False) -> list[str]:
    """What `builder validate` finds in `data`, one line a problem (frictionless's table checks
    only `with_tables`)."""
    return [str(p) for p in rule_findings(data, with_tables=with_tables)]


def rule_findings(data: Path, *, with_tables: bool = False) -> list[Problem]:
    """What `builder validate` finds in `data`, as Problems (frictionless's table checks only
    `with_tables`)."""
    committed = _parsed()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            tree_module, "parse_json", lambda raw: committed.get(raw) or strictjson.parse_json(raw)
        )
        found = load_tree(data)
    curated, base_url = provenance(data.parent, found.descriptor)
    with _committed_pass(data.parent):
        if with_tables:
            return run.check_published(found, base_url, curated)
        problems, ok = run.check_consistency(found, base_url)
        return problems + run.check_package(found, ok, curated)[0]
