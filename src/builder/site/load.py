"""Read the package the site is built from: small documents up front (strictly parsed), the rest at its page."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from builder.errors import InputError, Problem, pointer
from builder.files import Refused, read_file
from builder.layout import CSV, DATA, DESCRIPTOR, FRONTIER, INDEX, JSON, METADATA, SCHEMAS, is_hidden, place, schema_for
from builder.metadata import load_metadata
from builder.names import control_characters
from builder.strictjson import StrictJSONError, json_type, parse_json
from builder.validate.tree import scan

EXTRAS = ("CITATION.cff",)  # offered for download beside the data when present
UNREAD = {  # what no page reads: a frontier's points and its entries' values (the model documents have them)
    FRONTIER: frozenset({"frontier", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens"}),
    DESCRIPTOR: frozenset({"resources"}),  # the descriptor's list of files
}
INDEX_SHOWN = frozenset({  # an index row's fields that its workload's page and chart show (views.py's columns)
    "model", "slug", "gpu", "num_gpus", "wh_per_million_output_tokens", "median_itl_ms", "max_num_seqs",
    "gpu_power_watts_total", "wh_per_thousand_images", "wh_per_video", "batch_latency_s",
})  # fmt: skip
UNSOUND = f"{DATA}: expected a sound package (run builder validate), found "


@dataclass(frozen=True)
class Package:
    root: Path
    base_url: str
    files: list[str]  # every published file of data/, by path relative to data/, sorted
    docs: dict[str, Any]  # the small documents of data/ (all but model documents and CSVs), parsed, by the same path;
    # the planner lets go of a model list once catalogued, of a workload's index and frontier as its pages are made
    frontier_entries: dict[str, dict[str, tuple[int, str]]]  # by frontier path, out of its document in docs
    schemas: dict[str, bytes]  # every schemas/*.schema.json, by file name
    schema_docs: dict[str, Any]
    descriptor: bytes  # copied into the site as loaded
    descriptor_doc: dict[str, Any]
    extras: dict[str, bytes]  # files from EXTRAS that exist, by name
    repository: str  # metadata.toml's repository: the git URL to clone a release from

    def read(self, rel: str) -> tuple[bytes, Any]:
        """A file of data/ (its bytes, and for JSON its strictly parsed document), read now."""
        raw = _read(self.path(rel), f"{DATA}/{rel}")
        return raw, (document(f"{DATA}/{rel}", raw) if rel.endswith(JSON) else None)

    def path(self, rel: str) -> Path:
        """A file of data/, to be copied into the site part by part."""
        return self.root / DATA / rel


def is_small(rel: str) -> bool:
    """A JSON document the whole site needs (a list, an index, a frontier), not one model's document."""
    found = place(rel)
    return rel.endswith(JSON) and found is not None and found.slug is None


def small(rel: str, raw: bytes) -> dict[str, Any]:
    """A small document parsed strictly, without what no page reads; an index's rows keep only the fields shown."""
    name = rel.rsplit("/", 1)[-1]
    doc = document(f"{DATA}/{rel}", raw, drop=UNREAD.get(name, frozenset()))
    if name == INDEX and isinstance(rows := doc.get("rows"), list):  # half the memory of the whole rows
        doc["rows"] = [{k: v for k, v in r.items() if k in INDEX_SHOWN} if isinstance(r, dict) else r for r in rows]
    return doc


