"""All checks of a package, in order: parse, files, schemas, documents, physics, cross-file, tables."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem
from builder.layout import GENERATION_WORKLOADS, WORKLOAD_LIST, index_rel, is_model, model_list_rel, place
from builder.validate.crossfile import (
    check_csv,
    check_files,
    check_headers,
    check_index,
    check_model_list,
    check_responses,
)
from builder.validate.descriptor import check_descriptor, check_package
from builder.validate.documents import check_dates, check_model
from builder.validate.frontier import check_frontiers
from builder.validate.generation import check_workload
from builder.validate.names import check_gpu_spellings, check_names
from builder.validate.physics import check_physics
from builder.validate.schema import check_schema_folder, check_schemas, check_schemas_fast
from builder.validate.tables import check_tables
from builder.validate.tree import Tree
from builder.validate.workloads import check_identity, check_shared_across, check_workload_list, group_by_workload


def check_published(tree: Tree, base_url: str, curated: dict[str, Any] | None) -> list[Problem]:
    """Every problem in a package under review: check_rules, then frictionless on the generated tables."""
    problems, tables = check_rules(tree, base_url, curated)
    return problems + (check_tables(tree.root, tables) if tables else [])


def check_rules(tree: Tree, base_url: str, curated: dict[str, Any] | None) -> tuple[list[Problem], list[dict]]:
    """Every check but frictionless's, and the generated tables it may check (`curated`: see check_package)."""
    problems = [*tree.problems, *check_files(tree), *check_schema_folder(tree.root)]
    schema_problems, passed = check_schemas(tree)
    problems += schema_problems
    problems += check_consistency(tree, {rel: tree.docs[rel] for rel in sorted(passed)}, base_url)
    descriptor_problems, tables = check_package(tree, {rel: tree.docs[rel] for rel in passed}, curated)
    return problems + descriptor_problems, tables


def check_built(tree: Tree, base_url: str) -> list[Problem]:
    """The build's check of what it just made: fastjsonschema first (jsonschema explains failures), every
    other rule, and no frictionless (its tables are generated from the same schemas)."""
    problems = [*tree.problems, *check_files(tree)]
    schema_problems, passed = check_schemas_fast(tree)
    problems += schema_problems
    return problems + check_consistency(tree, {rel: tree.docs[rel] for rel in sorted(passed)}, base_url)


def check_consistency(tree: Tree, ok: dict[str, Any], base_url: str) -> list[Problem]:
    """Per-document rules, physics and cross-file rules, on the documents that passed their schema."""
    problems: list[Problem] = []
    models = {tree.shown(rel): doc for rel, doc in ok.items() if (found := place(rel)) and found.slug}
    for path, doc in models.items():  # the model documents of every workload
        problems += check_names(path, doc)
    problems += check_gpu_spellings(models)
    for rel, doc in ok.items():
        if is_model(rel):
            problems += check_model(tree.shown(rel), rel, doc) + check_physics(tree.shown(rel), doc)
        elif place(rel).kind != "frontier":  # type: ignore[union-attr]  # a frontier has data_version alone
            problems += check_dates(tree.shown(rel), doc)
    groups = group_by_workload(tree, ok)
    for workload, (docs, slugs) in groups.items():
        if workload in GENERATION_WORKLOADS:  # text to image, text to video
            problems += check_workload(tree, workload, docs, slugs, base_url)
            continue
        problems += check_headers(tree, workload, docs)
        if index_rel(workload) in docs:
            problems += check_index(tree, workload, docs)
        if (model_list := docs.get(model_list_rel(workload))) is not None:
            problems += check_model_list(tree, workload, docs, slugs, base_url, model_list["version"])
    problems += check_shared_across(tree, groups) + check_identity(tree, groups)
    if WORKLOAD_LIST in ok:
        problems += check_workload_list(tree, ok, groups, base_url)
        if all(rel in ok for rel in tree.docs if is_model(rel)):
            problems += check_csv(tree, ok) + check_responses(tree)
    return problems + check_frontiers(tree, ok) + check_descriptor(tree)
