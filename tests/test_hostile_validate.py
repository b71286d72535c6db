# ruff: noqa: E501  (a table of cases, one per line: name, hostile input, expected message)
"""The hostile corpus of `builder validate` and `builder drift`: inputs made to fool the validator.

Classes, each a list of named cases: strict parsing (PARSE), file types (FILES, run through both
validate and drift), the descriptor in full (DESCRIPTOR), where the descriptor points (REFS),
physics on non-finite numbers (unit level), and a release archive (no metadata.toml, no lock).

Every CLI case holds the command to tests/hostile.py: exit 1, a message naming the file and the
JSON pointer, no traceback, and the whole repo copy, hashed before and after, identical. A data
file edited on purpose has its size and hash restamped in datapackage.json, so that the edit is
the only fault (a careless edit would be caught by its hash alone). An audit hook records every
file opened and every connection made while a command runs: the hostile entries are never opened.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import rules
from builder.errors import Finding, Said
from builder.strictjson import parse_json
from builder.validate import tree as tree_module
from builder.validate.committed import provenance
from builder.validate.descriptor import check_package
from builder.validate.documents import check_configuration
from builder.validate.tree import Tree
from helpers import REPO, forget_schemas, slow_after
from hostile import assert_refused, run_cli, tree_digest
from rules import rule_problems

Q8 = "data/models/qwen-3-8b.json"
INDEX = "data/index.json"
MODELS = "data/models.json"
DESC = "datapackage.json"
MODEL_DOCS = sorted(
    p.relative_to(REPO).as_posix() for p in (REPO / "data" / "models").glob("*.json")
)
GIB = 1 << 30
T2I = 72  # the resource of data/workloads/text-to-image/configurations.csv


# Watching what a command opens and where it connects.

_SEEN: list[tuple[str, Any]] = []
_WATCHING: list[bool] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _WATCHING and event in (
        "open",
        "socket.connect",
        "socket.getaddrinfo",
        "http.client.connect",
    ):
        _SEEN.append((event, args))


sys.addaudithook(_audit)


@contextmanager
def watching() -> Iterator[list[tuple[str, Any]]]:
    """Every `open` and network event while the block runs."""
    _SEEN.clear()
    _WATCHING.append(True)
    try:
        yield _SEEN
    finally:
        _WATCHING.clear()


def opened(events: list[tuple[str, Any]]) -> set[str]:
    found = set()
    for event, args in events:
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.fsdecode(args[0])
            found |= {os.path.abspath(path), os.path.realpath(path)}
    return found


def network(events: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [(event, args) for event, args in events if event != "open"]


# Hostile edits.


def restamp(root: Path) -> None:
    """Bring every size and hash in datapackage.json up to date with the files, as a careful
    forger would."""
    path = root / DESC
    desc = json.loads(path.read_bytes())
    for res in desc["resources"]:
        target = root / res["path"]
        if "hash" in res and target.is_file() and not target.is_symlink():
            data = target.read_bytes()
            res["bytes"], res["hash"] = len(data), f"sha256:{hashlib.sha256(data).hexdigest()}"
    path.write_text(json.dumps(desc, indent=2, ensure_ascii=False) + "\n")


def raw(rel: str, change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / rel).write_bytes(change((root / rel).read_bytes()))
        if rel != DESC:
            restamp(root)

    return apply


def sub(rel: str, old: bytes, new: bytes) -> Callable[[Path], None]:
    def change(data: bytes) -> bytes:
        assert old in data, old
        return data.replace(old, new, 1)

    return raw(rel, change)


def whole(rel: str, text: str) -> Callable[[Path], None]:
    return raw(rel, lambda _: text.encode())


def every_model_doc_null(root: Path) -> None:
    for rel in MODEL_DOCS:
        (root / rel).write_text("null\n")
    restamp(root)


def descriptor(change: Callable[[dict], Any]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        desc = json.loads((root / DESC).read_bytes())
        change(desc)
        (root / DESC).write_text(json.dumps(desc, indent=2, ensure_ascii=False) + "\n")

    return apply


def res(i: int, *path: str | int, value: Any = None, drop: bool = False) -> Callable[[dict], None]:
    """Set (or drop) desc["resources"][i][path...]."""

    def change(desc: dict) -> None:
        node = desc["resources"][i]
        for part in path[:-1]:
            node = node[part]
        if drop:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return change


def top(key: str, value: Any) -> Callable[[dict], None]:
    return lambda desc: desc.__setitem__(key, value)


def drop_named(name: str) -> Callable[[dict], None]:
    return lambda desc: desc.__setitem__(
        "resources", [r for r in desc["resources"] if r["name"] != name]
    )


def swap_first_two(desc: dict) -> None:
    desc["resources"][0], desc["resources"][1] = desc["resources"][1], desc["resources"][0]


def also_first(key: bytes, wrong: bytes) -> Callable[[Path], None]:
    """A key given twice in Q8: first a wrong value, then the committed one (which Python keeps)."""
    return lambda root: sub(Q8, key, wrong + b", " + key)(root)


NOT_AN_OBJECT = {"null": ("null", "null"), "array": ("[]", "an array"), "number": ("0", "a number")}
NOT_AN_OBJECT["string"] = ('"leadgreen"', "a string")
ENC = "found undecodable bytes"
FINITE = "expected a finite number, found"
WIDE = "expected an integer within +/-2^53, found"

PARSE = [
    (
        "duplicate-key-first-wrong-second-right",
        also_first(b'"architecture": "Dense Transformer"', b'"architecture": "Mixture of Experts"'),
        f'{Q8}: /: expected each key once, found "architecture" again',
    ),
    (
        "duplicate-key-nested",
        sub(Q8, b'"num_gpus": 1,', b'"num_gpus": 2, "num_gpus": 1,'),
        f'{Q8}: /configurations/0: expected each key once, found "num_gpus" again',
    ),
    (
        "duplicate-key-in-descriptor",
        sub(DESC, b'"name": "leadgreen-data"', b'"name": "other", "name": "leadgreen-data"'),
        f'{DESC}: /: expected each key once, found "name" again',
    ),
    (
        "nan",
        sub(Q8, b'"p99_itl_ms": 16.7', b'"p99_itl_ms": NaN'),
        f"{Q8}: /configurations/0/p99_itl_ms: {FINITE} NaN",
    ),
    (
        "infinity",
        sub(Q8, b'"tokens_per_second": 1501.7', b'"tokens_per_second": Infinity'),
        f"{Q8}: /configurations/0/tokens_per_second: {FINITE} Infinity",
    ),
    (
        "minus-infinity",
        sub(Q8, b'"median_itl_ms": 5.0', b'"median_itl_ms": -Infinity'),
        f"{Q8}: /configurations/0/median_itl_ms: {FINITE} -Infinity",
    ),
    (
        "1e999",
        sub(Q8, b'"p99_itl_ms": 16.7', b'"p99_itl_ms": 1e999'),
        f"{Q8}: /configurations/0/p99_itl_ms: {FINITE} 1e999",
    ),
    (
        "minus-1e999",
        sub(Q8, b'"joules_per_output_token": 0.4303951', b'"joules_per_output_token": -1e999'),
        f"{Q8}: /configurations/0/joules_per_output_token: {FINITE} -1e999",
    ),
    (
        "nan-in-descriptor",
        sub(DESC, b'"bytes": 286127', b'"bytes": NaN'),
        f"{DESC}: /sources/0/bytes: {FINITE} NaN",
    ),
    (
        "bom",
        raw(Q8, lambda d: b"\xef\xbb\xbf" + d),
        f"{Q8}: byte 0: expected UTF-8 JSON without a byte order mark, found U+FEFF",
    ),
    (
        "bom-on-descriptor",
        raw(DESC, lambda d: b"\xef\xbb\xbf" + d),
        f"{DESC}: byte 0: expected UTF-8 JSON without a byte order mark",
    ),
    ("latin-1", sub(Q8, b'"name": "Qwen 3 8B"', b'"name": "Qwen 3 8B \xe9"'), f"{Q8}: byte "),
    (
        "latin-1-in-index",
        sub(INDEX, b'"unit": "Wh per million', b'"unit": "Wh \xb5 per million'),
        f"{INDEX}: byte ",
    ),
    (
        "lone-surrogate",
        sub(Q8, b'"name": "Qwen 3 8B"', b'"name": "Qwen 3 8B \\ud800"'),
        f"{Q8}: /name: expected text, found a lone surrogate",
    ),
    (
        "integer-2^53+1",
        sub(Q8, b'"avg_output_tokens": 639', b'"avg_output_tokens": 9007199254740993'),
        f"{Q8}: /configurations/0/avg_output_tokens: {WIDE} 9007199254740993",
    ),
    (
        "integer-minus-2^53+1",
        sub(Q8, b'"gpu_power_watts_total": 646', b'"gpu_power_watts_total": -9007199254740993'),
        f"{Q8}: /configurations/0/gpu_power_watts_total: {WIDE} -9007199254740993",
    ),
    (
        "integer-5001-digits",
        sub(Q8, b'"avg_output_tokens": 639', b'"avg_output_tokens": 1' + b"0" * 5000),
        f"{Q8}: /configurations/0/avg_output_tokens: {WIDE} 10000000000000000000...0000000000 "
        f"(5001 characters)",
    ),
    *[
        (
            f"top-level-{kind}-{name}",
            whole(rel, text + "\n"),
            f"{rel}: /: expected an object, found {found}",
        )
        for kind, (text, found) in NOT_AN_OBJECT.items()
        for name, rel in (
            ("model", Q8),
            ("index", INDEX),
            ("model-list", MODELS),
            ("descriptor", DESC),
        )
    ],
    (
        "every-model-document-null",
        every_model_doc_null,
        tuple(f"{rel}: /: expected an object, found null" for rel in MODEL_DOCS),
    ),
]


@dataclass(frozen=True)
class Entry:
    """A file system entry put where a published file or folder goes."""

    apply: Callable[[Path], list[str]]  # returns the hostile paths, which must never be opened
    names: str | tuple[str, ...]
    huge: str | None = (
        None  # a sparse file created after the first digest (hashing it would read 1 GiB)
    )


def symlink(rel: str, target: str | None = None) -> Callable[[Path], list[str]]:
    """rel becomes a symlink: to `target`, or to a copy of its committed self outside data/."""

    def apply(root: Path) -> list[str]:
        path = root / rel
        if target is None:
            outside = root / "outside" / path.name
            outside.parent.mkdir(exist_ok=True)
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, outside)
            (shutil.rmtree if path.is_dir() else Path.unlink)(path)
            path.symlink_to(outside, target_is_directory=outside.is_dir())
            return [str(path), str(outside)]
        path.symlink_to(target)
        return [str(path), target]

    return apply


def dev_zero_as(rel: str) -> Callable[[Path], list[str]]:
    def apply(root: Path) -> list[str]:
        (root / rel).unlink()
        return symlink(rel, "/dev/zero")(root)

    return apply


def fifo(rel: str) -> Callable[[Path], list[str]]:
    def apply(root: Path) -> list[str]:
        (root / rel).unlink(missing_ok=True)
        os.mkfifo(root / rel)
        return [str(root / rel)]

    return apply


def unix_socket(rel: str) -> Callable[[Path], list[str]]:
    def apply(root: Path) -> list[str]:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(rel)  # relative: the working directory is the repo copy (sun_path is short)
        return [str(root / rel)]

    return apply


NOT_REGULAR = "/: expected a regular file, found"
FILES = [
    (
        "symlink-to-dev-zero",
        Entry(
            symlink("data/models/zero.json", "/dev/zero"),
            f"data/models/zero.json: {NOT_REGULAR} a symbolic link",
        ),
    ),
    (
        "symlink-to-dev-zero-as-csv",
        Entry(
            dev_zero_as("data/configurations.csv"),
            f"data/configurations.csv: {NOT_REGULAR} a symbolic link",
        ),
    ),
    ("symlink-to-a-valid-document", Entry(symlink(Q8), f"{Q8}: {NOT_REGULAR} a symbolic link")),
    (
        "symlinked-models-folder",
        Entry(symlink("data/models"), f"data/models: {NOT_REGULAR} a symbolic link"),
    ),
    (
        "symlinked-data-folder",
        Entry(symlink("data"), "data: /: expected a folder, found a symbolic link"),
    ),
    ("symlinked-descriptor", Entry(symlink(DESC), f"{DESC}: {NOT_REGULAR} a symbolic link")),
    (
        "fifo-stray",
        Entry(fifo("data/models/pipe.json"), f"data/models/pipe.json: {NOT_REGULAR} a FIFO"),
    ),
    ("fifo-as-index", Entry(fifo(INDEX), f"{INDEX}: {NOT_REGULAR} a FIFO")),
    ("fifo-as-descriptor", Entry(fifo(DESC), f"{DESC}: {NOT_REGULAR} a FIFO")),
    (
        "socket",
        Entry(
            unix_socket("data/models/sock.json"), f"data/models/sock.json: {NOT_REGULAR} a socket"
        ),
    ),
    (
        "sparse-1-gib-stray",
        Entry(
            lambda root: [],
            "data/models/big.json: /: expected a file of at most 64 MiB, found 1073741824 bytes "
            "(not read)",
            huge="data/models/big.json",
        ),
    ),
]


DESCRIPTOR = [
    (
        "licence-name",
        descriptor(lambda d: d["licenses"][0].update(name="CC0-1.0")),
        f'{DESC}: /licenses/0/name: expected "Apache-2.0", found "CC0-1.0"',
    ),
    (
        "licence-text",
        descriptor(lambda d: d["licenses"][0].update(path="https://example.org/free")),
        f'{DESC}: /licenses/0/path: expected "https://www.apache.org/licenses/LICENSE-2.0"',
    ),
    (
        "licence-added",
        descriptor(lambda d: d["licenses"].append({"name": "CC0-1.0"})),
        f"{DESC}: /licenses: expected 1 items, found 2",
    ),
    (
        "sources-sha256",
        descriptor(lambda d: d["sources"][0].update(sha256="0" * 64)),
        f"{DESC}: /sources/0/sha256: expected "
        f'"24e25d46cdd6a9d9d58f8de63928d6f42601f9966d22e4d7a478e5f11f89a7ec", found "{"0" * 64}"',
    ),
    (
        "sources-url",
        descriptor(lambda d: d["sources"][0].update(path="https://example.org/other.json")),
        f'{DESC}: /sources/0/path: expected "https://raw.githubusercontent.com/',
    ),
    (
        "sources-removed",
        descriptor(top("sources", [])),
        f"{DESC}: /sources: expected 8 items, found 0",
    ),
    (
        "sources-per-model-files-sha256",
        descriptor(lambda d: d["sources"][7].update(sha256="0" * 64)),
        f"{DESC}: /sources/7/sha256: expected "
        f'"80b4dbf57a990f8373e0cf948dd5c4c48fad9a8d90f2c3492c5007f6b4629c6f", found "{"0" * 64}"',
    ),
    (
        "title",
        descriptor(top("title", "Energy figures")),
        f'{DESC}: /title: expected "LeadGreen: GPU energy',
    ),
    (
        "name",
        descriptor(top("name", "other")),
        f'{DESC}: /name: expected "leadgreen-data", found "other"',
    ),
    (
        "description",
        descriptor(top("description", "Every figure is exact.")),
        f'{DESC}: /description: expected "GPU energy only',
    ),
    (
        "homepage",
        descriptor(top("homepage", "https://example.org")),
        f'{DESC}: /homepage: expected "https://leadgreen.ai", found "https://example.org"',
    ),
    (
        "version",
        descriptor(top("version", "2030-01-01")),
        f'{DESC}: /version: expected "2026-11-29", found "2030-01-01"',
    ),
    (
        "profile",
        descriptor(top("$schema", "https://example.org/profile.json")),
        f'{DESC}: /$schema: expected "https://datapackage.org/profiles/2.0/datapackage.json"',
    ),
    (
        "extra-key",
        descriptor(top("x-note", "trust me")),
        f'{DESC}: /x-note: expected no such key, found "trust me"',
    ),
    (
        "field-type-any",
        descriptor(res(T2I, "schema", "fields", 13, "type", value="any")),
        f'{DESC}: /resources/{T2I}/schema/fields/13/type: expected "number", found "any"',
    ),
    (
        "csv-field-type-any",
        descriptor(res(0, "schema", "fields", 12, "type", value="any")),
        f'{DESC}: /resources/0/schema/fields/12/type: expected "number", found "any"',
    ),
    (
        "constraint-dropped",
        descriptor(res(0, "schema", "fields", 5, "constraints", "minimum", drop=True)),
        f"{DESC}: /resources/0/schema/fields/5/constraints/minimum: expected 1, found it missing",
    ),
    (
        "constraint-as-float",
        descriptor(res(0, "schema", "fields", 5, "constraints", "minimum", value=1.0)),
        f"{DESC}: /resources/0/schema/fields/5/constraints/minimum: expected 1, found 1.0",
    ),
    (
        "field-removed",
        descriptor(lambda d: d["resources"][0]["schema"]["fields"].pop()),
        f"{DESC}: /resources/0/schema/fields: expected 30 items, found 29",
    ),
    (
        "primary-key-removed",
        descriptor(res(0, "schema", "primaryKey", drop=True)),
        f'{DESC}: /resources/0/schema/primaryKey: expected ["workload", "slug", "row_id", '
        f'"repeat"], found it missing',
    ),
    (
        "primary-key-narrowed",
        descriptor(res(T2I, "schema", "primaryKey", value=["slug"])),
        f"{DESC}: /resources/{T2I}/schema/primaryKey: expected 3 items, found 1",
    ),
    (
        "foreign-keys-added",
        descriptor(res(0, "schema", "foreignKeys", value=[])),
        f"{DESC}: /resources/0/schema/foreignKeys: expected no such key, found []",
    ),
    (
        "document-as-table",
        descriptor(res(2, "type", value="table")),
        f'{DESC}: /resources/2/type: expected no such key, found "table"',
    ),
    (
        "document-dialect-added",
        descriptor(res(3, "dialect", value={"json": {"property": "models"}})),
        f'{DESC}: /resources/3/dialect: expected no such key, found {{"json": {{"property": '
        f'"models"}}}}',
    ),
    (
        "document-table-schema-added",
        descriptor(res(2, "schema", value={"fields": []})),
        f'{DESC}: /resources/2/schema: expected no such key, found {{"fields": []}}',
    ),
    (
        "csv-dialect-added",
        descriptor(res(0, "dialect", value={"delimiter": ";"})),
        f'{DESC}: /resources/0/dialect: expected no such key, found {{"delimiter": ";"}}',
    ),
    (
        "extra-resource",
        descriptor(
            lambda d: d["resources"].append(
                {"name": "notes", "path": "data/index.json", "format": "json"}
            )
        ),
        f"{DESC}: /resources/93: expected only the resources the builder writes, found one named "
        f'"notes"',
    ),
    (
        "resource-twice",
        descriptor(lambda d: d["resources"].append(d["resources"][6])),
        f'{DESC}: /resources/93: expected each resource once, found "model-deepseek-v3-1" again',
    ),
    (
        "resource-removed",
        descriptor(drop_named("model-qwen-3-8b")),
        f'{DESC}: /resources: expected a resource "model-qwen-3-8b" for '
        f"data/models/qwen-3-8b.json, found none",
    ),
    (
        "table-removed",
        descriptor(drop_named("configurations-text-to-image")),
        f'{DESC}: /resources: expected a resource "configurations-text-to-image" for '
        f"data/workloads/text-to-image/configurations.csv, found none",
    ),
    (
        "resources-reordered",
        descriptor(swap_first_two),
        f"{DESC}: /resources: expected the builder's order",
    ),
    (
        "resource-title",
        descriptor(res(8, "title", value="Model of everything")),
        f'{DESC}: /resources/8/title: expected "Model gemma-3-27b", found "Model of everything"',
    ),
    (
        "resource-mediatype",
        descriptor(res(0, "mediatype", value="text/html")),
        f'{DESC}: /resources/0/mediatype: expected "text/csv", found "text/html"',
    ),
]

REFS = [
    (
        "path-http-url",
        descriptor(res(2, "path", value="http://127.0.0.1:9/configurations.csv")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found '
        f'"http://127.0.0.1:9/configurations.csv"',
    ),
    (
        "path-file-url",
        descriptor(res(0, "path", value="file:///etc/passwd")),
        f'{DESC}: /resources/0/path: expected "data/configurations.csv", found '
        f'"file:///etc/passwd"',
    ),
    (
        "path-absolute",
        descriptor(res(2, "path", value="/etc/passwd")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found "/etc/passwd"',
    ),
    (
        "path-dot-dot",
        descriptor(res(2, "path", value="../outside.csv")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found "../outside.csv"',
    ),
    (
        "path-dot-dot-inside",
        descriptor(res(1, "path", value="data/../../outside.json")),
        f'{DESC}: /resources/1/path: expected "data/workloads.json", found '
        f'"data/../../outside.json"',
    ),
    (
        "path-backslash",
        descriptor(res(2, "path", value="data\\configurations.csv")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found '
        f'"data\\\\configurations.csv"',
    ),
    (
        "path-home",
        descriptor(res(2, "path", value="~/configurations.csv")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found "~/configurations.csv"',
    ),
    (
        "path-list",
        descriptor(res(2, "path", value=["data/configurations.csv"])),
        f'{DESC}: /resources/2/path: expected "data/index.json", found ["data/configurations.csv"]',
    ),
    (
        "json-schema-url",
        descriptor(res(3, "jsonSchema", value="https://example.org/index.schema.json")),
        f'{DESC}: /resources/3/jsonSchema: expected "schemas/model-list.schema.json", found '
        f'"https://example.org/index.schema.json"',
    ),
    (
        "json-schema-outside",
        descriptor(res(3, "jsonSchema", value="../index.schema.json")),
        f'{DESC}: /resources/3/jsonSchema: expected "schemas/model-list.schema.json", found '
        f'"../index.schema.json"',
    ),
    (
        "json-schema-on-a-table",
        descriptor(res(0, "jsonSchema", value="schemas/index.schema.json")),
        f'{DESC}: /resources/0/jsonSchema: expected no such key, found "schemas/index.schema.json"',
    ),
    (
        "table-schema-as-path",
        descriptor(res(0, "schema", value="schemas/index.schema.json")),
        f'{DESC}: /resources/0/schema: expected {{"fields": [{{"name": "workload", "type": '
        f'"string", "description": ',
    ),
    (
        "table-schema-as-url",
        descriptor(res(T2I, "schema", value="http://127.0.0.1:9/schema.json")),
        f'{DESC}: /resources/{T2I}/schema: expected {{"fields": [{{"name": "workload", "type": '
        f'"string", "description": ',
    ),
    (
        "dialect-as-url",
        descriptor(res(1, "dialect", value="http://127.0.0.1:9/dialect.json")),
        f"{DESC}: /resources/1/dialect: expected no such key, found "
        f'"http://127.0.0.1:9/dialect.json"',
    ),
    (
        "profile-inside-table-schema",
        descriptor(res(0, "schema", "$schema", value="http://127.0.0.1:9/p.json")),
        f"{DESC}: /resources/0/schema/$schema: expected no such key, found "
        f'"http://127.0.0.1:9/p.json"',
    ),
    (
        "profile-on-resource",
        descriptor(res(1, "profile", value="http://127.0.0.1:9/p.json")),
        f'{DESC}: /resources/1/profile: expected no such key, found "http://127.0.0.1:9/p.json"',
    ),
    # frictionless's Google Sheets format reads a URL whatever the path: the table is never handed
    # to it
    (
        "table-format-gsheets",
        descriptor(res(0, "format", value="gsheets")),
        f'{DESC}: /resources/0/format: expected "csv", found "gsheets"',
    ),
    (
        "table-format-none",
        descriptor(res(0, "format", drop=True)),
        f'{DESC}: /resources/0/format: expected "csv", found it missing',
    ),
]


CSV_REL = "data/configurations.csv"
CSV_BYTES = [  # the CSV is compared byte for byte: line endings and the final newline count
    (
        "csv-crlf",
        raw(CSV_REL, lambda b: b.replace(b"\n", b"\r\n")),
        f"{CSV_REL}: line 1: expected 'workload,slug",
    ),
    (
        "csv-cr-only",
        raw(CSV_REL, lambda b: b.replace(b"\n", b"\r")),
        f"{CSV_REL}: line 1: expected 'workload,slug",
    ),
    (
        "csv-no-final-newline",
        raw(CSV_REL, lambda b: b.rstrip(b"\n")),
        f"{CSV_REL}: line 839: expected a final newline and no more",
    ),
    (
        "csv-blank-line-after",
        raw(CSV_REL, lambda b: b + b"\n"),
        f"{CSV_REL}: line 840: expected nothing after the last line's newline",
    ),
]


def _cli_cases(*groups: tuple[str, list]) -> list:
    return [
        pytest.param(apply, names, id=f"{group}-{name}")
        for group, cases in groups
        for name, apply, names in cases
    ]


def refused(root: Path, command: str, names: str | tuple[str, ...]) -> None:
    before = tree_digest(root)
    outcome = run_cli(command)
    assert_refused(outcome, 1, names, before, tree_digest(root))


REFUSED = _cli_cases(("parse", PARSE), ("descriptor", DESCRIPTOR), ("csv", CSV_BYTES))


def read_package(data: Path) -> Tree:
    """load_tree(data), each file as committed parsed once a worker (tests/rules.py's documents,
    which the checks only read)."""
    committed = rules._parsed()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tree_module, "parse_json", lambda raw: committed.get(raw) or parse_json(raw))
        return tree_module.load_tree(data)


def assert_named(names: str | tuple[str, ...], problems: list[str]) -> None:
    found = "\n".join(problems)
    for name in (names,) if isinstance(names, str) else names:
        assert name in found, f"expected {name!r} in the problems, found:\n{found}"


# One case per class by all of validate's checks but frictionless's (tests/rules.py); every case of
# the CSV class too (its rule reads the whole package), the others by their rule below.
@pytest.mark.parametrize(
    ("apply", "names"),
    [c for c in REFUSED if c.id in ("parse-nan", "descriptor-licence-name") or c.id[:4] == "csv-"],
)
def test_validate_refuses(reused_copy: Path, apply, names) -> None:
    """A case by validate's checks but frictionless's (tests/rules.py), one line a problem."""
    apply(reused_copy)
    assert_named(names, rule_problems(reused_copy / "data"))


@pytest.mark.parametrize(("apply", "names"), _cli_cases(("parse", PARSE)))
def test_validate_refuses_what_it_cannot_read_as_it_reads_it(
    reused_copy: Path, apply, names
) -> None:
    """Every strict-parsing case by what reads the package (load_tree): validate reports its
    problems as they are."""
    apply(reused_copy)
    assert_named(names, [str(p) for p in read_package(reused_copy / "data").problems])


@pytest.mark.parametrize(("apply", "names"), _cli_cases(("descriptor", DESCRIPTOR)))
def test_validate_refuses_a_descriptor_by_its_rule(reused_copy: Path, apply, names) -> None:
    """Every descriptor case by the descriptor's rule (check_package), on documents as committed:
    validate reports its problems as they are."""
    apply(reused_copy)
    found = read_package(reused_copy / "data")
    curated = provenance(reused_copy, found.descriptor)[0]
    assert_named(names, [str(p) for p in check_package(found, found.docs, curated)[0]])


# One case per class through `builder validate` (about 2 s each): all slow (every case runs by rule
# above).
@pytest.mark.parametrize(
    ("apply", "names"),
    slow_after(
        [
            next(c for c in REFUSED if c.id.startswith(f"{g}-"))
            for g in ("parse", "descriptor", "csv")
        ],
        fast=0,
    ),
)
def test_validate_refuses_through_the_cli(repo_copy: Path, apply, names) -> None:
    apply(repo_copy)
    refused(repo_copy, "validate", names)


@pytest.mark.parametrize(("apply", "names"), slow_after(_cli_cases(("refs", REFS))))
def test_validate_refuses_what_points_outside(repo_copy: Path, apply, names) -> None:
    """Nothing outside the package is opened (frictionless runs whenever its tables differ from
    the committed ones)."""
    (repo_copy.parent / "outside.csv").write_text("canary\n")
    apply(repo_copy)
    with watching() as events:
        refused(repo_copy, "validate", names)
    outside = {
        str(repo_copy.parent / "outside.csv"),
        "/etc/passwd",
        str(repo_copy.parent / "outside.json"),
    }
    assert not opened(events) & outside
    assert not network(events)


@pytest.fixture
def scratch_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder of the command under test, outside the repo copy, to check it is left
    empty."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


# Each case reads the whole package: one per command in the fast tier, the other variants slow.
ENTRIES = [
    case
    for command in ("validate", "drift")
    for case in slow_after([pytest.param(e, command, id=f"files-{n}-{command}") for n, e in FILES])
]


@pytest.mark.parametrize(("entry", "command"), ENTRIES)
def test_only_regular_files_are_read(repo_copy: Path, scratch_tmp: Path, entry, command):
    hostile = entry.apply(repo_copy)
    before = tree_digest(repo_copy)
    if entry.huge:
        big = repo_copy / entry.huge
        with big.open("wb") as out:
            out.truncate(GIB)
        hostile.append(str(big))
        made = os.lstat(big)
    with watching() as events:
        outcome = run_cli(command)
    if entry.huge:
        now = os.lstat(big)
        assert (now.st_size, now.st_mtime_ns, now.st_blocks) == (
            made.st_size,
            made.st_mtime_ns,
            made.st_blocks,
        )
        big.unlink()  # compared by its stat: hashing it would read 1 GiB
    assert_refused(outcome, 1, entry.names, before, tree_digest(repo_copy))
    never = {os.path.abspath(p) for p in hostile} | {os.path.realpath(p) for p in hostile}
    assert not opened(events) & never, sorted(opened(events) & never)
    assert not network(events)
    assert list(scratch_tmp.iterdir()) == []  # drift copied nothing, and left nothing behind


@pytest.mark.parametrize("command", slow_after([pytest.param("validate"), pytest.param("drift")]))
def test_a_schema_that_is_not_a_regular_file_is_never_read(repo_copy: Path, command: str) -> None:
    """A release archive ships schemas/ beside data/: they are read as carefully."""
    (repo_copy / "schemas" / "units.schema.json").unlink()
    (repo_copy / "schemas" / "units.schema.json").symlink_to("/dev/zero")
    forget_schemas()
    try:
        refused(
            repo_copy,
            command,
            ("schemas/units.schema.json: ", "expected a regular file, found a symbolic link"),
        )
    finally:
        forget_schemas()


# Nothing is fetched, whatever the descriptor names.


POINTING_AT = [  # what the descriptor could name a URL as, each pointed at a local server that logs requests
    pytest.param(lambda url: res(2, "path", value=f"{url}/configurations.csv"), id="resource-path"),
    pytest.param(lambda url: res(0, "path", value=f"{url}/index.json"), id="table-path"),
    pytest.param(
        lambda url: res(3, "jsonSchema", value=f"{url}/index.schema.json"), id="json-schema"
    ),
    pytest.param(lambda url: res(0, "schema", value=f"{url}/schema.json"), id="table-schema"),
    pytest.param(lambda url: res(1, "dialect", value=f"{url}/dialect.json"), id="dialect"),
    pytest.param(
        lambda url: res(0, "schema", "$schema", value=f"{url}/profile.json"),
        id="table-schema-profile",
    ),
    pytest.param(lambda url: res(0, "$schema", value=f"{url}/profile.json"), id="resource-profile"),
    pytest.param(lambda url: top("$schema", f"{url}/profile.json"), id="package-profile"),
]


@pytest.mark.parametrize("change", slow_after(POINTING_AT))
def test_no_request_reaches_a_server_the_descriptor_names(repo_copy: Path, httpserver, change):
    """Frictionless runs for real here, on whatever the descriptor's tables have become."""
    url = httpserver.url_for("/").rstrip("/")
    descriptor(change(url))(repo_copy)
    with watching() as events:
        refused(repo_copy, "validate", (f"{DESC}: /", url))
    assert httpserver.log == []
    assert not [args for event, args in network(events) if event == "socket.connect"]


