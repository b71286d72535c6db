"""Schema compatibility between two releases: what changed in the schemas, and whose documents break.

`check_compat` validates each side's documents against the other side's schemas and lists the
schema changes a reader can see. `$ref`s resolve only within the given set; nothing is fetched.

A widening only adds: a schema file, a field (required when the field itself is new), an enum
value, a resource in datapackage.json, a column appended to a table. What a reader relied on
still holds. Anything else (removed, retyped, reordered, restricted) narrows it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass, field
from typing import Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from builder import layout
from builder.errors import InputError, Problem, ReleaseError, shown
from builder.jsonschemas import UnresolvedRef, compiled, resolved, schema_problems
from builder.sources import source_files
from builder.strictjson import parse_input

SCHEMA_SUFFIX = ".schema.json"
STRING_RULES = ("pattern", "minLength", "maxLength")  # changed: a narrowing unless shown otherwise
SHOWN_FAILURES = 20  # in a changelog section or an error message; the rest are counted


@dataclass(frozen=True, order=True)
class SchemaChange:
    schema: str  # file name, e.g. model.schema.json
    path: str  # where in the documents, e.g. /configurations[]/precision ([] an array item, * a map value)
    kind: str  # field added, field removed, retyped, required added, ..., schema added
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.schema} {self.path or '/'}: {self.kind}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class Compat:
    changes: list[SchemaChange] = field(default_factory=list)
    failures: list[tuple[str, Problem]] = field(default_factory=list)  # (which side against which, problem)

    @property
    def clean(self) -> bool:
        return not self.changes and not self.failures


OLD_DOCS_NEW_SCHEMAS = "previous documents, new schemas"
NEW_DOCS_OLD_SCHEMAS = "new documents, previous schemas"


def check_compat(
    old_schemas: dict[str, dict[str, Any]],
    new_schemas: dict[str, dict[str, Any]],
    old_docs: dict[str, Any],
    new_docs: dict[str, Any],
    schema_for: Callable[[str], str | None] = layout.schema_for,
) -> Compat:
    """Cross-validate both document sets (`schema_for` names a document's schema) and list the schema changes."""
    failures = [(OLD_DOCS_NEW_SCHEMAS, p) for p in cross_validate(new_schemas, old_docs, schema_for)]
    failures += [(NEW_DOCS_OLD_SCHEMAS, p) for p in cross_validate(old_schemas, new_docs, schema_for)]
    return Compat(schema_changes(old_schemas, new_schemas), failures)


# Cross-validation


def _registry(schemas: dict[str, dict[str, Any]]) -> Any:
    return Registry().with_resources(
        (_base(name, schema), Resource.from_contents(schema, default_specification=DRAFT202012))
        for name, schema in schemas.items()
    )


def _base(name: str, schema: dict[str, Any]) -> str:
    found = schema.get("$id")
    return found if isinstance(found, str) else f"urn:leadgreen-schema:{name}"


def cross_validate(
    schemas: dict[str, dict[str, Any]], docs: dict[str, Any], schema_for: Callable[[str], str | None]
) -> list[Problem]:
    """Each document against its schema in `schemas` (formats checked), every problem found."""
    registry = _registry(schemas)
    validators: dict[str, Any] = {}
    failures: list[Problem] = []
    for rel, doc in sorted(docs.items()):
        name = schema_for(rel)
        if name is None:
            continue
        if name not in schemas:
            failures.append(Problem(rel, "/", f"expected schema {name} in the set, found none"))
            continue
        if name not in validators:
            try:  # $refs resolved once per schema, within the set, as builder validate does
                schema = resolved({"$id": _base(name, schemas[name]), **schemas[name]}, registry)
                validators[name] = compiled(schema)
            except UnresolvedRef as exc:  # a $ref to a schema of the other release (a cycle is raised)
                validators[name] = str(exc)
        if isinstance(validators[name], str):
            failures.append(Problem(rel, "/", validators[name]))
            continue
        failures += schema_problems(validators[name], doc, rel)
    return failures


# The change list


@dataclass
class _Node:
    """What a schema says of one place in a document, with allOf merged in."""

    types: frozenset[str] | None = None
    enum: list[Any] | None = None
    const: Any = None
    has_const: bool = False
    required: set[str] = field(default_factory=set)
    children: dict[str, list[Any]] = field(default_factory=dict)  # path step -> subschemas
    strings: dict[str, Any] = field(default_factory=dict)  # pattern, minLength, maxLength


def _merge(schema: Any, into: _Node) -> None:
    if not isinstance(schema, dict):
        return
    for sub in schema.get("allOf", []):
        _merge(sub, into)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        into.types = frozenset(kinds) if into.types is None else into.types & frozenset(kinds)
    if "enum" in schema:
        into.enum = list(schema["enum"])
    if "const" in schema:
        into.const, into.has_const = schema["const"], True
    into.required |= set(schema.get("required", []))
    into.strings |= {key: schema[key] for key in STRING_RULES if key in schema}
    for name, sub in schema.get("properties", {}).items():
        into.children.setdefault(f"/{name}", []).append(sub)
    if isinstance(schema.get("items"), dict):
        into.children.setdefault("[]", []).append(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        into.children.setdefault("/*", []).append(schema["additionalProperties"])


def _flatten(name: str, schema: dict[str, Any], registry: Any) -> dict[str, _Node]:
    """Every place the schema describes, by path, from its root, $refs resolved."""
    out: dict[str, _Node] = {}

    def visit(parts: list[Any], path: str, depth: int) -> None:
        node = _Node()
        for sub in parts:
            _merge(sub, node)
        out[path] = node
        if depth < 32:
            for step, subs in node.children.items():
                visit(subs, path + step, depth + 1)

    visit([resolved({"$id": _base(name, schema), **schema}, registry)], "", 0)
    return out


def _type_name(node: _Node) -> str:
    return "|".join(sorted(node.types)) if node.types else "any"


def schema_changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[SchemaChange]:
    """Every change between two schema sets that a reader of the documents can see."""
    changes = [SchemaChange(n, "", "schema removed") for n in sorted(old.keys() - new.keys())]
    changes += [SchemaChange(n, "", "schema added") for n in sorted(new.keys() - old.keys())]
    old_registry, new_registry = _registry(old), _registry(new)
    for name in sorted(old.keys() & new.keys()):
        try:  # InputError for a $ref that leads nowhere, loops or explodes
            before = _flatten(name, old[name], old_registry)
            after = _flatten(name, new[name], new_registry)
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
        changes += _compare(name, before, after)
    return sorted(changes)


def _compare(name: str, before: dict[str, _Node], after: dict[str, _Node]) -> Iterator[SchemaChange]:
    def under(path: str, roots: Set[str]) -> bool:
        return any(path.startswith(root) and path[len(root) : len(root) + 1] in ("/", "[") for root in roots)

    added = after.keys() - before.keys()
    removed = before.keys() - after.keys()
    for path in sorted(added):
        if not under(path, added):
            yield SchemaChange(name, path, "field added", _type_name(after[path]))
    for path in sorted(removed):
        if not under(path, removed):
            yield SchemaChange(name, path, "field removed", _type_name(before[path]))
    for path in sorted(before.keys() & after.keys()):
        old, new = before[path], after[path]
        if old.types != new.types:
            yield SchemaChange(name, path, "retyped", f"{_type_name(old)} -> {_type_name(new)}")
        for item in sorted(new.required - old.required):
            yield SchemaChange(name, path, "required added", item)
        for item in sorted(old.required - new.required):
            yield SchemaChange(name, path, "required removed", item)
        yield from _compare_enum(name, path, old.enum, new.enum)
        if (old.has_const, old.const) != (new.has_const, new.const):
            consts = [shown(n.const, 10_000) if n.has_const else "none" for n in (old, new)]
            yield SchemaChange(name, path, "const changed", " -> ".join(consts))
        for key in STRING_RULES:
            if old.strings.get(key) != new.strings.get(key):
                shown_rules = [shown(n.strings[key]) if key in n.strings else "none" for n in (old, new)]
                yield SchemaChange(name, path, f"{key} changed", " -> ".join(shown_rules))


def _listed(values: list[Any]) -> str:
    return ", ".join(shown(v, 10_000) for v in values)


def _compare_enum(name: str, path: str, old: list[Any] | None, new: list[Any] | None) -> Iterator[SchemaChange]:
    if old == new:
        return
    if old is None:
        yield SchemaChange(name, path, "enum narrowed", f"now only {_listed(new or [])}")
        return
    if new is None:
        yield SchemaChange(name, path, "enum widened", f"no longer limited to {_listed(old)}")
        return
    gained = [v for v in new if v not in old]
    lost = [v for v in old if v not in new]
    if gained:
        yield SchemaChange(name, path, "enum widened", f"added {_listed(gained)}")
    if lost:
        yield SchemaChange(name, path, "enum narrowed", f"removed {_listed(lost)}")


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


# Reading schema sets, from a folder or a git ref


def load_schema_set(spec: str) -> dict[str, dict[str, Any]]:
    """The schemas of a folder (its schemas/ folder, or the folder itself) or of schemas/ at a git ref."""
    _, files = source_files(spec, "schemas", SCHEMA_SUFFIX, "a JSON Schema", deep=False)
    if not files:
        raise InputError(f"{spec}: expected *{SCHEMA_SUFFIX} files in a folder or at a git ref, found none")
    return {name: parse_input(data, f"{spec}: {name}") for name, data in files.items()}


# The release guard and its changelog section


def major(docs: dict[str, Any]) -> str | None:
    """The documents' API major version (their `version` field), when they agree on one."""
    found = {doc.get("version") for doc in docs.values() if isinstance(doc, dict) and "version" in doc}
    return found.pop() if len(found) == 1 else None


def require_accepted(compat: Compat, accepted: str | None, old_major: str | None, new_major: str | None) -> None:
    """Refuse a schema change unless it is accepted with a reason, or the API major version changed."""
    if compat.clean or accepted or (old_major is not None and new_major is not None and old_major != new_major):
        return
    listed = "; ".join(map(str, compat.changes[:SHOWN_FAILURES]))
    counts = {a: sum(side == a for side, _ in compat.failures) for a in (OLD_DOCS_NEW_SCHEMAS, NEW_DOCS_OLD_SCHEMAS)}
    broken = ", ".join(f"{n} problem(s) with {a}" for a, n in counts.items() if n)
    raise ReleaseError(
        "the schemas changed within API major version "
        f"{new_major}: {listed or 'no listed change'}{'; ' + broken if broken else ''}. "
        'Rerun with --accept-schema-change "REASON", or publish the change as a new API major version'
    )


def changelog_section(
    compat: Compat, accepted: str | None, previous: str, old_major: str | None, new_major: str | None
) -> str:
    """The changelog's schema section for a release ('' when nothing changed): why, what, and who breaks."""
    if compat.clean:
        return ""
    lines = ["### Schema changes", ""]
    if old_major != new_major:
        lines += [f"API major version {old_major} -> {new_major}.", ""]
    if accepted:
        lines += [f"Schema change accepted: {accepted}", ""]
    lines += [f"Compared with the schemas of {previous}:", ""]
    lines += [f"- {change}" for change in compat.changes] or ["- (no change in the schemas themselves)"]
    lines.append("")
    lines += [verdict(compat.changes), ""] if compat.changes else []
    for against, title in (
        (OLD_DOCS_NEW_SCHEMAS, f"The documents of {previous} against the new schemas"),
        (NEW_DOCS_OLD_SCHEMAS, f"The new documents against the schemas of {previous}"),
    ):
        found = [f for side, f in compat.failures if side == against]
        if not found:
            lines += [f"{title}: valid.", ""]
            continue
        lines += [f"{title}: {len(found)} problem(s).", ""] + [f"- {f}" for f in found[:SHOWN_FAILURES]]
        if len(found) > SHOWN_FAILURES:
            lines.append(f"- ... and {len(found) - SHOWN_FAILURES} more")
        lines.append("")
    return "\n".join(lines)
