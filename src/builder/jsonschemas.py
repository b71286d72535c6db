"""The JSON Schemas (draft 2020-12), published and input ones: loaded strictly, $refs resolved
offline, compiled."""

import operator
import re
from collections.abc import Iterable, Mapping
from functools import cache, reduce
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urljoin

from builder.errors import InputError, Problem, ProblemsError, Said, pointer, shown
from builder.fastschema import Check, compile_fast
from builder.files import Refused, read_file
from builder.layout import (
    INPUT_SCHEMAS_DIR,
    METADATA,
    PUBLISHED_SCHEMAS,
    SCHEMA_DIALECT,
    SCHEMAS,
    schema_id,
)
from builder.strictjson import StrictJSONError, json_type, parse_json

if TYPE_CHECKING:  # jsonschema is imported where a document fails: to explain it
    from jsonschema.exceptions import ValidationError

# beside src/ in the builder's own checkout
OWN_SCHEMAS = Path(__file__).resolve().parents[2] / SCHEMAS
# The input files' (never published): the builder's own, wherever the command runs (a folder of two
# data trees to diff has none); schemas/inputs/ of the current folder where the builder is installed
# apart.
INPUT_SCHEMAS = OWN_SCHEMAS / "inputs" if (OWN_SCHEMAS / "inputs").is_dir() else SCHEMAS / "inputs"
METADATA_SCHEMA, LOCK_SCHEMA, TASK_SCHEMA = (
    "metadata.schema.json",
    "lock.schema.json",
    "upstream-task.schema.json",
)
GENERATION_TASK_SCHEMA, GENERATION_WORKLOAD_SCHEMA = (
    "generation-task.schema.json",
    "generation-workload.schema.json",
)
# a document of a data folder or ref that `builder diff` compares
DIFF_SCHEMA = "diff-document.schema.json"


def schemas_folder() -> Path:
    """A repository's schemas/; in a release archive the builder's own (so a loosened copy cannot
    replace them)."""
    return SCHEMAS if METADATA.is_file() or not OWN_SCHEMAS.is_dir() else OWN_SCHEMAS


@cache
def load_schemas() -> dict[str, dict[str, Any]]:
    """The package's schemas in schemas_folder(), by file name, read as carefully as the data."""
    return read_schemas(schemas_folder())


def read_schemas(folder: Path) -> dict[str, dict[str, Any]]:
    """The package's schemas in a folder (the published ones, or the inputs'), by file name, read
    strictly; InputError on the first unusable one or one that is not the project's."""
    inputs = folder.name == INPUT_SCHEMAS_DIR
    found = {}
    for path in sorted(folder.glob("*.schema.json")):
        if not inputs and path.name not in PUBLISHED_SCHEMAS:
            continue  # a stray file: validate refuses it, nothing reads it
        try:
            schema = parse_json(read_file(path))
        except (Refused, StrictJSONError) as exc:
            raise InputError(f"{path}: {exc}") from None
        if not isinstance(schema, dict):
            raise InputError(f"{path}: expected a JSON Schema object, found {json_type(schema)}")
        rel = f"{INPUT_SCHEMAS_DIR}/{path.name}" if inputs else path.name
        if problems := identity_problems(str(path), rel, schema):
            raise InputError(str(problems[0]))
        found[path.name] = schema
    return found


def identity_problems(shown_as: str, rel: str, schema: dict[str, Any]) -> list[Problem]:
    """How a schema at `rel` inside schemas/ fails to be the project's: its $schema (draft
    2020-12) and its $id (layout.schema_id)."""
    return [
        Problem.mismatch(
            shown_as,
            f"/{key}",
            "schema.identity",
            shown(want),
            shown(schema[key]) if key in schema else "none",
        )
        for key, want in (("$schema", SCHEMA_DIALECT), ("$id", schema_id(rel)))
        if schema.get(key) != want
    ]


class RefError(InputError):
    """A schema whose $refs lead nowhere, loop or expand too far; `fault` says which, without the
    schema's $id."""

    def __init__(self, schema_id: str, fault: Said) -> None:
        super().__init__(f"{schema_id}: {fault}")
        self.fault = fault


class UnresolvedRef(RefError):
    """A $ref whose target is not in the registry."""


MAX_RESOLVED_NODES = (
    100_000  # keys, items and values of one schema with its $refs replaced; today's largest: 640
)


# The schemas by their $id: where a $ref is looked up (nothing is fetched)
Registry = Mapping[str, Any]
# an array index in a JSON Pointer
_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)


def registry(schemas: Iterable[dict[str, Any]]) -> Registry:
    """The schemas by their $id: where `resolved` looks a $ref up."""
    return {schema["$id"]: schema for schema in schemas}