def test_a_table_whose_format_would_fetch_is_never_handed_to_frictionless(repo_copy: Path) -> None:
    """Frictionless's Google Sheets format reads https://docs.google.com/... whatever the path: with
    such a format the descriptor is refused and frictionless gets no table, here in this process,
    where every socket call is seen."""
    from builder.errors import ValidationError
    from builder.validate.committed import validate_committed

    descriptor(res(0, "format", value="gsheets"))(repo_copy)
    with watching() as events, pytest.raises(ValidationError) as caught:
        validate_committed(repo_copy / "data")
    found = [str(p) for p in caught.value.problems]
    assert found == [f'{DESC}: /resources/0/format: expected "csv", found "gsheets"']
    assert not network(events)


# A whole validate in a process each, slow: test_import_path.py's fast case plants the same plugin.
@pytest.mark.parametrize(
    "entry", slow_after([pytest.param("python -m builder"), pytest.param("builder")], fast=0)
)
def test_no_module_of_the_package_root_is_imported(repo_copy: Path, entry: str) -> None:
    """A package root may be an archive unpacked from anywhere. Frictionless imports every
    `frictionless_*` module on the import path as a plugin, and `python -m` puts the current folder
    first on that path: the builder takes it off, so this module in the root is never run."""
    marker = repo_copy.parent / "ran"
    (repo_copy / "frictionless_planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    command = (
        [sys.executable, "-m", "builder"]
        if entry.startswith("python")
        else [str(Path(sys.executable).parent / "builder")]
    )
    run = subprocess.run(
        [*command, "validate"], cwd=repo_copy, capture_output=True, text=True, timeout=120
    )
    assert (run.returncode, run.stdout) == (0, "data: valid\n")
    assert run.stderr == "", run.stderr
    assert not marker.exists()


