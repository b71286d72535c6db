"""Read the package the site is built from: each small document once, up front and strictly parsed,
its head and its array of rows or entries kept apart; a model document at its page."""

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from builder.csvview import CsvKey, Energy
from builder.errors import InputError, Problem, pointer
from builder.files import Refused, read_file
from builder.layout import (
    CSV,
    DATA,
    DESCRIPTOR,
    FRONTIER,
    INDEX,
    JSON,
    METADATA,
    PUBLISHED_SCHEMAS,
    SCHEMAS,
    is_hidden,
    place,
    schema_for,
)
from builder.metadata import load_metadata
from builder.names import control_characters
from builder.site.responses import read as read_responses
from builder.strictjson import StrictJSONError, decode_json, json_type, parse_json
from builder.validate.tree import scan

OFFERED = ("CITATION.cff",)  # offered for download beside the data when present
# the changelog page's text, and the dataset card, when present
OPTIONAL = (
    "CHANGELOG.md",
    "croissant.json",
)
# what no page reads: a frontier's points and its entries' values (the model documents have them)
UNREAD = {
    FRONTIER: frozenset(
        {"frontier", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens"}
    ),
    DESCRIPTOR: frozenset({"resources"}),  # the descriptor's list of files
}
INDEX_SHOWN = frozenset(
    {  # an index row's fields that its workload's page and chart show (views.py's columns)
        "model",
        "slug",
        "gpu",
        "num_gpus",
        "wh_per_million_output_tokens",
        "median_itl_ms",
        "max_num_seqs",
        "gpu_power_watts_total",
        "wh_per_thousand_images",
        "wh_per_video",
        "batch_latency_s",
        "row_id",
        "repeat",
        "wh_per_video_second",
        "inference_steps",
        "width",
        "height",
        "num_frames",
        "fps",
    }
)
PARTS = ("rows", "models")  # the arrays of small documents: index rows, list and frontier entries
UNSOUND = f"{DATA}: expected a sound package (run builder validate), found "


@dataclass(frozen=True)
class Package:
    root: Path
    base_url: str
    files: list[str]  # every published file of data/, by path relative to data/, sorted
    # the small documents of data/ (all but model documents and CSVs), by the same path, without
    # their array of rows or entries (PARTS): that is in parts
    heads: dict[str, dict[str, Any]]
    parts: dict[str, list[Any]]  # each small document's array of rows or entries, by the same path
    # the small documents that are index documents with rows, the root workload's first
    indexes: list[str]
    gpus: list[str]  # every GPU type an index row or a model list names, sorted
    versions: set[str]  # the data versions of the small documents
    schemas: dict[str, bytes]  # every schemas/*.schema.json, by file name
    schema_docs: dict[str, Any]
    descriptor: bytes  # copied into the site as loaded
    descriptor_doc: dict[str, Any]
    extras: dict[str, bytes]  # files from OFFERED that exist, by name
    repository: str  # metadata.toml's repository: the git URL to clone a release from
    # energy per response, from configurations.csv
    responses: dict[CsvKey, Energy] = field(default_factory=dict)
    changelog: bytes | None = None  # CHANGELOG.md, when the repository has one
    croissant: bytes | None = (
        None  # croissant.json, the dataset card served at the site root, when there is one
    )

    def read(self, rel: str) -> dict[str, Any]:
        """A JSON document of data/, read and strictly parsed now."""
        return document(f"{DATA}/{rel}", _read(self.path(rel), f"{DATA}/{rel}"))

    def path(self, rel: str) -> Path:
        """A file of data/, to be copied into the site part by part."""
        return self.root / DATA / rel


def is_small(rel: str) -> bool:
    """A JSON document the whole site needs (a list, an index, a frontier), not one model's
    document."""
    found = place(rel)
    return rel.endswith(JSON) and found is not None and found.slug is None


def small(rel: str, raw: bytes) -> dict[str, Any]:
    """A small document parsed strictly, without what no page reads; an index's rows keep only
    the fields shown."""
    name, text = rel.rsplit("/", 1)[-1], _text(f"{DATA}/{rel}", raw)
    del raw  # the bytes go before the parse: the text alone is parsed
    doc = document(f"{DATA}/{rel}", text, drop=UNREAD.get(name, frozenset()))
    # half the memory of the whole rows
    if name == INDEX and isinstance(rows := doc.get("rows"), list):
        doc["rows"] = [
            {k: v for k, v in r.items() if k in INDEX_SHOWN} if isinstance(r, dict) else r
            for r in rows
        ]
    return doc


def parts(rel: str, doc: dict[str, Any]) -> list[Any] | None:
    """A small document's array of rows or entries (PARTS), None when it has none; a frontier's
    entries must be objects with a slug (a model page finds its own by it)."""
    key = next((key for key in PARTS if key in doc), None)
    if key is None:
        return None
    if not isinstance(items := doc[key], list):
        _refuse(f"{DATA}/{rel}", f"/{key}", "an array", items)
    frontier = rel.rsplit("/", 1)[-1] == FRONTIER
    for i, item in enumerate(items if frontier else ()):
        if not isinstance(item, dict):
            _refuse(f"{DATA}/{rel}", f"/{key}/{i}", "an object", item)
        if not isinstance(item.get("slug"), str):
            _refuse(f"{DATA}/{rel}", f"/{key}/{i}/slug", "a string", item.get("slug"))
    return items


def _refuse(shown: str, where: str, expected: str, value: Any, why: str = UNSOUND) -> NoReturn:
    """One InputError: the file, the place, what was expected and the JSON type found there."""
    raise InputError(
        f"{why}{Problem.mismatch(shown, where, 'site.type', expected, json_type(value))}"
    )


def _text(shown: str, raw: bytes, why: str = UNSOUND) -> str:
    try:
        return decode_json(raw)
    except StrictJSONError as exc:
        raise InputError(f"{why}{exc.problems(shown)[0]}") from None


def document(
    shown: str, raw: bytes | str, why: str = UNSOUND, drop: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A JSON object parsed strictly (keys in `drop` left out), or one InputError naming the file
    and the fault."""
    text = raw if isinstance(raw, str) else _text(shown, raw, why)
    del raw  # the bytes go before the parse (when the caller holds none): the text alone is parsed
    try:
        value = parse_json(text, drop)
        # what was dropped is checked too
        checked = parse_json(text) if drop and _may_hold_controls(text) else value
    except StrictJSONError as exc:
        raise InputError(f"{why}{exc.problems(shown)[0]}") from None
    if not isinstance(value, dict):
        _refuse(shown, "/", "an object", value, why)
    if (found := control_character(checked, ())) is not None:
        where, chars = found
        problem = Problem.mismatch(
            shown, pointer(where), "json.control", "no control or format characters", str(chars)
        )
        raise InputError(f"{why}{problem}")
    return value


def _may_hold_controls(text: str) -> bool:
    """Whether JSON text may hold a control or format character: only as a \\u escape, a DEL or a
    non-ASCII one."""
    return "\\u" in text or "\x7f" in text or not text.isascii()


def control_character(value: Any, at: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[str]] | None:
    """The place of the first key or string of `value` holding Unicode control or format
    characters, and those."""
    if isinstance(value, str):
        return (at, chars) if (chars := control_characters(value)) else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
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
    """The package's listing and its small inputs; a missing, unsound or unparseable one is an
    InputError."""
    data_dir, schema_dir = root / DATA, root / SCHEMAS
    for folder in (data_dir, schema_dir):
        if not folder.is_dir():
            raise InputError(
                f"{folder}: expected the package's folder, found none (run from the repo root)"
            )
    # lstat only: links, FIFOs and oversized files are problems
    listing = scan(data_dir, DATA.as_posix())
    files = [rel for rel in listing.files if not is_hidden(rel)]
    found = [str(p) for p in listing.problems]
    found += [
        f"{DATA}/{rel}: a stray file" for rel in files if rel != CSV and schema_for(rel) is None
    ]
    if found:
        raise InputError(
            f"{data_dir}: expected a sound package (run builder validate), found "
            f"{'; '.join(found[:3])}"
        )
    heads, kept, indexed, gpus, versions = {}, {}, [], set(), set()
    for rel in filter(is_small, files):  # each parsed in turn: its head and its rows or entries
        doc = small(rel, _read(data_dir / rel, f"{DATA}/{rel}"))
        gpus |= set(_gpus(doc))
        if doc.get("data_version"):
            versions.add(str(doc["data_version"]))
        if (items := parts(rel, doc)) is not None:
            kept[rel] = items
        heads[rel] = {key: value for key, value in doc.items() if key not in PARTS}
        if rel.rsplit("/", 1)[-1] == INDEX and "rows" in doc:
            indexed.append(rel)
        del doc
    schemas = {
        name: _read(schema_dir / name, f"{SCHEMAS}/{name}")
        for name in sorted(PUBLISHED_SCHEMAS)
        if os.path.lexists(schema_dir / name)
    }
    if not schemas:
        raise InputError(f"{schema_dir}: expected *.schema.json files, found none")
    schema_docs = {name: document(f"{SCHEMAS}/{name}", raw, "") for name, raw in schemas.items()}
    descriptor = _read(root / DESCRIPTOR, DESCRIPTOR)
    descriptor_doc = document(DESCRIPTOR, descriptor, "", UNREAD[DESCRIPTOR])
    extras = {name: _read(root / name, name) for name in OFFERED if (root / name).is_file()}
    responses = (
        {}
        if CSV not in files
        else read_responses(_read(data_dir / CSV, f"{DATA}/{CSV}"), f"{DATA}/{CSV}")
    )
    changelog, croissant = (
        _read(root / name, name) if (root / name).is_file() else None for name in OPTIONAL
    )
    # its schema holds base_url to https:// without a trailing slash
    meta = load_metadata(root / METADATA)
    # the root workload's first, then the others by path
    indexed.sort(key=lambda rel: (rel.count("/"), rel))
    return Package(
        root,
        meta["base_url"],
        files,
        heads,
        kept,
        indexed,
        sorted(gpus),
        versions,
        schemas,
        schema_docs,
        descriptor,
        descriptor_doc,
        extras,
        meta["repository"],
        responses,
        changelog,
        croissant,
    )


def _gpus(doc: dict[str, Any]) -> Iterator[str]:
    """The GPU types a document names: its index rows' and its model list entries'."""
    for row in doc.get("rows", []) if isinstance(doc.get("rows"), list) else []:
        if isinstance(row, dict) and "gpu" in row:
            yield str(row["gpu"])
    for entry in doc.get("models", []) if isinstance(doc.get("models"), list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("gpus"), list):
            yield from (str(gpu) for gpu in entry["gpus"])


def data_version(pkg: Package) -> str:
    """The package's data version: the descriptor's, which `builder validate` holds to the newest
    document date."""
    version = pkg.descriptor_doc.get("version")
    if not isinstance(version, str) or not version:
        raise InputError(
            f"{DESCRIPTOR}: /version: expected the package's data version, found {version!r}"
        )
    return version


def licence_links(pkg: Package) -> list[tuple[str, str]]:
    """(name, https URL) of every licence the descriptor links to."""
    licences = pkg.descriptor_doc.get("licenses")
    return [
        (str(item.get("name") or item["path"]), item["path"])
        for item in (licences if isinstance(licences, list) else [])
        if isinstance(item, dict)
        and isinstance(item.get("path"), str)
        and item["path"].startswith("https://")
    ]
