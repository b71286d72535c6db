"""datapackage.json: files listed with their sizes and hashes, the rest as built, and
frictionless on its tables."""

import re
from typing import Any

from builder.errors import Problem, Said, pointer, shown
from builder.jsonschemas import explain, load_schemas, validator
from builder.layout import DESCRIPTOR, DESCRIPTOR_SCHEMA, LOCK, PROFILE, below, place
from builder.package import derived_parts
from builder.pin import sha256
from builder.strictjson import json_type
from builder.validate.tree import Tree

CURATED_KEYS = ("name", "title", "description", "homepage", "licenses", "sources")
# a file's size and sha256: frictionless checks the listed ones against the file
FACTS = (
    "bytes",
    "hash",
)
# frictionless's error types, by the fact each checks
FACT_ERRORS = {
    "byte-count": "bytes",
    "hash-count": "hash",
}
# a source's version: the upstream commit its lock entry records
COMMIT = re.compile(r"[0-9a-f]{40}")
# a listed hash frictionless checks; it takes one with no digits (and a size of 0) as none listed
CHECKED_HASH = re.compile(r"sha256:[0-9a-f]{64}")

PROFILE_RULE = "a valid Data Package descriptor"  # what frictionless checks a descriptor against


def check_package(
    tree: Tree, ok: dict[str, Any], curated: dict[str, Any] | None
) -> tuple[list[Problem], dict[str, Any]]:
    """Every problem of the descriptor but its files' sizes and hashes, and what frictionless may
    open: the builder's own descriptor with the sizes and hashes listed (empty unless every resource
    is the builder's)."""
    desc = tree.descriptor
    if not isinstance(desc, dict):
        return [], {}  # unreadable or not an object: reported when the tree was read
    version = max((doc["data_version"] for doc in ok.values()), default=desc.get("version"))
    expected = derived_parts(tree.raw, tree.data_dir, version, load_schemas()) | (curated or {})
    resources = expected.pop("resources")  # compared by name, in resource_findings
    skipped = ("resources", *(CURATED_KEYS if curated is None else ()))
    found = {key: value for key, value in desc.items() if key not in skipped}
    said = dict(source_findings(desc.get("sources"))) | dict(
        source_findings((curated or {}).get("sources"), str(LOCK))
    )
    # one a source: the lock's null before its copy
    findings = sorted(said.items(), key=lambda f: (len(f[0]), f[0]))
    reported = {at for at, _ in findings}
    listed = listed_facts(resources, desc.get("resources"))
    compared = value_differences(expected, found) + resource_findings(
        resources, desc.get("resources"), tree, listed
    )
    findings += [(at, message) for at, message in compared if at not in reported]
    package: dict[str, Any] = {}  # never a path, URL or profile a hand edit wrote
    if not any(at == "/resources" or at.startswith("/resources/") for at, _ in findings):
        package = expected | {"resources": [res | listed.get(res["name"], {}) for res in resources]}
    # a release archive: also its JSON Schema, at the places not already reported
    if curated is None:
        from jsonschema.exceptions import best_match

        errors = [
            best_match(e.context) if e.context else e
            for e in validator(DESCRIPTOR_SCHEMA).iter_errors(desc)
        ]
        reported = {at for at, _ in findings}
        findings += sorted(
            {
                (at, Said(*explain(e)))
                for e in errors
                if (at := pointer(e.absolute_path)) not in reported
            }
        )
    return [
        Problem.of(DESCRIPTOR, at, "descriptor.value", message) for at, message in findings
    ], package


def source_findings(sources: Any, lock: str = "") -> list[tuple[str, Said]]:
    """A source without upstream's commit, one finding each; `lock`: the sources are those it
    derives (its commit null), not the descriptor's (a version empty or missing)."""
    out: list[tuple[str, Said]] = []
    for i, source in enumerate(sources if isinstance(sources, list) else []):
        version = source.get("version") if isinstance(source, dict) else ""
        if isinstance(source, dict) and not (
            isinstance(version, str) and COMMIT.fullmatch(version)
        ):
            of = f"upstream's commit of {shown(source.get('path'), 200)}, 40 lowercase hex digits"
            found = (
                f"none in {lock}"
                if lock
                else shown(version)
                if "version" in source
                else "it missing"
            )
            out.append(
                (f"/sources/{i}/version", Said(f"{of} (`builder fetch --commit SHA`)", found))
            )
    return out


