"""JSON Schema (draft 2020-12) checks of every document, $refs resolved offline by $id."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from builder.errors import Problem
from builder.validate.tree import INDEX, MODEL_LIST, MODELS_DIR, Tree

SCHEMAS = Path("schemas")
BASE = "https://leadgreen.ai/schemas/v1/"
SCHEMA_FOR = {INDEX: "index.schema.json", MODEL_LIST: "model-list.schema.json"}
MODEL_SCHEMA = "model.schema.json"


def schema_for(rel: str) -> str | None:
    if rel in SCHEMA_FOR:
        return SCHEMA_FOR[rel]
    if rel.startswith(f"{MODELS_DIR}/") and rel.count("/") == 1 and rel.endswith(".json"):
        return MODEL_SCHEMA
    return None


@cache
def load_schemas(folder: Path = SCHEMAS) -> dict[str, dict[str, Any]]:
    """Every schema in the folder, by file name."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.schema.json"))}


@cache
def validator(name: str, folder: Path = SCHEMAS) -> Draft202012Validator:
    """One compiled validator per schema, built once per process, format checking on."""
    schemas = load_schemas(folder)
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return Draft202012Validator(schemas[name], registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def pointer(parts: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def describe(error: ValidationError) -> str:
    """A schema error as 'expected ..., found ...'."""
    found = json.dumps(error.instance, ensure_ascii=False)
    found = found if len(found) <= 60 else found[:57] + "..."
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
    return f"expected {kind} {json.dumps(rule, ensure_ascii=False)}, found {found}"


def check_schemas(tree: Tree, folder: Path = SCHEMAS) -> tuple[list[Problem], set[str]]:
    """Problems, and the documents that passed (only those go on to the cross-file checks)."""
    problems: list[Problem] = []
    passed: set[str] = set()
    for rel, doc in tree.docs.items():
        name = schema_for(rel)
        if name is None or doc is None:
            continue
        errors = sorted(validator(name, folder).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
        problems += [Problem(tree.shown(rel), pointer(e.absolute_path), describe(e)) for e in errors]
        if not errors:
            passed.add(rel)
    return problems, passed
