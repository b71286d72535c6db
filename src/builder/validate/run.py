"""All checks of a package, in order: parse, files, schemas, documents, physics, cross-file, tables."""

from typing import Any

from builder.errors import Problem
from builder.layout import WORKLOAD_LIST, is_model, place
from builder.validate import crossfile
from builder.validate.descriptor import check_package, check_tables
from builder.validate.documents import check_dates, check_gpu_spellings, check_model, check_names, check_physics
from builder.validate.schema import check_schema_folder, check_schemas
from builder.validate.tree import Tree


def check_published(tree: Tree, base_url: str, curated: dict[str, Any] | None) -> list[Problem]:
    """Every problem in a package under review: every rule, then frictionless on the generated tables."""
    problems, ok = check_consistency(tree, base_url)
    descriptor_problems, tables = check_package(tree, ok, curated)  # `curated`: see check_package
    return problems + descriptor_problems + (check_tables(tree.root, tables) if tables else [])


def check_built(tree: Tree, base_url: str) -> list[Problem]:
    """The build's check of what it just made: every rule but the descriptor's (it derives it) and frictionless's."""
    return check_consistency(tree, base_url, fast=True)[0]


def check_consistency(tree: Tree, base_url: str, fast: bool = False) -> tuple[list[Problem], dict[str, Any]]:
    """Files and schemas, then per-document, physics and cross-file rules on the documents that passed their schema."""
    schema_problems, passed = check_schemas(tree, fast)
    ok = {rel: tree.docs[rel] for rel in sorted(passed)}
    problems = [*tree.problems, *crossfile.check_files(tree), *check_schema_folder(tree.root), *schema_problems]
    models = {rel: doc for rel, doc in ok.items() if crossfile.is_any_model(rel)}  # of every workload
    problems += check_gpu_spellings({tree.shown(rel): doc for rel, doc in models.items()})
    for rel, doc in ok.items():
        if rel in models:
            problems += check_names(tree.shown(rel), doc) + check_model(tree.shown(rel), rel, doc)
            problems += check_physics(tree.shown(rel), doc)
        elif (found := place(rel)) and found.kind == "frontier":  # data_version alone: no dates to check
            problems += crossfile.check_frontier(tree, found.workload, doc, ok)  # type: ignore[arg-type]
        else:
            problems += check_dates(tree.shown(rel), doc)
    groups = crossfile.group_by_workload(tree, ok)
    for workload in groups:
        problems += crossfile.check_workload(tree, workload, groups, base_url)
    problems += crossfile.check_identity(tree, groups)
    if WORKLOAD_LIST in ok:
        problems += crossfile.check_workload_list(tree, ok, groups, base_url)
        if all(rel in ok for rel in tree.docs if is_model(rel)):
            problems += crossfile.check_root_csv(tree, ok)
    return problems, ok
