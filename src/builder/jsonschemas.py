"""The package's JSON Schemas (draft 2020-12): loaded strictly, $refs resolved offline by $id, compiled once."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from builder.errors import InputError, shown
from builder.files import Refused, read_file
from builder.layout import SCHEMAS
from builder.strictjson import StrictJSONError, json_type, parse_json


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


class UnresolvedRef(InputError):
    """A $ref whose target is not in the registry."""


MAX_RESOLVED_NODES = 100_000  # keys, items and values of one schema with its $refs replaced; today's largest: 640


def resolved(schema: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """The schema with every $ref replaced by its target, looked up by $id in the registry (the one
    $ref resolver). InputError for a $ref that leads nowhere or back into itself, or that expands the
    schema past MAX_RESOLVED_NODES (a definition referred to twice by one referred to twice, and so on)."""
    name = shown(schema["$id"])
    budget = [MAX_RESOLVED_NODES]

    def walk(node: Any, resolver: Any, inside: tuple[int, ...]) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise InputError(f"{name}: expected $refs that expand to at most {MAX_RESOLVED_NODES:,} nodes, found more")
        if isinstance(node, list):
            return [walk(item, resolver, inside) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            found = _lookup(resolver, node["$ref"], name)
            if id(found.contents) in inside:
                raise InputError(f"{name}: expected $refs that end, found a cycle through {shown(node['$ref'])}")
            target = walk(found.contents, found.resolver, (*inside, id(found.contents)))
            rest = {k: walk(v, resolver, inside) for k, v in node.items() if k != "$ref"}
            return {"allOf": [target], **rest} if rest else target
        return {k: walk(v, resolver, inside) for k, v in node.items() if k != "$defs"}

    try:
        return walk(schema, registry.resolver(base_uri=schema["$id"]), ())
    except RecursionError:
        raise InputError(f"{name}: expected a schema nested a few hundred levels at most, found deeper") from None


def _lookup(resolver: Any, ref: Any, name: str) -> Any:
    """The target of one $ref, or InputError naming it."""
    try:
        return resolver.lookup(ref)
    except (Unresolvable, TypeError) as exc:
        kind = type(exc).__name__
        raise UnresolvedRef(f"{name}: expected every $ref to resolve, found {shown(ref)} ({kind})") from None


@cache
def validator(name: str) -> Draft202012Validator:
    """One compiled validator per schema, built once per process, format checking on."""
    schemas = load_schemas()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return Draft202012Validator(resolved(schemas[name], registry), format_checker=Draft202012Validator.FORMAT_CHECKER)


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
