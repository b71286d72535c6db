"""Frictionless over the table resources the builder generates: types, constraints, primary and foreign keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.errors import Problem
from builder.layout import DESCRIPTOR, PROFILE

DESCRIPTOR_FAULT = "expected a valid Data Package descriptor, found: {}"


def _line(text: object) -> str:
    """Frictionless's text on one line (its notes may hold a traceback's newlines)."""
    return " ".join(str(text).split())


def check_tables(root: Path, tables: list[dict[str, Any]]) -> list[Problem]:
    """Every problem frictionless finds in these tables (paths relative to `root`), in their order."""
    from frictionless import Package, system

    with system.use_context(trusted=False):
        try:
            package = Package({"$schema": PROFILE, "resources": tables}, basepath=str(root))
        except Exception as exc:  # frictionless reports descriptor faults as its own exceptions
            return [Problem(DESCRIPTOR, "/", DESCRIPTOR_FAULT.format(_line(exc)))]
        report = package.validate()
    by_name = {table["name"]: table for table in tables}
    problems = []
    for task in report.tasks:
        table = by_name[task.name]
        prop = table.get("dialect", {}).get("json", {}).get("property")
        for error in task.errors:  # at a JSON pointer (row 2 is item 0) or a CSV row and column
            row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
            at = "" if row is None else f"/{prop}/{row - 2}" if prop else f"row {row}"
            if field and row is not None:
                at += f"/{field}" if prop else f", column {field}"
            problems.append(Problem(table["path"], at or "/", _line(f"{error.type}: {error.note or error.message}")))
    return problems + [Problem(DESCRIPTOR, "/", DESCRIPTOR_FAULT.format(_line(e.message))) for e in report.errors]