def lookup(registry: Registry, base: str, ref: Any) -> tuple[Any, str]:
    """The node a $ref names from inside the schema whose $id is `base`, and the $id of the schema
    it is in: a schema of the registry (its $id relative to `base`), then a JSON Pointer into it.
    LookupError for anything else: a schema not in the registry, a pointer to nothing or to no
    schema (a number, a string, an array), an anchor (the project's schemas use none), a pointer
    through an $id below a root (its $refs would take that $id as their base). The fragment is
    percent-decoded before it is split, as jsonschema does: %2F is a slash between tokens; an index
    is 0 or ASCII digits without a leading zero."""
    if not isinstance(ref, str):
        raise LookupError(ref)
    try:
        target = base + ref if ref.startswith("#") else urljoin(base, ref)
        uri, _, fragment = target.partition("#")
        node = registry[uri]
        if fragment and not fragment.startswith("/"):
            raise LookupError(ref)
        for token in unquote(fragment).split("/")[1:]:
            key = token.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) and _INDEX.fullmatch(key) else node[key]
            if isinstance(node, dict) and isinstance(node.get("$id"), str):
                raise LookupError(ref)
    except (ValueError, TypeError, IndexError) as exc:  # a bad URI, index or place
        raise LookupError(ref) from exc
    if not isinstance(node, (dict, bool)):
        raise LookupError(ref)  # no schema: a schema is an object or a boolean
    return node, uri


