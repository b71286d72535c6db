"""Schema compatibility of two releases: the schema and table changes, and each side's documents
cross-validated."""

from collections import Counter
from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from builder.diff import source_files
from builder.errors import InputError, Problem, ReleaseError, shown
from builder.fastschema import fast_or_none
from builder.jsonschemas import RefError, UnresolvedRef, compiled, resolved, schema_problems
from builder.layout import DESCRIPTOR, schema_for
from builder.strictjson import parse_input, parse_json

SCHEMA_SUFFIX = ".schema.json"
RULES = ("const", "pattern", "minLength", "maxLength")  # a changed rule is a narrowing
SHOWN_FAILURES = 20  # in a changelog section or an error message; the rest are counted
OLD_DOCS_NEW_SCHEMAS = "previous documents, new schemas"
NEW_DOCS_OLD_SCHEMAS = "new documents, previous schemas"
Schemas = dict[str, dict[str, Any]]
Docs = dict[str, Any]


@dataclass(frozen=True, order=True)
class SchemaChange:
    schema: str  # file name, e.g. model.schema.json
    # where in the documents, e.g. /configurations[]/precision ([] an array item, * a map value)
    path: str
    kind: str  # field added, field removed, retyped, required added, ..., schema added
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.schema} {self.path or '/'}: {self.kind}" + (
            f": {self.detail}" if self.detail else ""
        )


class Compat(NamedTuple):
    changes: list[SchemaChange]
    failures: list[tuple[str, Problem]]  # (which side against which, problem)

    @property
    def clean(self) -> bool:
        return not self.changes and not self.failures


def check_compat(
    old_schemas: Schemas, new_schemas: Schemas, old_docs: Docs, new_docs: Docs
) -> Compat:
    """Cross-validate both document sets and list the schema changes."""
    failures = [(OLD_DOCS_NEW_SCHEMAS, p) for p in cross_validate(new_schemas, old_docs)]
    failures += [(NEW_DOCS_OLD_SCHEMAS, p) for p in cross_validate(old_schemas, new_docs)]
    return Compat(schema_changes(old_schemas, new_schemas), failures)


def _resolved(schemas: Schemas) -> Callable[[str], dict[str, Any]]:
    """A function giving each schema of the set by name with its $refs replaced, resolved within
    the set."""
    ids = {
        n: s["$id"] if isinstance(s.get("$id"), str) else f"urn:leadgreen-schema:{n}"
        for n, s in schemas.items()
    }
    found = {ids[n]: s for n, s in schemas.items()}
    return lambda name: resolved({"$id": ids[name], **schemas[name]}, found)


def cross_validate(schemas: Schemas, docs: Docs) -> list[Problem]:
    """Each document against its schema in `schemas` (layout.schema_for names it), every problem
    found."""
    schema_of = cache(_resolved(schemas))
    check = cache(lambda name: compiled(schema_of(name)))  # jsonschema: only to explain
    fast = cache(lambda name: fast_or_none(schema_of(name)))  # None: jsonschema judges alone
    failures: list[Problem] = []
    for rel, doc in sorted(docs.items()):
        name = schema_for(rel)
        if name is not None and name not in schemas:
            said = f"schema {name} in the set"
            failures.append(Problem.mismatch(rel, "/", "compat.schema-missing", said, "none"))
        elif name is not None:
            try:
                if (passes := fast(name)) is None or not passes(doc):  # jsonschema explains
                    failures += schema_problems(check(name), doc, rel)
            except UnresolvedRef as exc:  # a $ref to a schema of the other release
                said = exc.fault
                failures.append(
                    Problem(rel, "/", str(exc), "compat.unresolved-ref", said.expected, said.found)
                )
            # a cycle or an explosion: the schema is unusable, named as in schema_changes
            except RefError as exc:
                raise InputError(f"{name}: {exc}") from None
    return failures


@dataclass
class _Node:
    """What a schema says of one place in a document, with allOf merged in."""

    types: frozenset[str] | None = None
    enum: list[Any] | None = None
    required: set[str] = field(default_factory=set)
    rules: dict[str, Any] = field(default_factory=dict)  # const, pattern, minLength, maxLength
    children: dict[str, list[Any]] = field(default_factory=dict)  # path step -> subschemas

    def merge(self, schema: Any) -> None:
        if not isinstance(schema, dict):
            return
        for sub in schema.get("allOf", []):
            self.merge(sub)
        if "type" in schema:
            kinds = frozenset(
                schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            )
            self.types = kinds if self.types is None else self.types & kinds
        if "enum" in schema:
            self.enum = list(schema["enum"])
        self.required |= set(schema.get("required", []))
        self.rules |= {key: schema[key] for key in RULES if key in schema}
        for name, sub in schema.get("properties", {}).items():
            self.children.setdefault(f"/{name}", []).append(sub)
        for step, key in (("[]", "items"), ("/*", "additionalProperties")):
            if isinstance(schema.get(key), dict):
                self.children.setdefault(step, []).append(schema[key])

    @property
    def type_name(self) -> str:
        return "|".join(sorted(self.types)) if self.types else "any"