# Physics on its own: every law fails on NaN and the infinities.

LAWS = {  # field -> the laws (pointers) it takes part in, besides its own finiteness
    "joules_per_output_token": {"wh_per_million_output_tokens", "joules_per_output_token"},
    "wh_per_million_output_tokens": {"wh_per_million_output_tokens"},
    "gpu_power_watts_total": {"joules_per_output_token"},
    "tokens_per_second": {"joules_per_output_token"},
    "median_itl_ms": {"p90_itl_ms", "under_itl_deadline"},
    "p90_itl_ms": {"p90_itl_ms"},
    "p95_itl_ms": {"p90_itl_ms"},
    "p99_itl_ms": {"p90_itl_ms"},
    "avg_requests_in_flight": {"avg_requests_in_flight", "avg_running_batch"},
    "max_num_seqs": {"avg_requests_in_flight"},
    "avg_running_batch": {"avg_running_batch"},
    "tensor_parallel": {"num_gpus"},
    "data_parallel": {"num_gpus"},
    "expert_parallel": {"num_gpus"},
    "num_gpus": {"num_gpus"},
}
CONF = json.loads((REPO / Q8).read_text())["configurations"][0]
NUMERIC = [k for k, v in CONF.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]


def test_the_committed_configuration_obeys_physics() -> None:
    assert check_configuration(CONF, 500, "/c") == []
    assert set(LAWS) <= set(NUMERIC)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("field", NUMERIC)
