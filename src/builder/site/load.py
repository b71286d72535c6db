"""Read the committed package the site is built from: data/, schemas/, datapackage.json, metadata.toml."""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import InputError
from builder.files import Refused, read_file
from builder.layout import DATA, DESCRIPTOR, INDEX, METADATA, SCHEMAS
from builder.metadata import load_metadata
from builder.validate.tree import load_tree
from builder.write import newest_data_version

EXTRAS = ("CITATION.cff",)  # offered for download beside the data when present


@dataclass(frozen=True)
class Package:
    base_url: str
    data: dict[str, bytes]  # every file of data/, by path relative to data/
    docs: dict[str, Any]  # the parsed JSON files of data/, by the same path
    schemas: dict[str, bytes]  # every schemas/*.schema.json, by file name
    schema_docs: dict[str, Any]
    descriptor: bytes
    extras: dict[str, bytes]  # files from EXTRAS that exist, by name
    repository: str  # metadata.toml's repository: the git URL to clone a release from


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_json(shown: str, data: bytes) -> Any:
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError(f"{shown}: expected JSON, found {exc}") from exc


def _read(path: Path) -> bytes:
    """A regular file's bytes, never through a link, never a FIFO or a device."""
    try:
        return read_file(path)
    except Refused as exc:
        raise InputError(f"{path}: {exc}") from exc


def load_package(root: Path) -> Package:
    """Every input of the site, read once; a missing or unparseable input is an InputError."""
    data_dir, schema_dir = root / DATA, root / SCHEMAS
    for folder in (data_dir, schema_dir):
        if not folder.is_dir():
            raise InputError(f"{folder}: expected the package's folder, found none (run from the repo root)")
    tree = load_tree(data_dir)  # published files only, regular ones, parsed strictly; anything else is a problem
    if tree.problems or tree.stray:
        found = [str(problem) for problem in tree.problems] + [f"{DATA}/{rel}: a stray file" for rel in tree.stray]
        raise InputError(f"{data_dir}: expected a sound package (run builder validate), found {'; '.join(found[:3])}")
    data = dict(sorted(tree.raw.items()))
    docs = {rel: parse_json(f"{DATA}/{rel}", raw) for rel, raw in data.items() if rel.endswith(".json")}
    schemas = {p.name: _read(p) for p in sorted(schema_dir.glob("*.schema.json"))}  # a link is refused
    if not schemas:
        raise InputError(f"{schema_dir}: expected *.schema.json files, found none")
    schema_docs = {name: parse_json(f"{SCHEMAS}/{name}", raw) for name, raw in schemas.items()}
    descriptor = _read(root / DESCRIPTOR)
    parse_json(DESCRIPTOR, descriptor)
    extras = {name: _read(root / name) for name in EXTRAS if (root / name).is_file()}
    meta = load_metadata(root / METADATA)
    base_url = meta["base_url"]
    if not isinstance(base_url, str) or not base_url.startswith("https://"):
        raise InputError(f"{root / METADATA}: base_url: expected an https:// URL, found {base_url!r}")
    return Package(base_url.rstrip("/"), data, docs, schemas, schema_docs, descriptor, extras, meta["repository"])


def _by_depth(rels: list[str]) -> list[str]:
    """The root workload first, then the others by path."""
    return sorted(rels, key=lambda rel: (rel.count("/"), rel))


def _documents(pkg: Package, name: str, key: str) -> list[str]:
    """The documents called `name` whose `key` holds a list, the root workload's first."""
    found = [
        rel
        for rel, doc in pkg.docs.items()
        if posixpath.basename(rel) == name and isinstance(doc, dict) and isinstance(doc.get(key), list)
    ]
    return _by_depth(found)


def indexes(pkg: Package) -> list[str]:
    """Every index document in the tree, the root workload's first."""
    return _documents(pkg, INDEX, "rows")


def data_version(pkg: Package) -> str:
    """The package's data version: the newest data_version across its documents."""
    found = newest_data_version(pkg.docs.values())
    if found is None:
        raise InputError(f"{DATA}: expected documents with a data_version, found none")
    return found


def licence_links(pkg: Package) -> list[tuple[str, str]]:
    """(name, https URL) of every licence the descriptor links to."""
    descriptor = json.loads(pkg.descriptor)
    licences = descriptor.get("licenses") if isinstance(descriptor, dict) else None
    return [
        (str(item.get("name") or item["path"]), item["path"])
        for item in licences or []
        if isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"].startswith("https://")
    ]