def _flatten(parts: list[Any], path: str = "", depth: int = 0) -> dict[str, _Node]:
    """Every place the resolved schemas `parts` describe together, by path from their root."""
    node = _Node()
    for sub in parts:
        node.merge(sub)
    out = {path: node}
    for step, subs in node.children.items() if depth < 32 else ():
        out |= _flatten(subs, path + step, depth + 1)
    return out


def schema_changes(old: Schemas, new: Schemas) -> list[SchemaChange]:
    """Every change between two schema sets that a reader of the documents can see."""
    changes = [SchemaChange(n, "", "schema removed") for n in sorted(old.keys() - new.keys())]
    changes += [SchemaChange(n, "", "schema added") for n in sorted(new.keys() - old.keys())]
    old_schema, new_schema = _resolved(old), _resolved(new)
    for name in sorted(old.keys() & new.keys()):
        try:  # InputError for a $ref that leads nowhere, loops or explodes
            before, after = _flatten([old_schema(name)]), _flatten([new_schema(name)])
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
        changes += _compare(name, before, after)
    return sorted(changes)


def _compare(
    name: str, before: dict[str, _Node], after: dict[str, _Node]
) -> Iterator[SchemaChange]:
    def under(path: str, roots: Set[str]) -> bool:
        return any(
            path.startswith(root) and path[len(root) : len(root) + 1] in ("/", "[")
            for root in roots
        )

    added, removed = after.keys() - before.keys(), before.keys() - after.keys()
    yield from (
        SchemaChange(name, p, "field added", after[p].type_name)
        for p in added
        if not under(p, added)
    )
    yield from (
        SchemaChange(name, p, "field removed", before[p].type_name)
        for p in removed
        if not under(p, removed)
    )
    for path in before.keys() & after.keys():
        old, new = before[path], after[path]
        if old.types != new.types:
            yield SchemaChange(name, path, "retyped", f"{old.type_name} -> {new.type_name}")
        yield from (
            SchemaChange(name, path, "required added", item) for item in new.required - old.required
        )
        yield from (
            SchemaChange(name, path, "required removed", item)
            for item in old.required - new.required
        )
        if old.enum is None and new.enum is not None:
            yield SchemaChange(name, path, "enum narrowed", f"now only {_listed(new.enum)}")
        elif new.enum is None and old.enum is not None:
            yield SchemaChange(
                name, path, "enum widened", f"no longer limited to {_listed(old.enum)}"
            )
        elif old.enum != new.enum and old.enum is not None and new.enum is not None:
            gained, lost = (
                [v for v in new.enum if v not in old.enum],
                [v for v in old.enum if v not in new.enum],
            )
            if gained:
                yield SchemaChange(name, path, "enum widened", f"added {_listed(gained)}")
            if lost:
                yield SchemaChange(name, path, "enum narrowed", f"removed {_listed(lost)}")
        for key in RULES:
            if (key in old.rules, old.rules.get(key)) != (key in new.rules, new.rules.get(key)):
                limit = 10_000 if key == "const" else 80
                rules = [
                    shown(n.rules[key], limit) if key in n.rules else "none" for n in (old, new)
                ]
                yield SchemaChange(name, path, f"{key} changed", " -> ".join(rules))


def _listed(values: list[Any]) -> str:
    return ", ".join(shown(v, 10_000) for v in values)


WIDENING = frozenset(
    {"schema added", "field added", "enum widened", "resource added", "column appended"}
)


def is_widening(change: SchemaChange, changes: list[SchemaChange]) -> bool:
    """A change that only adds; `required added` is one when the field it names is added too."""
    if change.kind == "required added":
        added = f"{change.path}/{change.detail}"
        return any(
            c.kind == "field added" and c.schema == change.schema and c.path == added
            for c in changes
        )
    return change.kind in WIDENING


def verdict(changes: list[SchemaChange]) -> str:
    """One line that says whether the (non-empty) changes widen or narrow the contract."""
    narrowing = [str(c) for c in changes if not is_widening(c, changes)]
    if not narrowing:
        return (
            "Widening: every change adds (a schema, a field, an enum value, a resource or a "
            "column)."
        )
    return (
        f"Narrowing: {len(narrowing)} change(s) remove or restrict what readers relied on: "
        f"{'; '.join(narrowing)}"
    )


def load_schema_set(spec: str) -> Schemas:
    """The schemas of a folder (its schemas/ folder, or the folder itself) or of schemas/ at a
    git ref."""
    _, files = source_files(spec, "schemas", SCHEMA_SUFFIX, "a JSON Schema", deep=False)
    if not files:
        raise InputError(
            f"{spec}: expected *{SCHEMA_SUFFIX} files in a folder or at a git ref, found none"
        )
    return {name: parse_input(data, f"{spec}: {name}") for name, data in files.items()}


def major(docs: Docs) -> str | None:
    """The documents' API major version (their `version` field), when they agree on one."""
    found = {
        doc.get("version") for doc in docs.values() if isinstance(doc, dict) and "version" in doc
    }
    return found.pop() if len(found) == 1 else None


