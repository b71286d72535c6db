"""JSON Schema (draft 2020-12) checks of every document, $refs resolved offline by $id.

Each schema is resolved once into a self-contained schema and compiled once into a validator;
a document is checked with is_valid, and only a failing one has its errors collected. The build's
self-check runs the same schemas compiled by fastjsonschema first (benchmarks/README.md says why).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from builder.errors import Problem, pointer, shown
from builder.jsonschemas import describe, load_schemas, schema_problems, validator
from builder.layout import SCHEMAS, schema_for
from builder.validate.tree import Tree

__all__ = ["check_schemas", "check_schemas_fast", "describe", "fast_validator", "load_schemas", "pointer", "schema_for"]
__all__ += ["validator"]


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


@cache
def fast_validator(name: str) -> Any:
    """The same resolved schema compiled to Python by fastjsonschema: much faster, first error only.

    The keywords our schemas use mean the same in draft 7, which fastjsonschema implements;
    formats are checked by the same functions jsonschema uses.
    """
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
