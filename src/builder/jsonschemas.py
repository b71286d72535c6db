"""The package's JSON Schemas (draft 2020-12): loaded strictly, $refs resolved offline by $id, compiled once."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from builder.errors import InputError, Problem, pointer, shown
from builder.files import Refused, read_file
from builder.layout import METADATA, SCHEMAS
from builder.strictjson import StrictJSONError, json_type, parse_json

OWN_SCHEMAS = Path(__file__).resolve().parents[2] / SCHEMAS  # beside src/ in the builder's own checkout


def schemas_folder() -> Path:
    """The schemas documents are checked against: a repository's curated schemas/ (beside metadata.toml);
    in an unpacked release archive the builder's own, which a loosened copy in the archive cannot replace
    (the archive's only when the builder is installed without its schemas)."""
    return SCHEMAS if METADATA.is_file() or not OWN_SCHEMAS.is_dir() else OWN_SCHEMAS


@cache
def load_schemas() -> dict[str, dict[str, Any]]:
    """Every schema of schemas_folder(), by file name: regular files only, strict JSON objects (a release
    archive ships its schemas/ beside its data, so they are read as carefully as the data)."""
    return read_schemas(schemas_folder())


def read_schemas(folder: Path) -> dict[str, dict[str, Any]]:
    """Every *.schema.json of a folder, by file name, read strictly; InputError on the first unusable one."""
    found = {}
    for path in sorted(folder.glob("*.schema.json")):
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


# An integer is an int, never a float such as 2.0, which would reach ids and file names as "2.0".
_TYPES = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, v: type(v) is int)
_Validator = validators.extend(Draft202012Validator, type_checker=_TYPES)


def compiled(schema: dict[str, Any]) -> Any:
    """The one validator factory: draft 2020-12, format checking on, 2.0 no integer."""
    return _Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


@cache
def validator(name: str) -> Any:
    """One compiled validator per published schema, built once per process."""
    schemas = load_schemas()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return compiled(resolved(schemas[name], registry))


def schema_problems(
    check: Any, value: Any, path: str, expected: Callable[[ValidationError], str] | None = None
) -> list[Problem]:
    """Every way `value` breaks `check`'s schema, one Problem each (repeats once), in document order;
    `expected` words each error (describe when None)."""
    errors = sorted(check.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    word = expected or describe
    return list(dict.fromkeys(Problem(path, pointer(e.absolute_path), word(e)) for e in errors))


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
