"""The input files' JSON Schemas (schemas/inputs/, never published), applied as the documents' are."""

import operator
from functools import cache, reduce
from typing import Any

from builder import jsonschemas
from builder.errors import InputError, Problem, ProblemsError
from builder.jsonschemas import OWN_SCHEMAS, compiled, read_schemas, registry, resolved
from builder.layout import SCHEMAS

# The builder's own, wherever the command runs (a folder of two data trees to diff has none);
# schemas/inputs/ of the current folder where the builder is installed apart.
INPUT_SCHEMAS = OWN_SCHEMAS / "inputs" if (OWN_SCHEMAS / "inputs").is_dir() else SCHEMAS / "inputs"
METADATA_SCHEMA, LOCK_SCHEMA, TASK_SCHEMA = "metadata.schema.json", "lock.schema.json", "upstream-task.schema.json"
DIFF_SCHEMA = "diff-document.schema.json"  # a document of a data folder or ref that `builder diff` compares


@cache
def validator(name: str, part: tuple[str, ...] = (), ref: str | None = None) -> Any:
    """The compiled validator of an input schema (or its subschema at `part`, or with `ref` added), $refs resolved."""
    schema = read_schemas(INPUT_SCHEMAS)[name]
    schema = {**schema, "$id": schema.get("$id", f"urn:leadgreen-input:{name}")}
    root = reduce(operator.getitem, part, schema)
    root = {**root, "$ref": ref} if ref else root
    try:  # its $refs end, resolve and stay small, or one line says which: jsonschema itself would recurse
        return compiled(resolved({**root, "$id": schema["$id"]}, registry([schema])))
    except InputError as exc:
        raise InputError(f"{INPUT_SCHEMAS / name}: {exc}") from None


def schema_problems(name: str, value: Any, path: str, part: tuple = (), ref: str | None = None) -> list[Problem]:
    """Every way `value` breaks the input schema `name` (its subschema at `part`, or `ref`), one Problem each."""
    check = validator(name, part, ref)
    if check.is_valid(value):  # the common case, several times cheaper than collecting errors
        return []
    return jsonschemas.schema_problems(check, value, path, said=True)


def refuse(where: str, problems: list[Problem], of: str) -> None:
    """Raise one problem as an InputError, several as a ProblemsError (`of`: what they are in); none, nothing."""
    if len(problems) == 1:
        raise InputError(str(problems[0]))
    if problems:
        raise ProblemsError(f"{where}: {len(problems)} problems in {of}; nothing was written", problems)