def frontier_entries(rel: str, frontier: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """A frontier's model entries, taken out of it, by slug: each with its place in the list and as its JSON text,
    a quarter of the memory of the parsed entry (a model page parses its own)."""
    models, found = frontier.pop("models", []), {}
    if not isinstance(models, list):
        _refuse(f"{DATA}/{rel}", "/models", "expected an array", models)
    for i, entry in enumerate(models):
        if not isinstance(entry, dict):
            _refuse(f"{DATA}/{rel}", f"/models/{i}", "expected an object", entry)
        if not isinstance(slug := entry.get("slug"), str):
            _refuse(f"{DATA}/{rel}", f"/models/{i}/slug", "expected a string", slug)
        found[slug] = (i, json.dumps(entry))
    return found


def _refuse(shown: str, where: str, expected: str, value: Any, why: str = UNSOUND) -> NoReturn:
    """One InputError: the file, the place, what was expected and the JSON type found there."""
    raise InputError(f"{why}{Problem(shown, where, f'{expected}, found {json_type(value)}')}")


def document(shown: str, raw: bytes, why: str = UNSOUND, drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A JSON object parsed strictly (keys in `drop` left out), or one InputError naming the file and the fault."""
    try:
        value = parse_json(raw, drop)
        checked = parse_json(raw) if drop and _may_hold_controls(raw) else value  # what was dropped is checked too
    except StrictJSONError as exc:
        raise InputError(f"{why}{exc.problems(shown)[0]}") from None
    if not isinstance(value, dict):
        _refuse(shown, "/", "expected an object", value, why)
    if (found := control_character(checked, ())) is not None:
        where, chars = found
        msg = f"expected no control or format characters, found {chars}"
        raise InputError(f"{why}{Problem(shown, pointer(where), msg)}")
    return value


def _may_hold_controls(raw: bytes) -> bool:
    """Whether JSON text may hold a control or format character: only as a \\u escape, a DEL or a non-ASCII byte."""
    return b"\\u" in raw or b"\x7f" in raw or not raw.isascii()


def control_character(value: Any, at: tuple) -> tuple[tuple, list[str]] | None:
    """The place of the first key or string of `value` holding Unicode control or format characters, and those."""
    if isinstance(value, str):
        return (at, chars) if (chars := control_characters(value)) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = control_character(key, at) if isinstance(key, str) else None
        if (found := found or control_character(item, (*at, key))) is not None:
            return found
    return None


def _read(path: Path, shown: str) -> bytes:
    """A regular file's bytes, never through a link, never a FIFO or a device."""
    try:
        return read_file(path)
    except Refused as exc:
        raise InputError(f"{shown}: {exc}") from exc


def load_package(root: Path) -> Package:
    """The package's listing and its small inputs; a missing, unsound or unparseable one is an InputError."""
    data_dir, schema_dir = root / DATA, root / SCHEMAS
    for folder in (data_dir, schema_dir):
        if not folder.is_dir():
            raise InputError(f"{folder}: expected the package's folder, found none (run from the repo root)")
    listing = scan(data_dir, DATA.as_posix())  # lstat only: links, FIFOs and oversized files are problems
    files = [rel for rel in listing.files if not is_hidden(rel)]
    found = [str(p) for p in listing.problems]
    found += [f"{DATA}/{rel}: a stray file" for rel in files if rel != CSV and schema_for(rel) is None]
    if found:
        raise InputError(f"{data_dir}: expected a sound package (run builder validate), found {'; '.join(found[:3])}")
    docs = {rel: small(rel, _read(data_dir / rel, f"{DATA}/{rel}")) for rel in files if is_small(rel)}
    entries = {rel: frontier_entries(rel, doc) for rel, doc in docs.items() if rel.rsplit("/", 1)[-1] == FRONTIER}
    schemas = {p.name: _read(p, f"{SCHEMAS}/{p.name}") for p in sorted(schema_dir.glob("*.schema.json"))}
    if not schemas:
        raise InputError(f"{schema_dir}: expected *.schema.json files, found none")
    schema_docs = {name: document(f"{SCHEMAS}/{name}", raw, "") for name, raw in schemas.items()}
    descriptor = _read(root / DESCRIPTOR, DESCRIPTOR)
    descriptor_doc = document(DESCRIPTOR, descriptor, "", UNREAD[DESCRIPTOR])
    extras = {name: _read(root / name, name) for name in EXTRAS if (root / name).is_file()}
    meta = load_metadata(root / METADATA)  # its schema holds base_url to https:// without a trailing slash
    return Package(root, meta["base_url"], files, docs, entries, schemas, schema_docs, descriptor, descriptor_doc,
                   extras, meta["repository"])  # fmt: skip


def indexes(pkg: Package) -> list[str]:
    """Every index document in the tree, the root workload's first, then the others by path."""
    found = [rel for rel, doc in pkg.docs.items() if rel.split("/")[-1] == INDEX and isinstance(doc.get("rows"), list)]
    return sorted(found, key=lambda rel: (rel.count("/"), rel))


def data_version(pkg: Package) -> str:
    """The package's data version: the descriptor's, which `builder validate` holds to the newest document date."""
    version = pkg.descriptor_doc.get("version")
    if not isinstance(version, str) or not version:
        raise InputError(f"{DESCRIPTOR}: /version: expected the package's data version, found {version!r}")
    return version


def licence_links(pkg: Package) -> list[tuple[str, str]]:
    """(name, https URL) of every licence the descriptor links to."""
    licences = pkg.descriptor_doc.get("licenses")
    return [
        (str(item.get("name") or item["path"]), item["path"])
        for item in (licences if isinstance(licences, list) else [])
        if isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"].startswith("https://")
    ]
