"""JSON Schema (draft 2020-12) checks of every document by jsonschema, with validators compiled once; the
build's self-check runs fastjsonschema first (benchmarks/README.md says why)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from builder.errors import Problem, pointer, shown
from builder.files import Refused, read_file
from builder.jsonschemas import load_schemas, read_schemas, schema_problems, schemas_folder, validator
from builder.layout import SCHEMAS, schema_for
from builder.strictjson import StrictJSONError, parse_json
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
    are checked against those): one problem a file, at the first differing pointer."""
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
            where = first_difference(own[name], parse_json(read_file(root / SCHEMAS / name)))
        except (Refused, StrictJSONError) as exc:
            problems.append(Problem(shown_as, "/", f"expected the builder's own schema, found a file not read ({exc})"))
            continue
        if where is not None:
            problems.append(Problem(shown_as, pointer(where), "expected the builder's own schema, found another"))
    return problems


def first_difference(own: Any, theirs: Any, at: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The first place (keys and indexes, in sorted key order) where two JSON values differ, else None."""
    if type(own) is not type(theirs):
        return at
    if isinstance(own, dict):
        for key in sorted(own.keys() | theirs.keys()):
            if key not in own or key not in theirs:
                return (*at, key)
            found = first_difference(own[key], theirs[key], (*at, key))
            if found is not None:
                return found
        return None
    if isinstance(own, list):
        for i, (a, b) in enumerate(zip(own, theirs, strict=False)):
            found = first_difference(a, b, (*at, i))
            if found is not None:
                return found
        return None if len(own) == len(theirs) else (*at, min(len(own), len(theirs)))
    return None if own == theirs else at


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