def listed_facts(want: list[dict[str, Any]], listed: Any) -> dict[str, dict[str, Any]]:
    """By resource name, the sizes and hashes the descriptor lists in the builder's form, a positive
    size and a full sha256 (frictionless checks their values against the files); value_differences
    reports a fact in another form, a size of 0 or a hash without digits among them."""
    forms = {key: type(res[key]) for res in want for key in FACTS if key in res}
    found: dict[str, dict[str, Any]] = {}
    for res in listed if isinstance(listed, list) else []:
        if isinstance(res, dict) and isinstance(name := res.get("name"), str):
            facts = {
                key: res[key] for key in FACTS if key in res and type(res[key]) is forms.get(key)
            }
            if isinstance(facts.get("hash"), str) and not CHECKED_HASH.fullmatch(facts["hash"]):
                del facts["hash"]
            if isinstance(facts.get("bytes"), int) and facts["bytes"] <= 0:
                del facts["bytes"]
            found.setdefault(name, facts)
    return found


def resource_findings(
    want: list[dict[str, Any]], listed: Any, tree: Tree, facts: dict[str, dict[str, Any]]
) -> list[tuple[str, Said]]:
    """How the listed resources differ from the builder's, matched by name (one added is one
    finding): a missing file of the package's layout said once, by its path; sizes and hashes in the
    builder's form (`facts`) are frictionless's to check."""
    if not isinstance(listed, list):
        return [
            (
                "/resources",
                Said("a list of resources", "none" if listed is None else json_type(listed)),
            )
        ]
    wanted = {res["name"]: res for res in want}
    out: list[tuple[str, Said]] = []
    missing: list[tuple[str, Said]] = []
    seen: dict[Any, None] = {}  # in order of appearance
    for i, res in enumerate(listed):
        where, path = f"/resources/{i}", res.get("path") if isinstance(res, dict) else None
        said: list[tuple[str, Said]]
        if not isinstance(res, dict):
            said = [(where, Said("a resource object", json_type(res)))]
        elif (name := res.get("name")) not in wanted:
            said = [
                (where, Said("only the resources the builder writes", f"one named {shown(name)}"))
            ]
        elif name in seen:
            said = [(where, Said("each resource once", shown(name), " again"))]
        else:
            seen[name] = None
            said = value_differences(wanted[name] | facts.get(str(name), {}), res, where)
        # said instead
        if (rel := below(path, tree.data_dir)) is not None and place(rel) and rel not in tree.raw:
            missing.append(
                (f"{where}/path", Said(f"a file of {tree.data_dir}/", repr(path), " missing"))
            )
        else:
            out += said
    for name, res in wanted.items():
        if name not in seen:
            out.append(("/resources", Said(f"a resource {shown(name)} for {res['path']}", "none")))
    order, names = [name for name in wanted if name in seen], list(seen)
    if names != order:
        first = next(i for i, (a, b) in enumerate(zip(names, order, strict=True)) if a != b)
        found_order = f"{shown(order[first])} before {shown(names[first])}"
        out.append(("/resources", Said(f"the builder's order ({found_order})", "another")))
    return out + missing


def value_differences(
    want: Any, found: Any, at: str = "", source: str = ""
) -> list[tuple[str, Said]]:
    """Every difference between what is wanted (the builder's output, or `source`'s value) and
    what is found."""
    said = f" as in {source}" if source else ""
    out: list[tuple[str, Said]] = []  # (JSON pointer, message)
    if isinstance(want, dict) and isinstance(found, dict):
        for key in [*want, *(key for key in found if key not in want)]:
            mine, theirs, both = want.get(key), found.get(key), key in want and key in found
            if (
                both
                and type(mine) is type(theirs)
                and not isinstance(mine, (dict, list))
                and mine == theirs
            ):
                continue  # the same scalar, as most are: no pointer to build
            where = f"{at}{pointer([key])}"
            if key not in found:
                out.append((where, Said(f"{shown(mine)}{said}", "it missing")))
            elif key not in want:
                out.append((where, Said(f"no such key{said}", shown(theirs))))
            else:
                out += value_differences(mine, theirs, where, source)
        return out
    if isinstance(want, list) and isinstance(found, list):
        pairs = enumerate(zip(want, found, strict=False))
        out = [d for i, (w, f) in pairs for d in value_differences(w, f, f"{at}/{i}", source)]
        if len(want) != len(found):
            out.append((at or "/", Said(f"{len(want)} items{said}", str(len(found)))))
        return out
    if type(want) is not type(found) or want != found:  # 1 is not 1.0, nor true
        return [(at or "/", Said(f"{shown(want, 200)}{said}", shown(found, 200)))]  # a URL in full
    return []


