"""A CSV's rows, each value converted as its Table Schema field says; standard library only."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

TRUE = ("true", "True", "TRUE", "1")  # the Table Schema defaults
FALSE = ("false", "False", "FALSE", "0")


def rows(text: str, table: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a CSV's text, each value converted as its field in the table schema says."""
    missing = table.get("missingValues", [""])
    convert = {f["name"]: converter(f, missing) for f in table.get("fields", [])}
    return [
        {name: convert.get(name, str)(value) for name, value in row.items()}
        for row in csv.DictReader(io.StringIO(text, newline=""))
    ]


def converter(field: dict[str, Any], missing: list[str]) -> Callable[[str], Any]:
    """A function from a cell's text to the field's value (None for a missing value)."""
    kind = field.get("type", "string")
    true = field.get("trueValues", TRUE)
    false = field.get("falseValues", FALSE)

    def convert(text: str) -> Any:
        if text in missing:
            return None
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
        if kind == "boolean":
            if text in true:
                return True
            if text in false:
                return False
            raise ValueError(f"{field.get('name')}: expected a boolean, found {text!r}")
        if kind in ("array", "object"):
            return json.loads(text)
        return text

    return convert