def resolved(schema: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """The schema with every $ref replaced by its target in the registry; RefError for a bad,
    cyclic or huge $ref. Each $ref's target is resolved once: every $ref to it shares that copy
    (read only), and counts its nodes against the budget again."""
    name = shown(schema["$id"])
    budget = [MAX_RESOLVED_NODES]
    too_many = Said(f"$refs that expand to at most {MAX_RESOLVED_NODES:,} nodes", "more")
    # by id of a $ref's target: its resolved copy and the nodes that took
    done: dict[int, tuple[Any, int]] = {}

    def walk(node: Any, base: str, inside: tuple[int, ...]) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise RefError(name, too_many)
        if isinstance(node, list):
            return [walk(item, base, inside) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            try:
                found, at = lookup(registry, base, node["$ref"])
            except LookupError:
                said = Said("every $ref to resolve", shown(node["$ref"]))
                raise UnresolvedRef(name, said) from None
            target = expanded(found, at, node["$ref"], inside)
            rest = {k: walk(v, base, inside) for k, v in node.items() if k != "$ref"}
            return {"allOf": [target], **rest} if rest else target
        return {k: walk(v, base, inside) for k, v in node.items() if k != "$defs"}

    def expanded(found: Any, at: str, ref: str, inside: tuple[int, ...]) -> Any:
        # a target that resolved once has no cycle below it, wherever it is met again
        key = id(found)
        if key in done:
            target, nodes = done[key]
            budget[0] -= nodes
            if budget[0] < 0:
                raise RefError(name, too_many)
            return target
        if key in inside:
            raise RefError(name, Said("$refs that end", f"a cycle through {shown(ref)}"))
        before = budget[0]
        target = walk(found, at, (*inside, key))
        done[key] = (target, before - budget[0])
        return target

    try:
        flat: dict[str, Any] = walk(schema, schema["$id"], ())
        return flat
    except RecursionError:
        raise RefError(
            name, Said("a schema nested a few hundred levels at most", "deeper")
        ) from None


@cache
def _explaining() -> Any:
    """jsonschema's draft 2020-12 validator class, with 2.0 no integer: an int, never a float,
    which would reach ids and file names as "2.0"."""
    from jsonschema import Draft202012Validator, validators

    integers = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, v: type(v) is int)
    return validators.extend(Draft202012Validator, type_checker=integers)  # type: ignore[no-untyped-call]


def compiled(schema: dict[str, Any]) -> Any:
    """The one explaining validator factory (jsonschema): draft 2020-12, format checking on, 2.0
    no integer."""
    validator_class = _explaining()
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


@cache
def published(name: str) -> dict[str, Any]:
    """The published schema `name`, its $refs looked up among the others, resolved once per
    process."""
    return resolved(load_schemas()[name], registry(load_schemas().values()))


@cache
def validator(name: str) -> Any:
    """jsonschema's validator of the published schema `name`, built once per process."""
    return compiled(published(name))


@cache
def fast_validator(name: str) -> Check | None:
    """The published schema `name` compiled once by jsonschema-rs (None: jsonschema alone judges
    it)."""
    return compile_fast(published(name))


@cache
def input_schemas() -> dict[str, dict[str, Any]]:
    """The input files' schemas by file name, read once per process, each with an $id (a URN of
    its name where it has none)."""
    return {
        key: {**value, "$id": value.get("$id", f"urn:leadgreen-input:{key}")}
        for key, value in read_schemas(INPUT_SCHEMAS).items()
    }


@cache
def input_schema(name: str, part: tuple[str, ...] = ()) -> dict[str, Any]:
    """The input schema `name` (or its subschema at `part`), $refs resolved among the inputs'."""
    schemas = input_schemas()
    schema = schemas[name]
    root = reduce(operator.getitem, part, schema)
    # its $refs end, resolve and stay small, or one line says which: jsonschema itself would recurse
    try:
        return resolved({**root, "$id": schema["$id"]}, registry(schemas.values()))
    except InputError as exc:
        raise InputError(f"{INPUT_SCHEMAS / name}: {exc}") from None


@cache
def input_validator(name: str, part: tuple[str, ...] = ()) -> Any:
    """jsonschema's validator of an input schema (or of its subschema at `part`)."""
    return compiled(input_schema(name, part))


@cache
def fast_input_validator(name: str, part: tuple[str, ...] = ()) -> Check | None:
    """input_schema compiled once by jsonschema-rs (None: jsonschema alone judges it)."""
    try:
        return compile_fast(input_schema(name, part))
    except re.error as exc:
        raise InputError(
            f"{INPUT_SCHEMAS / name}: expected a usable JSON Schema, found error: {exc}"
        ) from None


def input_problems(name: str, value: Any, path: str, part: tuple[str, ...] = ()) -> list[Problem]:
    """Every way `value` breaks the input schema `name` (or its subschema at `part`), one Problem
    each: the fast
    engine's verdict first, jsonschema's words (and last word) for a value it refuses."""
    if (fast := fast_input_validator(name, part)) is not None and fast(value):  # the common case
        return []
    return schema_problems(input_validator(name, part), value, path, said=True)


def refuse(where: str, problems: list[Problem], of: str) -> None:
    """Raise one problem as an InputError, several as a ProblemsError (`of`: what they are in);
    none, nothing."""
    if len(problems) == 1:
        raise InputError(str(problems[0]), problems[0])
    if problems:
        raise ProblemsError(
            f"{where}: {len(problems)} problems in {of}; nothing was written", problems
        )


def schema_problems(check: Any, value: Any, path: str, said: bool = False) -> list[Problem]:
    """Every way `value` breaks `check`'s schema, one Problem each, in document order, worded by
    explain."""
    errors = sorted(check.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    # one a place and message, though several keywords say it
    found: dict[tuple[str, str], Problem] = {}
    for error in errors:
        problem = schema_problem(path, error, said)
        found.setdefault((problem.where, problem.message), problem)
    return list(found.values())


def schema_problem(path: str, error: "ValidationError", said: bool = False) -> Problem:
    """A schema error as a Problem coded `schema.<keyword>`, its expected and found from explain."""
    expected, found = explain(error, said)
    return Problem.mismatch(
        path, pointer(error.absolute_path), f"schema.{error.validator}", expected, found
    )


def describe(error: "ValidationError", said: bool = False) -> str:
    """A schema error as 'expected ..., found ...'."""
    expected, found = explain(error, said)
    return f"expected {expected}, found {found}"


def explain(error: "ValidationError", said: bool = False) -> tuple[str, str]:
    """What a schema error expected (from its keyword's value) and found (the instance, shown); with
    `said`, a field's description says what it expects."""
    found = shown(error.instance, 60)
    kind, rule = error.validator, error.validator_value
    description = (
        error.schema.get("description") if said and isinstance(error.schema, dict) else None
    )
    if description is not None and kind not in ("required", "additionalProperties"):
        return description, found
    instance, schema = cast(dict[str, Any], error.instance), cast(dict[str, Any], error.schema)
    if kind == "required":  # every property missing at once: one problem, however many errors
        missing = [name for name in cast(list[str], rule) if name not in instance]
        names = ", ".join(repr(name) for name in missing)
        if len(missing) == 1:
            return f"required property {names}", "it missing"
        return f"required properties {names}", "them missing"
    if kind == "additionalProperties":  # the keys neither named nor matched, as jsonschema finds
        named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        extra = [key for key in instance if key not in named]
        extra = [key for key in extra if not any(re.search(p, key) for p in patterns)]
        return "no properties beyond the schema's", ", ".join(repr(key) for key in sorted(extra))
    if kind == "format":
        return f"format {rule}", found
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[
            kind
        ]
        return f"a value {sign} {rule}", found
    return f"{kind} {shown(rule, 10_000)}", found
