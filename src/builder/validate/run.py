"""All checks of a package, in order: parse, files, JSON Schemas, documents, physics, cross-file,
tables."""

from typing import Any

from builder.errors import Problem, Said, shown
from builder.files import too_large
from builder.jsonschemas import (
    RefError,
    fast_validator,
    schema_problems,
    validator,
)
from builder.layout import MAX_FILE_BYTES, SCHEMAS, WORKLOAD_LIST, is_model, schema_for
from builder.validate import crossfile, frontiers, workloads
from builder.validate.csvrows import check_root_csv, energies_by_workload, read_root_csv
from builder.validate.descriptor import check_package, check_tables
from builder.validate.documents import (
    check_dates,
    check_gpu_spellings,
    check_model,
    check_names,
    check_physics,
)
from builder.validate.lengths import check_output_lengths
from builder.validate.responses import check_parameters
from builder.validate.tree import Tree

FRONTIER_KINDS = ("frontier", "generation-frontier")


def check_published(tree: Tree, base_url: str, curated: dict[str, Any] | None) -> list[Problem]:
    """Every problem in a package under review: every rule, then frictionless on the descriptor,
    files and tables."""
    problems, ok = check_consistency(tree, base_url)
    descriptor_problems, package = check_package(tree, ok, curated)  # `curated`: see check_package
    return problems + descriptor_problems + (check_tables(tree, package) if package else [])


def check_built(tree: Tree, base_url: str) -> list[Problem]:
    """The build's check of what it just made: every rule but frictionless's and those whose two
    sides the build makes by the same code from the same documents (the descriptor's, and the flat
    tables' line by line, whose energies read back as written), and every file within the size
    validate reads."""
    big = [
        Problem.of(tree.shown(rel), "/", "tree.too-large", too_large(len(raw)))
        for rel, raw in tree.raw.items()
        if len(raw) > MAX_FILE_BYTES
    ]
    return big + check_consistency(tree, base_url, csv_lines=False)[0]


def check_consistency(
    tree: Tree, base_url: str, *, csv_lines: bool = True
) -> tuple[list[Problem], dict[str, Any]]:
    """Files and schemas, then per-document, physics and cross-file rules on the documents that
    passed their schema; the flat tables line by line against the documents unless `csv_lines`
    is False."""
    schema_problems, passed = check_schemas(tree)
    ok = {rel: tree.docs[rel] for rel in sorted(passed)}
    problems = [
        *tree.problems,
        *crossfile.check_files(tree),
        *schema_problems,
    ]
    places = tree.places
    # of every workload
    models = {rel: doc for rel, doc in ok.items() if rel in places and places[rel].slug}
    problems += check_gpu_spellings({tree.shown(rel): doc for rel, doc in models.items()})
    # the root CSV, read once: its energies per response (what its own rules and an LLM
    # frontier's compare with) and the rows that break upstream's relation
    root_csv = read_root_csv(tree)
    responses = energies_by_workload(root_csv.stated)
    for rel, doc in ok.items():
        found, workload = places.get(rel), ""
        if found is not None:
            workload = found.workload or ""
        if rel in models:
            problems += check_names(tree.shown(rel), doc) + check_model(tree.shown(rel), rel, doc)
            problems += check_physics(tree.shown(rel), doc) + check_parameters(tree.shown(rel), doc)
        # data_version alone: no dates to check
        elif found and found.kind in FRONTIER_KINDS:
            own = responses.get(workload, {})
            problems += frontiers.check_frontier(tree, workload, doc, ok, own)
        elif found and found.kind == "output-lengths":
            problems += check_output_lengths(tree, workload, doc, ok)
        else:
            problems += check_dates(tree.shown(rel), doc)
    groups = crossfile.group_by_workload(tree, ok)
    for workload in groups:
        problems += crossfile.check_workload(tree, workload, groups, base_url, csv_lines=csv_lines)
    problems += crossfile.check_identity(tree, groups)
    if WORKLOAD_LIST in ok:
        problems += workloads.check_workload_list(tree, ok, groups, base_url)
        problems += workloads.check_units(tree, ok, base_url)
        if all(rel in ok for rel in tree.docs if is_model(rel)):
            problems += check_root_csv(tree, ok, root_csv.stated, csv_lines=csv_lines)
    # upstream's relations (builder.relations) on what only the CSV holds
    problems += root_csv.faults
    return problems, ok


def check_schemas(tree: Tree) -> tuple[list[Problem], set[str]]:
    """Problems, and the documents that passed (only those go on): jsonschema-rs first,
    jsonschema to explain."""
    problems: list[Problem] = []
    passed: set[str] = set()
    broken: set[str] = set()
    for rel, doc in tree.docs.items():
        name = schema_for(rel)
        if doc is None or name is None or name in broken:
            continue
        try:
            fast = fast_validator(name)
            if fast is not None and fast(doc):
                passed.add(rel)
                continue
            # none: jsonschema has the last word
            found = schema_problems(validator(name), doc, tree.shown(rel))
            problems += found
            if not found:
                passed.add(rel)
        # a broken schema file: jsonschema, jsonschema-rs and re raise their own exceptions
        except Exception as exc:
            broken.add(name)
            found_as = Said("a usable JSON Schema", f"{type(exc).__name__}: {shown(str(exc), 160)}")
            said = exc.fault if isinstance(exc, RefError) else found_as
            problems.append(Problem.of(f"{SCHEMAS}/{name}", "/", "schema.unusable", said))
    return problems, passed
