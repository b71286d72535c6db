"""The fast path: a resolved schema compiled by jsonschema-rs, with this project's rules kept."""

import re
from collections.abc import Callable
from datetime import date
from typing import Any

# added to each integer-only place of the compiled copy (never to the files), or to the array
# whose items are integer-only, in their place
NOT_FLOAT, NO_FLOAT_ITEMS = "x-not-float", "x-no-float-items"
# jsonschema's "date": four, two and two ASCII digits that make a calendar date (jsonschema-rs
# also takes the year 0000); "uri" is jsonschema-rs's own, a test holds it to jsonschema's verdict
DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)

# The end of the text in the schemas' patterns: in Python's re, `$` alone also matches before a
# final newline. Rust's `$` is the end of the text already; without the lookahead jsonschema-rs
# matches with its plain regex engine, not the backtracking one (same verdict, less time).
END_OF_TEXT = "$(?!\\n)"

# A bound jsonschema-rs compares an instance with: one written as an integral float (1e12 reads as
# 1000000000000.0) costs it about ten times one written as an int, and means the same number. Only
# those within 2^53 (every integer there is a float too) become ints: 1e300 would be an int
# jsonschema-rs cannot hold.
LIMITS = frozenset(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"))

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


class NoFloatItems(NotFloat):
    """The integer rule on an array's items, checked once for the array."""

    def validate(self, instance: Any) -> None:
        """Refuse an array holding a float where its items are integers only."""
        if type(instance) is list and float in map(type, instance):
            raise ValueError("a float among integer-only items")


def integer_only(node: dict[str, Any]) -> bool:
    """Whether a schema node admits integers but no other number."""
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    return "integer" in kinds and "number" not in kinds


def prepared(node: Any, marked: bool = True) -> Any:
    """A copy of a resolved schema: every pattern compiled by Python's re (its error says the schema
    is broken), every integral float bound an int, and every integer-only place marked for NotFloat
    (unless `marked` is False: its array is marked for NoFloatItems)."""
    if isinstance(node, list):
        return [prepared(item) for item in node]
    if not isinstance(node, dict):
        return node
    items = node.get("items")
    # "items" alone (no prefixItems) applies to every item: one check for the array
    whole = isinstance(items, dict) and integer_only(items) and "prefixItems" not in node
    out = {}
    for key, value in node.items():
        if key in ("enum", "const"):
            out[key] = value  # data, not a schema
        elif key == "pattern" and isinstance(value, str):
            # a pattern Rust's dialect accepts but Python's rejects is still broken
            re.compile(value)
            out[key] = rust_pattern(value)
        elif key in LIMITS and type(value) is float and value.is_integer() and abs(value) <= 2**53:
            out[key] = int(value)
        elif key == "items":
            out[key] = prepared(value, marked=not whole)
        elif key in ("properties", "patternProperties", "$defs"):
            if key == "patternProperties" and isinstance(value, dict):
                for regex in value:
                    re.compile(regex)
            out[key] = _each(value)
        else:
            out[key] = prepared(value)
    if marked and integer_only(out):
        out[NOT_FLOAT] = True
    if whole:
        out[NO_FLOAT_ITEMS] = True
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
    it (jsonschema then judges alone); re.error for a pattern Python's re rejects. Draft 2020-12,
    as jsonschema judges it, whatever its $schema says."""
    import jsonschema_rs

    try:
        compiled = jsonschema_rs.Draft202012Validator(
            prepared(schema),
            formats={"date": is_date},
            validate_formats=True,
            keywords={NOT_FLOAT: NotFloat, NO_FLOAT_ITEMS: NoFloatItems},
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


def is_date(value: str) -> bool:
    """jsonschema's verdict on a string of format "date"."""
    try:
        return bool(DATE.fullmatch(value) and date.fromisoformat(value))
    except ValueError:
        return False
