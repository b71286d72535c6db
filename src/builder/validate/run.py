"""All checks of a package, in order: parse, files, schemas, documents, physics, cross-file, tables."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem
from builder.layout import WORKLOAD_LIST, index_rel, is_model, model_list_rel
from builder.validate.crossfile import (
    check_csv,
    check_descriptor,
    check_files,
    check_headers,
    check_index,
    check_model_list,
)
from builder.validate.descriptor import check_package
from builder.validate.documents import check_dates, check_model
from builder.validate.generation import check_generation
from builder.validate.physics import check_physics
from builder.validate.schema import check_schemas, check_schemas_fast
from builder.validate.tables import PendingTables
from builder.validate.tree import Tree
from builder.validate.workloads import check_identity, check_shared_across, check_workload_list, group_by_workload


def check_published(tree: Tree, base_url: str, curated: dict[str, Any] | None, tables: PendingTables) -> list[Problem]:
    """Every problem in a package under review: jsonschema (the authority), the descriptor in full,
    then frictionless on the tables, whose answer `tables` (validate.tables.start_tables(tree),
    begun by the caller) holds. `curated` is what metadata.toml and the lock make of the
    descriptor's curated keys, or None in a release archive (then its JSON Schema checks them)."""
    problems = [*tree.problems, *check_files(tree)]
    schema_problems, passed = check_schemas(tree)
    problems += schema_problems
    ok = {rel: tree.docs[rel] for rel in sorted(passed)}
    problems += check_consistency(tree, ok, base_url)
    problems += check_package(tree, ok, curated)
    return problems + tables.result()


def check_built(tree: Tree, base_url: str) -> list[Problem]:
    """The build's check of what it just made: the schemas by their fastjsonschema compilation
    (jsonschema only explains failures), every other rule, and no frictionless (its tables
    are generated from the same schemas)."""
    problems = [*tree.problems, *check_files(tree)]
    schema_problems, passed = check_schemas_fast(tree)
    problems += schema_problems
    return problems + check_consistency(tree, {rel: tree.docs[rel] for rel in sorted(passed)}, base_url)


def check_consistency(tree: Tree, ok: dict[str, Any], base_url: str) -> list[Problem]:
    """Per-document rules, physics and cross-file rules, on the documents that passed their schema."""
    problems: list[Problem] = []
    for rel, doc in ok.items():
        if is_model(rel):
            problems += check_model(tree.shown(rel), rel, doc) + check_physics(tree.shown(rel), doc)
        else:
            problems += check_dates(tree.shown(rel), doc)
    groups = group_by_workload(tree, ok)
    for workload, (docs, slugs) in groups.items():
        problems += check_headers(tree, workload, docs)
        if index_rel(workload) in docs:
            problems += check_index(tree, workload, docs)
        if (model_list := docs.get(model_list_rel(workload))) is not None:
            problems += check_model_list(tree, workload, docs, slugs, base_url, model_list["version"])
    problems += check_shared_across(tree, groups) + check_identity(tree, groups)
    if WORKLOAD_LIST in ok:
        problems += check_workload_list(tree, ok, groups, base_url)
        if all(rel in ok for rel in tree.docs if is_model(rel)):
            problems += check_csv(tree, ok)
    problems += check_generation(tree, ok, base_url)  # text to image, text to video
    return problems + check_descriptor(tree)
