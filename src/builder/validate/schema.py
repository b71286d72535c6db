"""JSON Schema (draft 2020-12) checks of every document by jsonschema, with validators compiled once; the
build's self-check runs fastjsonschema first (benchmarks/README.md says why)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from builder.errors import Problem, shown
from builder.files import Refused, read_file
from builder.jsonschemas import load_schemas, read_schemas, schema_problems, schemas_folder, validator
from builder.layout import SCHEMAS, schema_for
from builder.strictjson import StrictJSONError, parse_json
from builder.validate.descriptor import compare
from builder.validate.tree import Tree

__all__ = ["check_schema_folder", "check_schemas", "check_schemas_fast", "fast_validator", "load_schemas", "validator"]


def check_schemas(tree: Tree) -> tuple[list[Problem], set[str]]:
    """Problems, and the documents that passed (only those go on to the cross-file checks)."""
    problems: list[Problem] = []
    passed: set[str] = set()
    broken: set[str] = set()
    for rel, doc in tree.docs.items():
        name = schema_for(rel)
        if doc is None or name is None or name in broken:
            continue
        try:
            check = validator(name)
            if check.is_valid(doc):
                passed.add(rel)
                continue
            errors = schema_problems(check, doc, tree.shown(rel))
        except Exception as exc:  # a broken schema file: jsonschema and referencing raise their own exceptions
            broken.add(name)
            found = f"{type(exc).__name__}: {shown(str(exc), 160)}"
            problems.append(Problem(f"{SCHEMAS}/{name}", "/", f"expected a usable JSON Schema, found {found}"))
            continue
        problems += errors
    return problems, passed


def check_schema_folder(root: Path) -> list[Problem]:
    """In a release archive, each file of its schemas/ that differs from the builder's own (the documents
    are checked against those)."""
    own_folder = schemas_folder()
    if own_folder == SCHEMAS:  # a repository: its schemas/ are the curated ones
        return []
    own = read_schemas(own_folder)
    theirs = {path.name for path in (root / SCHEMAS).glob("*.schema.json")}
    problems = []
    for name in sorted(own.keys() | theirs):
        shown_as = f"{SCHEMAS}/{name}"
        if name not in theirs or name not in own:
            found = "none" if name not in theirs else "one the builder does not have"
            problems.append(Problem(shown_as, "/", f"expected the builder's own schema, found {found}"))
            continue
        try:
            differences = compare(own[name], parse_json(read_file(root / SCHEMAS / name)))
        except (Refused, StrictJSONError) as exc:
            problems.append(Problem(shown_as, "/", f"expected the builder's own schema, found a file not read ({exc})"))
            continue
        if differences:  # one problem a file, at the first difference
            problems.append(Problem(shown_as, differences[0][0], "expected the builder's own schema, found another"))
    return problems


@cache
def fast_validator(name: str) -> Any:
    """The same resolved schema compiled by fastjsonschema as draft 7 (our keywords mean the same there),
    with jsonschema's format functions: much faster, first error only."""
    import datetime as dt

    import fastjsonschema

    def is_date(value: str) -> bool:
        try:
            return len(value) == 10 and bool(dt.date.fromisoformat(value))
        except ValueError:
            return False

    schema = {**validator(name).schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    is_uri = Draft202012Validator.FORMAT_CHECKER.checkers["uri"][0]
    return fastjsonschema.compile(schema, formats={"date": is_date, "uri": is_uri})


def check_schemas_fast(tree: Tree) -> tuple[list[Problem], set[str]]:
    """check_schemas for the build's own output: fastjsonschema first, jsonschema's messages for any failure."""
    from fastjsonschema import JsonSchemaException

    failed = Tree(root=tree.root, data_dir=tree.data_dir)
    passed: set[str] = set()
    for rel, doc in tree.docs.items():
        name = schema_for(rel)
        if name is None or doc is None:
            continue
        try:
            fast_validator(name)(doc)
            passed.add(rel)
        except JsonSchemaException:
            failed.docs[rel] = doc
    problems, also = check_schemas(failed)
    return problems, passed | also
