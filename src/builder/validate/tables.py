"""Frictionless over the package's tables: types, constraints, primary and foreign keys.

Only the tabular resources go through frictionless (three, whatever the number of models);
the JSON documents are checked whole by jsonschema, and their sizes and hashes by crossfile.
"""

from __future__ import annotations

from typing import Any

from builder.errors import Problem
from builder.validate.tree import DESCRIPTOR, Tree


def check_tables(tree: Tree) -> list[Problem]:
    from frictionless import Package, system

    desc = tree.descriptor
    if not isinstance(desc, dict) or not isinstance(desc.get("resources"), list):
        return []
    tables = [r for r in desc["resources"] if isinstance(r, dict) and r.get("type") == "table"]
    if not tables:
        return [Problem(DESCRIPTOR, "/resources", "expected tabular resources, found none")]
    with system.use_context(trusted=False):
        try:
            package = Package({**desc, "resources": tables}, basepath=str(tree.root))
        except Exception as exc:  # frictionless reports descriptor faults as its own exceptions
            return [Problem(DESCRIPTOR, "/", f"expected a valid Data Package descriptor, found: {exc}")]
        report = package.validate()
    return [_problem(tables, task.name, error) for task in report.tasks for error in task.errors] + [
        Problem(DESCRIPTOR, "/", f"expected a valid Data Package descriptor, found: {e.message}") for e in report.errors
    ]


def _problem(tables: list[dict[str, Any]], name: str, error: Any) -> Problem:
    res = next((r for r in tables if r.get("name") == name), {})
    path = res.get("path", name)
    row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
    if row is None:
        return Problem(str(path), "/", f"{error.type}: {error.note or error.message}")
    prop = res.get("dialect", {}).get("json", {}).get("property")
    where = (
        f"/{prop}/{row - 2}" + (f"/{field}" if field else "")
        if prop
        else f"row {row}" + (f", column {field}" if field else "")
    )
    return Problem(str(path), where, f"{error.type}: {error.note or error.message}")
