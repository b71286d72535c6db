"""Frictionless over the package's tables: types, constraints, primary and foreign keys.

It is handed only the table resources the builder generates (validate.run calls it once the
descriptor's resources equal them), so it never opens a path, URL or profile a hand edit wrote.
"""

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
    problems = [_problem(by_name[task.name], error) for task in report.tasks for error in task.errors]
    return problems + [Problem(DESCRIPTOR, "/", DESCRIPTOR_FAULT.format(_line(e.message))) for e in report.errors]


def _problem(table: dict[str, Any], error: Any) -> Problem:
    """A frictionless error at a JSON pointer (JSON tables: row 2 is item 0) or a CSV row and column."""
    row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
    prop = table.get("dialect", {}).get("json", {}).get("property")
    if row is None:
        where = "/"
    elif prop:
        where = f"/{prop}/{row - 2}" + (f"/{field}" if field else "")
    else:
        where = f"row {row}" + (f", column {field}" if field else "")
    return Problem(table["path"], where, _line(f"{error.type}: {error.note or error.message}"))
