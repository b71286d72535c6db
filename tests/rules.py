"""validate's checks on an edited copy of the committed package, in a fraction of the CLI's time.

jsonschema over every document is most of the cost, so a document byte for byte as committed is taken
as passing its schema (test_validate.py proves the committed package valid) and only the edited
documents are checked against theirs; every other rule runs in full, as `builder validate` runs it.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import pytest

from builder.layout import schema_for
from builder.validate import run
from builder.validate.tree import Tree, load_tree
from builder.verify import _provenance
from conftest import REPO, snapshot

check_every_schema = run.check_schemas


@cache
def _committed() -> dict[str, bytes]:
    return dict(load_tree(REPO / "data").raw)


def _edited_schemas(tree: Tree) -> tuple[list, set[str]]:
    """check_schemas on the documents that differ from the committed ones; the others pass."""
    committed = _committed()
    same = {rel for rel in tree.docs if rel in committed and tree.raw.get(rel) == committed[rel] and schema_for(rel)}
    edited = dataclasses.replace(tree, docs={rel: doc for rel, doc in tree.docs.items() if rel not in same})
    problems, passed = check_every_schema(edited)
    return problems, passed | same


def rule_problems(data: Path, *, with_tables: bool = False) -> list[str]:
    """What `builder validate` finds in `data`, one line a problem (frictionless's table checks only `with_tables`)."""
    tree = load_tree(data)
    curated, base_url = _provenance(data.parent, tree.descriptor)
    with pytest.MonkeyPatch.context() as patch:
        if snapshot(data.parent / "schemas") == snapshot(REPO / "schemas"):
            patch.setattr(run, "check_schemas", _edited_schemas)
        if with_tables:
            return [str(p) for p in run.check_published(tree, base_url, curated)]
        return [str(p) for p in run.check_rules(tree, base_url, curated)[0]]