def _line(text: object) -> str:
    """Frictionless's text on one line (its notes may hold a traceback's newlines)."""
    return " ".join(str(text).split())


def check_tables(tree: Tree, package: dict[str, Any]) -> list[Problem]:
    """Every problem frictionless finds in the package check_package hands it: the descriptor, each
    file's size and hash (a stale one said at its place in the descriptor), and the CSV tables."""
    from frictionless import FrictionlessException, Package, system

    resources = [as_checked(res) for res in package["resources"]]
    # the resources are the builder's own: check_package hands no others
    with system.use_context(trusted=False):
        described = {"$schema": PROFILE, **package, "resources": resources}
        # Making the package checks the descriptor; each resource is then checked (its own
        # descriptor, size, hash and rows) as Package.validate would, without the second check of
        # the whole descriptor Package.validate starts with.
        try:
            made = Package(described, basepath=str(tree.root))
        except FrictionlessException as exc:
            return [profile_problem(error) for error in exc.to_errors()]
        tasks = [task for res in made.resources for task in res.validate().tasks]
    by_name = {res["name"]: res for res in package["resources"]}
    place_of = {res["name"]: i for i, res in enumerate(tree.descriptor["resources"])}
    problems = []
    for task in tasks:
        res = by_name[task.name]
        for error in task.errors:  # a stale fact, or at a CSV row and column
            if (key := FACT_ERRORS.get(error.type)) is not None:
                raw = tree.raw[below(res["path"], tree.data_dir) or ""]
                want = f"sha256:{sha256(raw)}" if key == "hash" else len(raw)
                at, found = f"/resources/{place_of[task.name]}/{key}", res[key]
                said = f"{want} for {res['path']}"
                code = "descriptor.hash" if key == "hash" else "descriptor.bytes"
                problems.append(Problem.mismatch(DESCRIPTOR, at, code, said, str(found)))
                continue
            row, field = getattr(error, "row_number", None), getattr(error, "field_name", None)
            at = "/" if row is None else f"row {row}" + (f", column {field}" if field else "")
            message = _line(f"{error.type}: {error.note or error.message}")
            expected, found = table_sides(error, res.get("schema", {}))
            code = f"table.{error.type}"
            problems.append(Problem(res["path"], at, message, code, expected, found))
    return problems


def as_checked(res: dict[str, Any]) -> dict[str, Any]:
    """A resource as frictionless gets it: a whole JSON document as frictionless's own JSON resource
    type, which it would otherwise find by opening and parsing every document (the same checks,
    size and hash, each file read once; JSON Schema has checked the documents)."""
    return res if "type" in res or res["format"] != "json" else res | {"type": "json"}


def profile_problem(error: Any) -> Problem:
    """A fault frictionless finds in the descriptor against the Data Package profile."""
    return Problem.mismatch(
        DESCRIPTOR, "/", "descriptor.profile", PROFILE_RULE, _line(error.message)
    )


def table_sides(error: Any, schema: dict[str, Any]) -> tuple[str, str]:
    """What a frictionless table error expected and found, from its fields: a cell's field as the
    table schema defines it, and the cell; a repeated primary key, and its values; else the rule
    frictionless describes, and the row's cells (or its note)."""
    names = [field["name"] for field in schema.get("fields", [])]
    if (cell := getattr(error, "cell", None)) is not None and error.field_name in names:
        field = schema["fields"][names.index(error.field_name)]
        spec = {key: field[key] for key in ("type", "format", "constraints") if key in field}
        return f"{error.field_name} as the table schema defines it, {shown(spec, 200)}", shown(cell)
    cells = getattr(error, "cells", None)
    if error.type == "primary-key" and cells is not None and "primaryKey" in schema:
        key = schema["primaryKey"]
        values = {name: cell for name, cell in zip(names, cells, strict=False) if name in key}
        return f"each primary key ({', '.join(key)}) once", f"{shown(values, 200)} again"
    found = shown(cells, 200) if cells is not None else _line(error.note or error.message)
    return _line(error.description), found
