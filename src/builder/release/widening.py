"""Whether the schema changes between two releases widen the contract or narrow it, and the tables' changes.

A widening only adds: a schema file, a field (required when the field itself is new), an enum
value, a resource in datapackage.json, a column appended to a table. What a reader relied on
still holds. Anything else (removed, retyped, reordered, restricted) narrows it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from builder import git
from builder.errors import InputError
from builder.files import read_regular_file
from builder.layout import DESCRIPTOR, MAX_FILE_BYTES
from builder.release.compat import Compat, SchemaChange
from builder.strictjson import parse_json

WIDENING = frozenset({"schema added", "field added", "enum widened", "resource added", "column appended"})


def is_widening(change: SchemaChange, changes: list[SchemaChange]) -> bool:
    """A change that only adds; `required added` is one when the field it names is added too."""
    if change.kind == "required added":
        field = f"{change.path}/{change.detail}"
        return any(c.kind == "field added" and c.schema == change.schema and c.path == field for c in changes)
    return change.kind in WIDENING


def verdict(changes: list[SchemaChange]) -> str:
    """One line that says whether the changes widen or narrow the contract ('' when there are none)."""
    if not changes:
        return ""
    narrowing = [str(c) for c in changes if not is_widening(c, changes)]
    if not narrowing:
        return "Widening: every change adds (a schema, a field, an enum value, a resource or a column)."
    return f"Narrowing: {len(narrowing)} change(s) remove or restrict what readers relied on: {'; '.join(narrowing)}"


def table_changes(old: dict[str, Any], new: dict[str, Any]) -> list[SchemaChange]:
    """Resources added or removed, and table columns appended, removed, reordered or retyped."""
    before, after = _resources(old), _resources(new)
    changes = [SchemaChange(DESCRIPTOR, f"/resources/{n}", "resource removed") for n in sorted(before.keys() - after)]
    changes += [SchemaChange(DESCRIPTOR, f"/resources/{n}", "resource added") for n in sorted(after.keys() - before)]
    for name in sorted(before.keys() & after.keys()):
        was, now = _columns(before[name]), _columns(after[name])
        at = f"/resources/{name}"
        if list(now)[: len(was)] != list(was):
            gone = [c for c in was if c not in now]
            changes += [SchemaChange(DESCRIPTOR, f"{at}/{c}", "column removed", was[c]) for c in gone]
            if not gone:
                changes.append(SchemaChange(DESCRIPTOR, at, "columns reordered", ", ".join(now)))
            continue
        changes += [SchemaChange(DESCRIPTOR, f"{at}/{c}", "column appended", now[c]) for c in list(now)[len(was) :]]
        changes += [
            SchemaChange(DESCRIPTOR, f"{at}/{c}", "column retyped", f"{was[c]} -> {now[c]}")
            for c in was
            if was[c] != now[c]
        ]
    return changes


def with_tables(compat: Compat, old: str, new: str) -> Compat:
    """`compat` with the table changes between the descriptors of two folders or git refs added (none
    when either has no descriptor: a folder of schemas alone has no tables to compare)."""
    before, after = load_descriptor(old), load_descriptor(new)
    if before is None or after is None:
        return compat
    return replace(compat, changes=sorted([*compat.changes, *table_changes(before, after)]))


def load_descriptor(spec: str) -> dict[str, Any] | None:
    """datapackage.json of a folder or at a git ref; None when there is none, {} when it is unreadable."""
    folder = Path(spec)
    if folder.is_dir():
        path = folder / DESCRIPTOR
        data = read_regular_file(path, MAX_FILE_BYTES, "a data package descriptor") if path.exists() else None
    else:
        commit = git.commit_of(spec)
        if commit is None:
            raise InputError(f"{spec}: expected a folder or a git ref, found neither")
        files, _ = git.tree_files(commit, (DESCRIPTOR,))
        data = files.get(DESCRIPTOR)
    if data is None:
        return None
    try:
        found = parse_json(data)
    except ValueError:
        found = {}
    return found if isinstance(found, dict) else {}


def _resources(desc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    items = desc.get("resources")
    if not isinstance(items, list):
        return {}
    return {r["name"]: r for r in items if isinstance(r, dict) and isinstance(r.get("name"), str)}


def _columns(resource: dict[str, Any]) -> dict[str, str]:
    """A table's column names and types, in order ({} for a whole-document resource)."""
    schema = resource.get("schema")
    fields = schema.get("fields") if isinstance(schema, dict) else None
    if not isinstance(fields, list):
        return {}
    named = [f for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)]
    return {f["name"]: str(f.get("type", "any")) for f in named}
