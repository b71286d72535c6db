"""JSON Schema (draft 2020-12) checks of every document, $refs resolved offline by $id.

Each schema's $refs are resolved once, through a `referencing` registry of our own schemas
keyed by $id, into a self-contained schema that jsonschema then applies, instead of resolving
them again for every document. Large trees are checked on all cores.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from builder.errors import InputError, Problem, shown
from builder.layout import SCHEMAS, schema_for
from builder.validate.tree import Refused, StrictJSONError, Tree, json_type, parse_json, read_file

__all__ = ["check_schemas", "check_schemas_fast", "fast_validator", "load_schemas", "schema_for", "validator"]

PARALLEL_FROM = 200  # documents; below this, starting workers costs more than it saves


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


_SHARED: list[tuple[str, str, str, Any]] = []  # (shown path, rel, schema name, doc), inherited by forked workers


def _check_slice(bounds: tuple[int, int]) -> tuple[list[Problem], list[str]]:
    start, stop = bounds
    problems: list[Problem] = []
    passed: list[str] = []
    broken: set[str] = set()
    for where, rel, name, doc in _SHARED[start:stop]:
        try:
            errors = sorted(validator(name).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
        except Exception as exc:  # a broken schema file: jsonschema and referencing raise their own exceptions
            if name not in broken:
                broken.add(name)
                found = f"{type(exc).__name__}: {shown(str(exc), 160)}"
                problems.append(Problem(f"{SCHEMAS}/{name}", "/", f"expected a usable JSON Schema, found {found}"))
            continue
        problems += [Problem(where, pointer(e.absolute_path), describe(e)) for e in errors]
        if not errors:
            passed.append(rel)
    return problems, passed


def check_schemas(tree: Tree) -> tuple[list[Problem], set[str]]:
    """Problems, and the documents that passed (only those go on to the cross-file checks)."""
    global _SHARED
    _SHARED = [
        (tree.shown(rel), rel, name, doc)
        for rel, doc in tree.docs.items()
        if doc is not None and (name := schema_for(rel)) is not None
    ]
    workers = min(os.cpu_count() or 1, 4)
    try:
        if len(_SHARED) < PARALLEL_FROM or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            problems, passed = _check_slice((0, len(_SHARED)))
            return problems, set(passed)
        for name in {n for _, _, n, _ in _SHARED}:
            validator(name)  # compile once, before forking, so workers inherit it
        step = -(-len(_SHARED) // workers)
        slices = [(i, min(i + step, len(_SHARED))) for i in range(0, len(_SHARED), step)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_check_slice, slices))
        return [p for r in results for p in r[0]], {rel for r in results for rel in r[1]}
    finally:
        _SHARED = []


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