def require_accepted(
    compat: Compat, accepted: str | None, old_major: str | None, new_major: str | None
) -> None:
    """Refuse a schema change unless it is accepted with a reason, or the API major version
    changed."""
    if (
        compat.clean
        or accepted
        or (old_major is not None and new_major is not None and old_major != new_major)
    ):
        return
    listed = "; ".join(map(str, compat.changes[:SHOWN_FAILURES]))
    broken = ", ".join(
        f"{n} problem(s) with {a}" for a, n in Counter(side for side, _ in compat.failures).items()
    )
    raise ReleaseError(
        "the schemas changed within API major version "
        f"{new_major}: {listed or 'no listed change'}{'; ' + broken if broken else ''}. "
        'Rerun with --accept-schema-change "REASON", or publish the change as a new API major '
        "version"
    )


def changelog_section(
    compat: Compat,
    accepted: str | None,
    previous: str,
    old_major: str | None,
    new_major: str | None,
) -> str:
    """The changelog's schema section for a release ('' when nothing changed): why, what, and who
    breaks."""
    if compat.clean:
        return ""
    lines = ["### Schema changes", ""]
    if old_major != new_major:
        lines += [f"API major version {old_major} -> {new_major}.", ""]
    if accepted:
        lines += [f"Schema change accepted: {accepted}", ""]
    lines += [f"Compared with the schemas of {previous}:", ""]
    lines += [f"- {change}" for change in compat.changes] or [
        "- (no change in the schemas themselves)"
    ]
    lines += ["", verdict(compat.changes), ""] if compat.changes else [""]
    for against, title in (
        (OLD_DOCS_NEW_SCHEMAS, f"The documents of {previous} against the new schemas"),
        (NEW_DOCS_OLD_SCHEMAS, f"The new documents against the schemas of {previous}"),
    ):
        found = [f"- {f}" for side, f in compat.failures if side == against]
        count = len(found)
        if count > SHOWN_FAILURES:
            found[SHOWN_FAILURES:] = [f"- ... and {count - SHOWN_FAILURES} more"]
        lines += (
            [f"{title}: {count} problem(s).", "", *found, ""] if found else [f"{title}: valid.", ""]
        )
    return "\n".join(lines)


def table_changes(old: bytes, new: bytes) -> list[SchemaChange]:
    """Resources added or removed, and columns appended, removed, reordered or retyped, between
    two descriptors."""

    def change(at: str, kind: str, detail: str = "") -> SchemaChange:
        return SchemaChange(DESCRIPTOR, f"/resources/{at}", kind, detail)

    before, after = _tables(old), _tables(new)
    changes = [change(n, "resource removed") for n in sorted(before.keys() - after)]
    changes += [change(n, "resource added") for n in sorted(after.keys() - before)]
    for name in sorted(before.keys() & after.keys()):
        was, now = before[name], after[name]
        if list(now)[: len(was)] != list(was):
            gone = [c for c in was if c not in now]
            changes += [change(f"{name}/{c}", "column removed", was[c]) for c in gone]
            if not gone:
                changes.append(change(name, "columns reordered", ", ".join(now)))
            continue
        changes += [change(f"{name}/{c}", "column appended", now[c]) for c in list(now)[len(was) :]]
        changes += [
            change(f"{name}/{c}", "column retyped", f"{was[c]} -> {now[c]}")
            for c in was
            if was[c] != now[c]
        ]
    return changes


def compare_releases(old: str, new: str, old_docs: Docs, new_docs: Docs) -> Compat:
    """check_compat of two folders' or refs' schemas, plus their descriptors' table changes (none
    when one lacks it)."""
    compat = check_compat(load_schema_set(old), load_schema_set(new), old_docs, new_docs)
    before, after = (
        source_files(spec, DESCRIPTOR, DESCRIPTOR, "a data package descriptor", deep=False)[1].get(
            DESCRIPTOR
        )
        for spec in (old, new)
    )
    if before is None or after is None:
        return compat
    return compat._replace(changes=sorted([*compat.changes, *table_changes(before, after)]))


def _tables(data: bytes) -> dict[str, dict[str, str]]:
    """Each resource's columns (name: type, in order) by resource name, from a descriptor's
    bytes; {} if unreadable."""
    try:
        desc = parse_json(data)
    except ValueError:
        return {}
    items = desc.get("resources") if isinstance(desc, dict) else None
    found = {}
    for resource in items if isinstance(items, list) else []:
        if isinstance(resource, dict) and isinstance(resource.get("name"), str):
            schema = resource.get("schema")
            fields = schema.get("fields") if isinstance(schema, dict) else None
            fields = fields if isinstance(fields, list) else []
            named = [f for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)]
            found[resource["name"]] = {f["name"]: str(f.get("type", "any")) for f in named}
    return found


def guard_release(
    previous: str, current: str, old_docs: Docs, new_docs: Docs, accepted: str | None
) -> str:
    """Compare the commit `current` with the previous tag: refuse an unaccepted change, else the
    changelog section."""
    compat = compare_releases(previous, current, old_docs, new_docs)
    old_major, new_major = major(old_docs), major(new_docs)
    require_accepted(compat, accepted, old_major, new_major)
    return changelog_section(compat, accepted, previous, old_major, new_major)
