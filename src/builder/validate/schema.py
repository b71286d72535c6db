"""JSON Schema checks of every document by jsonschema; the build's self-check runs fastjsonschema first."""

from contextlib import suppress
from functools import cache, partial
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from builder.errors import Problem, shown
from builder.files import Refused, read_file
from builder.jsonschemas import read_schemas, schema_problems, schemas_folder, validator
from builder.layout import SCHEMAS, schema_for
from builder.strictjson import StrictJSONError, parse_json
from builder.validate.descriptor import compare
from builder.validate.tree import Tree


def check_schemas(tree: Tree, fast: bool = False) -> tuple[list[Problem], set[str]]:
    """Problems, and the documents that passed (only those go on); `fast`: fastjsonschema first, for the build."""
    problems: list[Problem] = []
    passed: set[str] = set()
    broken: set[str] = set()
    for rel, doc in tree.docs.items():
        name = schema_for(rel)
        if doc is None or name is None or name in broken:
            continue
        try:
            if fast:  # benchmarks/README.md says why
                from fastjsonschema import JsonSchemaException

                with suppress(JsonSchemaException):
                    fast_validator(name)(doc)
                    passed.add(rel)
                    continue
            check = validator(name)
            if check.is_valid(doc):
                passed.add(rel)
            else:
                problems += schema_problems(check, doc, tree.shown(rel))
        except Exception as exc:  # a broken schema file: jsonschema and referencing raise their own exceptions
            broken.add(name)
            found = f"{type(exc).__name__}: {shown(str(exc), 160)}"
            problems.append(Problem(f"{SCHEMAS}/{name}", "/", f"expected a usable JSON Schema, found {found}"))
    return problems, passed


def check_schema_folder(root: Path) -> list[Problem]:
    """In a release archive, each file of its schemas/ that differs from the builder's own (the documents' judge)."""
    if (own_folder := schemas_folder()) == SCHEMAS:  # a repository: its schemas/ are the curated ones
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
    """The resolved schema compiled by fastjsonschema as draft 7, with jsonschema's formats: fast, first error only."""
    import fastjsonschema

    schema = {**validator(name).schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    formats = {fmt: partial(Draft202012Validator.FORMAT_CHECKER.conforms, format=fmt) for fmt in ("date", "uri")}
    return fastjsonschema.compile(schema, formats=formats)
