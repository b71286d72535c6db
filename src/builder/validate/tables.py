"""Frictionless over the package's tables: types, constraints, primary and foreign keys.

Only the tabular resources go through frictionless (three, whatever the number of models);
the JSON documents are checked whole by jsonschema, and their sizes and hashes by crossfile.
"""

from __future__ import annotations

from typing import Any

from builder.errors import Problem
from builder.layout import DESCRIPTOR
from builder.validate.descriptor import frictionless_descriptor, safe_tables
from builder.validate.tree import Tree


def check_tables(tree: Tree) -> list[Problem]:
    from frictionless import Package, system

    desc = tree.descriptor
    if not isinstance(desc, dict) or not isinstance(desc.get("resources"), list):
        return []
    tables = safe_tables(tree)  # never a path outside the package, a URL, or a schema to fetch
    if not tables:
        return [Problem(DESCRIPTOR, "/resources", "expected tabular resources, found none")]
    with system.use_context(trusted=False):
        try:
            package = Package(frictionless_descriptor(tables), basepath=str(tree.root))
        except Exception as exc:  # frictionless reports descriptor faults as its own exceptions
            return [Problem(DESCRIPTOR, "/", f"expected a valid Data Package descriptor, found: {exc}")]
        report = package.validate()
    problems = [_problem(tables, task.name, error) for task in report.tasks for error in task.errors]
    found = [f"expected a valid Data Package descriptor, found: {error.message}" for error in report.errors]
    return problems + [Problem(DESCRIPTOR, "/", message) for message in found]


def _problem(tables: list[dict[str, Any]], name: str, error: Any) -> Problem:
    """A frictionless error at a JSON pointer (JSON tables: row 2 is item 0) or a CSV row and column."""
    res = next((r for r in tables if r.get("name") == name), {})
    message = f"{error.type}: {error.note or error.message}"
    row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
    prop = res.get("dialect", {}).get("json", {}).get("property")
    if row is None:
        where = "/"
    elif prop:
        where = f"/{prop}/{row - 2}" + (f"/{field}" if field else "")
    else:
        where = f"row {row}" + (f", column {field}" if field else "")
    return Problem(str(res.get("path", name)), where, message)
