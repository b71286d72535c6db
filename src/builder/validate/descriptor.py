"""datapackage.json: every file listed with its size and hash, the rest as the builder generates it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from builder.errors import Problem, pointer, shown
from builder.jsonschemas import describe, load_schemas, validator
from builder.layout import CSV, DESCRIPTOR, DESCRIPTOR_SCHEMA, INDEX, MODEL_LIST, below
from builder.package import derived_parts, file_facts
from builder.strictjson import json_type
from builder.validate.tree import Tree

CURATED = ("name", "title", "description", "homepage", "licenses", "sources")
FACTS = ("bytes", "hash")  # their values are checked by check_descriptor, which names the file

Finding = tuple[str, str]  # (JSON pointer, message)


def check_package(
    tree: Tree, ok: dict[str, Any], curated: dict[str, Any] | None
) -> tuple[list[Problem], list[dict[str, Any]]]:
    """The descriptor's problems beyond sizes and hashes, and the generated tables frictionless may open."""
    desc = tree.descriptor
    if not isinstance(desc, dict):
        return [], []  # unreadable or not an object: reported when the tree was read
    version = max((doc["data_version"] for doc in ok.values()), default=desc.get("version"))
    files = tree.raw | {rel: b"" for rel in (INDEX, MODEL_LIST, CSV) if rel not in tree.raw}  # check_files: missing
    expected, found = derived_parts(files, tree.data_dir, version, load_schemas()), desc
    if curated is not None:
        expected |= curated
    else:
        found = {key: value for key, value in desc.items() if key not in CURATED}
    findings = compare(expected, found)
    tables = []  # none unless the resources are the generated ones: never a path, URL or profile a hand edit wrote
    if not any(at == "/resources" or at.startswith("/resources/") for at, _ in findings):
        tables = [
            {key: value for key, value in res.items() if key not in FACTS}
            for res in expected["resources"]
            if res.get("type") == "table" and below(res["path"], tree.data_dir) in tree.raw
        ]
    if not isinstance(desc.get("resources"), list):
        findings = [(at, msg) for at, msg in findings if at != "/resources"]  # check_descriptor reports it
    if curated is None:  # a release archive: also its JSON Schema, at the places not already reported
        from jsonschema.exceptions import best_match

        errors = [best_match(e.context) if e.context else e for e in validator(DESCRIPTOR_SCHEMA).iter_errors(desc)]
        reported = {at for at, _ in findings}
        findings += sorted({(at, describe(e)) for e in errors if (at := pointer(e.absolute_path)) not in reported})
    return [Problem(DESCRIPTOR, at, message) for at, message in findings], tables


def check_descriptor(tree: Tree) -> list[Problem]:
    """datapackage.json lists exactly the files that exist, with their sizes and hashes."""
    desc = tree.descriptor
    if not isinstance(desc, dict) or not isinstance(desc.get("resources"), list):
        found_none = Problem(DESCRIPTOR, "/resources", "expected a list of resources, found none")
        return [found_none] if desc is not None else []
    problems = []
    listed = set()
    for i, res in enumerate(desc["resources"]):
        path = res.get("path") if isinstance(res, dict) else None
        rel = below(path, tree.data_dir)
        if rel is None or rel not in tree.raw:
            msg = f"expected a file of {tree.data_dir}/, found {path!r} missing"
            problems.append(Problem(DESCRIPTOR, f"/resources/{i}/path", msg))
            continue
        if "hash" not in res:
            continue  # a tabular view of a document listed with its hash elsewhere
        listed.add(rel)
        facts = file_facts(tree.raw[rel])
        for key in ("bytes", "hash"):
            if res.get(key) != facts[key]:
                msg = f"expected {facts[key]} for {path}, found {res.get(key)}"
                problems.append(Problem(DESCRIPTOR, f"/resources/{i}/{key}", msg))
    for rel in sorted(set(tree.raw) - listed):
        problems.append(Problem(tree.shown(rel), "/", f"expected a resource with a hash in {DESCRIPTOR}, found none"))
    return problems


# Comparison.


def compare(want: Any, found: Any, at: str = "", source: str = "") -> list[Finding]:
    """Every difference between what is wanted (the builder's output, or `source`'s value) and what is found."""
    said = f" as in {source}" if source else ""
    if at == "/resources" and isinstance(want, list) and isinstance(found, list):
        return list(_compare_resources(want, found))
    if isinstance(want, dict) and isinstance(found, dict):
        out: list[Finding] = []
        for key, value in want.items():
            where = f"{at}{pointer([key])}"
            if key not in found:
                out.append((where, f"expected {shown(value)}{said}, found it missing"))
            else:
                out += compare(value, found[key], where, source)
        for key, value in found.items():
            if key not in want:
                out.append((f"{at}{pointer([key])}", f"expected no such key{said}, found {shown(value)}"))
        return out
    if isinstance(want, list) and isinstance(found, list):
        pairs = enumerate(zip(want, found, strict=False))
        out = [d for i, (w, f) in pairs for d in compare(w, f, f"{at}/{i}", source)]
        if len(want) != len(found):
            out.append((at or "/", f"expected {len(want)} items{said}, found {len(found)}"))
        return out
    if type(want) is not type(found) or want != found:  # 1 is not 1.0, nor true
        return [(at or "/", f"expected {shown(want, 200)}{said}, found {shown(found, 200)}")]  # a URL in full
    return []


def _compare_resources(want: list[dict[str, Any]], found: list[Any]) -> Iterator[Finding]:
    """Resources matched by name, so that one added or removed is one finding, not a shifted list."""
    wanted = {res["name"]: res for res in want}
    seen: dict[str, None] = {}  # in order of appearance
    for i, res in enumerate(found):
        at = f"/resources/{i}"
        name = res.get("name") if isinstance(res, dict) else None
        if not isinstance(res, dict):
            yield at, f"expected a resource object, found {json_type(res)}"
        elif name not in wanted:
            yield at, f"expected only the resources the builder writes, found one named {shown(name)}"
        elif name in seen:
            yield at, f"expected each resource once, found {shown(name)} again"
        else:
            seen[name] = None
            mine = wanted[name]
            theirs = {k: mine[k] if k in FACTS and k in mine else v for k, v in res.items()}
            yield from compare(mine, theirs, at)
    for name, res in wanted.items():
        if name not in seen:
            yield "/resources", f"expected a resource {shown(name)} for {res['path']}, found none"
    order, listed = [name for name in wanted if name in seen], list(seen)
    if listed != order:
        first = next(i for i, (a, b) in enumerate(zip(listed, order, strict=True)) if a != b)
        message = f"expected the builder's order ({shown(order[first])} before {shown(listed[first])}), found another"
        yield "/resources", message
