"""JSON Schema (draft 2020-12) checks of every document, $refs resolved offline by $id.

Each schema is resolved once into a self-contained schema and compiled once into a validator;
a document is checked with is_valid, and only a failing one has its errors collected. The build's
self-check runs the same schemas compiled by fastjsonschema first (benchmarks/README.md says why).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from builder.errors import InputError, Problem, shown
from builder.layout import SCHEMAS, schema_for
from builder.validate.tree import Refused, StrictJSONError, Tree, json_type, parse_json, read_file

__all__ = ["check_schemas", "check_schemas_fast", "fast_validator", "load_schemas", "schema_for", "validator"]


@cache
def load_schemas() -> dict[str, dict[str, Any]]:
    """Every schema of the package, by file name: regular files only, strict JSON objects (a release
    archive ships its schemas/ beside its data, so they are read as carefully as the data)."""
    found = {}
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        try:
            schema = parse_json(read_file(path))
        except (Refused, StrictJSONError) as exc:
            raise InputError(f"{path}: {exc}") from None
        if not isinstance(schema, dict):
            raise InputError(f"{path}: expected a JSON Schema object, found {json_type(schema)}")
        found[path.name] = schema
    return found


def resolved(schema: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """The schema with every $ref replaced by its target, looked up by $id in the registry (the one
    $ref resolver); a $ref that leads back into itself is refused with InputError."""

    def walk(node: Any, resolver: Any, inside: tuple[int, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, resolver, inside) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            found = resolver.lookup(node["$ref"])
            if id(found.contents) in inside:
                cycle = f"expected $refs that end, found a cycle through {shown(node['$ref'])}"
                raise InputError(f"{shown(schema['$id'])}: {cycle}")
            target = walk(found.contents, found.resolver, (*inside, id(found.contents)))
            rest = {k: walk(v, resolver, inside) for k, v in node.items() if k != "$ref"}
            return {"allOf": [target], **rest} if rest else target
        return {k: walk(v, resolver, inside) for k, v in node.items() if k != "$defs"}

    return walk(schema, registry.resolver(base_uri=schema["$id"]), ())


@cache
def validator(name: str) -> Draft202012Validator:
    """One compiled validator per schema, built once per process, format checking on."""
    schemas = load_schemas()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return Draft202012Validator(resolved(schemas[name], registry), format_checker=Draft202012Validator.FORMAT_CHECKER)


def pointer(parts: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def describe(error: ValidationError) -> str:
    """A schema error as 'expected ..., found ...'."""
    found = shown(error.instance, 60)
    kind, rule = error.validator, error.validator_value
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"expected required property {missing!r}, found it missing"
    if kind in ("additionalProperties", "unevaluatedProperties"):
        extra = ", ".join(repr(name) for name in re.findall(r"'([^']*)'", error.message))
        return f"expected no properties beyond the schema's, found {extra}"
    if kind == "format":
        return f"expected format {rule}, found {found}"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[kind]
        return f"expected a value {sign} {rule}, found {found}"
    return f"expected {kind} {shown(rule, 10_000)}, found {found}"


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
            errors = sorted(check.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
        except Exception as exc:  # a broken schema file: jsonschema and referencing raise their own exceptions
            broken.add(name)
            found = f"{type(exc).__name__}: {shown(str(exc), 160)}"
            problems.append(Problem(f"{SCHEMAS}/{name}", "/", f"expected a usable JSON Schema, found {found}"))
            continue
        problems += [Problem(tree.shown(rel), pointer(e.absolute_path), describe(e)) for e in errors]
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
