"""The tables' changes between two releases (from datapackage.json), and the release's schema guard."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from builder.diff import load_docs
from builder.layout import DESCRIPTOR
from builder.release.compat import (
    Compat,
    SchemaChange,
    changelog_section,
    check_compat,
    load_schema_set,
    major,
    require_accepted,
)
from builder.sources import source_files
from builder.strictjson import parse_json


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
    """`compat` plus the table changes between the descriptors of two folders or refs (none when one lacks it)."""
    before, after = load_descriptor(old), load_descriptor(new)
    if before is None or after is None:
        return compat
    return replace(compat, changes=sorted([*compat.changes, *table_changes(before, after)]))


def load_descriptor(spec: str) -> dict[str, Any] | None:
    """datapackage.json of a folder or at a git ref; None when there is none, {} when it is unreadable."""
    data = source_files(spec, DESCRIPTOR, DESCRIPTOR, "a data package descriptor", deep=False)[1].get(DESCRIPTOR)
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


def guard_release(previous: str, current: str, new_docs: dict[str, Any], accepted: str | None) -> str:
    """Compare the commit `current` with the previous tag: refuse an unaccepted change, else the changelog section."""
    old_docs = load_docs(previous)
    compat = check_compat(load_schema_set(previous), load_schema_set(current), old_docs, new_docs)
    compat = with_tables(compat, previous, current)  # CSV columns and resources, from datapackage.json
    old_major, new_major = major(old_docs), major(new_docs)
    require_accepted(compat, accepted, old_major, new_major)
    return changelog_section(compat, accepted, previous, old_major, new_major)
