"""All checks of a package, in order: parse, files, schemas, documents, physics, cross-file, tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.errors import Problem
from builder.validate.crossfile import (
    check_csv,
    check_descriptor,
    check_files,
    check_headers,
    check_index,
    check_model_list,
)
from builder.validate.documents import check_dates, check_model
from builder.validate.physics import check_physics
from builder.validate.schema import SCHEMAS, check_schemas, check_schemas_fast
from builder.validate.tree import INDEX, MODEL_LIST, Tree


def check_tree(tree: Tree, base_url: str, schemas: Path = SCHEMAS, own_output: bool = False) -> list[Problem]:
    """Every problem in the tree.

    `own_output` is the build checking what it just made: the schemas are applied by their
    fastjsonschema compilation (jsonschema only explains failures) and frictionless is skipped.
    `builder validate` runs everything with jsonschema, the authority.
    """
    tables = None
    if not own_output:
        from builder.validate.tables import start_tables

        tables = start_tables(tree)  # frictionless, in a forked worker while the checks below run here
    problems = [*tree.problems, *check_files(tree)]
    schema_problems, passed = (check_schemas_fast if own_output else check_schemas)(tree, schemas)
    problems += schema_problems
    problems += check_consistency(tree, {rel: tree.docs[rel] for rel in sorted(passed)}, base_url)
    if tables is not None:
        problems += tables.result()
    return problems


def check_consistency(tree: Tree, ok: dict[str, Any], base_url: str) -> list[Problem]:
    """Per-document rules, physics and cross-file rules, on the documents that passed their schema."""
    problems: list[Problem] = []
    for rel, doc in ok.items():
        if rel.startswith("models/"):
            problems += check_model(tree.shown(rel), rel, doc) + check_physics(tree.shown(rel), doc)
        else:
            problems += check_dates(tree.shown(rel), doc)
    problems += check_headers(tree, ok)
    if INDEX in ok:
        problems += check_index(tree, ok)
    if MODEL_LIST in ok:
        problems += check_model_list(tree, ok, base_url, ok[MODEL_LIST]["version"])
    if all(rel in ok for rel in tree.docs if rel.startswith("models/")):
        problems += check_csv(tree, ok)
    return problems + check_descriptor(tree)
