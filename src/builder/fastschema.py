"""The fast path: a resolved schema compiled by jsonschema-rs, with this project's rules kept."""

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from jsonschema import Draft202012Validator

# the formats the schemas use, checked by jsonschema's own checkers
SCHEMA_FORMATS = ("date", "uri")
# added to each integer-only place of the compiled copy (never to the files)
NOT_FLOAT = "x-not-float"

# The end of the text in the schemas' patterns: in Python's re, `$` alone also matches before a
# final newline. Rust's `$` is the end of the text already; without the lookahead jsonschema-rs
# matches with its plain regex engine, not the backtracking one (same verdict, less time).
END_OF_TEXT = "$(?!\\n)"

Check = Callable[[Any], bool]


class NotFloat:
    """The keyword behind the project's integer rule: 2.0 is a number, never an integer
    (jsonschema-rs says it is)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        """Refuse a float where only an integer belongs."""
        if type(instance) is float:
            raise ValueError(f"{instance!r} is not an integer")


def integer_only(node: dict[str, Any]) -> bool:
    """Whether a schema node admits integers but no other number."""
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    return "integer" in kinds and "number" not in kinds


def prepared(node: Any) -> Any:
    """A copy of a resolved schema: every pattern compiled by Python's re (its error says the schema
    is broken), and every integer-only place marked for NotFloat."""
    if isinstance(node, list):
        return [prepared(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("enum", "const"):
            out[key] = value
            continue
        if key == "pattern" and isinstance(value, str):
            # a pattern Rust's dialect accepts but Python's rejects is still broken
            re.compile(value)
        if key == "patternProperties" and isinstance(value, dict):
            for regex in value:
                re.compile(regex)
        out[key] = (
            rust_pattern(value)
            if key == "pattern" and isinstance(value, str)
            else prepared(value)
            if key not in ("properties", "patternProperties", "$defs")
            else _each(value)
        )
    if integer_only(out):
        out[NOT_FLOAT] = True
    return out


def rust_pattern(pattern: str) -> str:
    """A pattern as jsonschema-rs gets it: one ending in END_OF_TEXT ends in `$` instead (not
    where that `$` is escaped)."""
    head = pattern.removesuffix(END_OF_TEXT)
    if head == pattern or head.endswith("\\"):
        return pattern
    return f"{head}$"


def _each(subschemas: Any) -> Any:
    """A map of names to subschemas, each prepared (the names are data, not keywords)."""
    if not isinstance(subschemas, dict):
        return prepared(subschemas)
    return {name: prepared(schema) for name, schema in subschemas.items()}


def compile_fast(schema: dict[str, Any]) -> Check | None:
    """A resolved schema compiled by jsonschema-rs (its is_valid), or None where Rust cannot compile
    it (jsonschema then judges alone); re.error for a pattern Python's re rejects."""
    import jsonschema_rs

    conforms = Draft202012Validator.FORMAT_CHECKER.conforms
    formats: dict[str, Callable[..., bool]] = {
        fmt: partial(_conforms, conforms, fmt) for fmt in SCHEMA_FORMATS
    }
    try:
        compiled = jsonschema_rs.validator_for(
            prepared(schema), formats=formats, validate_formats=True, keywords={NOT_FLOAT: NotFloat}
        )
    except (ValueError, jsonschema_rs.ValidationError):
        return None

    def check(value: Any) -> bool:
        """jsonschema-rs's verdict; False for a value it cannot take (a TOML date): jsonschema
        then judges."""
        try:
            return bool(compiled.is_valid(value))
        except (ValueError, TypeError, OverflowError):
            return False

    return check


def fast_or_none(schema: dict[str, Any]) -> Check | None:
    """compile_fast's check, or None where Python's re rejects a pattern of the schema too: then
    jsonschema judges alone, failing only where a value meets that pattern."""
    try:
        return compile_fast(schema)
    except re.error:
        return None


def _conforms(conforms: Callable[..., bool], fmt: str, value: str) -> bool:
    """jsonschema's verdict on a string of format `fmt`."""
    return conforms(value, fmt)