def test_physics_reports_a_non_finite_number(field: str, value: float) -> None:
    faults = check_configuration({**CONF, field: value}, 500, "/c")
    finite = Finding(f"/c/{field}", "physics.finite", Said("a finite number", str(value)))
    assert finite in faults, faults
    for law in LAWS.get(field, ()):  # and every law it takes part in fails
        assert f"/c/{law}" in {f.where for f in faults}, (law, faults)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_physics_reports_a_non_finite_deadline(value: float) -> None:
    faults = check_configuration(CONF, value, "/c")
    assert ("/c/under_itl_deadline", "physics.itl-deadline") in [f[:2] for f in faults]


def test_physics_laws_fail_without_the_finiteness_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each law is written to fail on NaN by itself: with every number taken as finite, NaN still
    fails them."""
    from builder.validate import documents as physics

    monkeypatch.setattr(physics, "finite", lambda *_values: True)
    for field, laws in LAWS.items():
        faults = check_configuration({**CONF, field: math.nan}, 500, "/c")
        assert {f"/c/{law}" for law in laws} <= {f.where for f in faults}, (field, faults)


# A release archive: no metadata.toml and no lock beside the data; the descriptor's JSON Schema
# stands in.


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "leadgreen-data-v2026.10.19"
    root.mkdir()
    for name in ("data", "schemas"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy2(REPO / DESC, root / DESC)
    monkeypatch.chdir(root)
    return root


def archive_problems() -> list[str]:
    from builder.errors import ValidationError
    from builder.validate.committed import validate_committed

    try:
        validate_committed(Path("data"))
    except ValidationError as exc:
        return [str(p) for p in exc.problems]
    return []


# Every check in full (about 2 s), slow: the by-rule cases below run each archive case in the fast
# tier.
@pytest.mark.slow
def test_a_release_archive_is_valid(archive: Path) -> None:
    assert archive_problems() == []


def test_a_release_archive_is_valid_by_rule(archive: Path) -> None:
    assert rule_problems(archive / "data") == []


@pytest.mark.slow  # an outside tool
def test_check_jsonschema_agrees_the_committed_descriptor_fits_its_schema() -> None:
    """A peer validator reads schemas/datapackage.schema.json the same way (formats on, offline)."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    args = ["scripts/check-data-schema", "schemas/datapackage.schema.json", DESC]
    run = subprocess.run(args, cwd=REPO, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr


ARCHIVE = [
    (
        "licence-name",
        descriptor(lambda d: d["licenses"][0].update(name="CC0-1.0")),
        f'{DESC}: /licenses/0/name: expected const "Apache-2.0", found "CC0-1.0"',
    ),
    (
        "sources-sha256",
        descriptor(lambda d: d["sources"][0].update(sha256="xyz")),
        f'{DESC}: /sources/0/sha256: expected pattern "^[0-9a-f]{{64}}$", found "xyz"',
    ),
    (
        "title-empty",
        descriptor(top("title", "")),
        f'{DESC}: /title: expected minLength 1, found ""',
    ),
    (
        "extra-key",
        descriptor(top("x-note", "trust me")),
        f'{DESC}: /x-note: expected no such key, found "trust me"',
    ),
    (
        "field-type-any",
        descriptor(res(0, "schema", "fields", 12, "type", value="any")),
        f'{DESC}: /resources/0/schema/fields/12/type: expected "number", found "any"',
    ),
    (
        "path-url",
        descriptor(res(2, "path", value="http://127.0.0.1:9/configurations.csv")),
        f'{DESC}: /resources/2/path: expected "data/index.json", found '
        f'"http://127.0.0.1:9/configurations.csv"',
    ),
    ("every-model-document-null", every_model_doc_null, f"{Q8}: /: expected an object, found null"),
]


@pytest.mark.parametrize(("apply", "names"), _cli_cases(("archive", ARCHIVE)))
def test_a_release_archive_is_checked_by_rule(archive: Path, apply, names) -> None:
    apply(archive)
    found = rule_problems(archive / "data")
    assert any(names in line for line in found), found


# Every check in full (about 2 s each): all slow (every case runs by rule above).
@pytest.mark.parametrize(("apply", "names"), slow_after(_cli_cases(("archive", ARCHIVE)), fast=0))
def test_a_release_archive_is_checked_against_the_descriptor_schema(
    archive: Path, apply, names
) -> None:
    apply(archive)
    before = tree_digest(archive)
    found = archive_problems()
    assert any(names in line for line in found), found
    assert tree_digest(archive) == before
