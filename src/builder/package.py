"""The Data Package v2 descriptor: every published file a resource, tables with keys, provenance."""

from __future__ import annotations

import hashlib
from typing import Any

from builder.csvview import COLUMNS
from builder.layout import (
    CSV,
    DEFS_SCHEMA,
    INDEX,
    INDEX_SCHEMA,
    MODEL_LIST,
    MODEL_LIST_SCHEMA,
    MODEL_SCHEMA,
    SCHEMAS,
    is_model,
    slug_of,
)
from builder.metadata import source_for, workloads
from builder.pin import Lock
from builder.transform import INDEX_ROW_KEYS

PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"
MODEL_LIST_KEYS = ("slug", "name", "model_id", "params_b", "active_params_b", "gpus", "url", "page")
TABLE_TYPES = {"string", "number", "integer", "boolean", "array"}


def field_definitions(schemas: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each published field's JSON Schema, by name, with one level of $ref/allOf resolved."""
    defs = schemas[DEFS_SCHEMA]["$defs"]

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
        if ref is None:
            return node
        target = resolve(defs[ref.rsplit("/", 1)[1]])
        return {**target, **{k: v for k, v in node.items() if k not in ("$ref", "allOf")}}

    found = {name: resolve(node) for name, node in defs.items()}
    entry = schemas[MODEL_LIST_SCHEMA]["properties"]["models"]["items"]["properties"]
    row = schemas[INDEX_SCHEMA]["properties"]["rows"]["items"]["properties"]
    found.update({name: resolve(entry[name]) for name in ("gpus", "url", "page")})
    found["model"] = resolve(row["model"])
    return found


def table_field(name: str, node: dict[str, Any]) -> dict[str, Any]:
    """A Table Schema field that says what the JSON Schema says of the same field."""
    kind = node["type"]
    assert kind in TABLE_TYPES, f"{name}: no Table Schema type for {kind}"
    constraints: dict[str, Any] = {"required": True}
    for key in ("minimum", "exclusiveMinimum", "enum", "minLength", "maxLength"):
        if key in node:
            constraints[key] = node[key]
    if "const" in node:
        constraints["enum"] = [node["const"]]
    if "pattern" in node:
        constraints["pattern"] = node["pattern"].removeprefix("^").removesuffix("$")
    field = {"name": name, "type": kind, "description": node["description"], "constraints": constraints}
    if node.get("format") == "uri":
        field["format"] = "uri"
    return field


def table_schema(names: tuple[str, ...], defs: dict[str, dict[str, Any]], key: list[str], fk: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"fields": [table_field(n, defs[n]) for n in names], "primaryKey": key}
    if fk:
        schema["foreignKeys"] = [{"fields": ["slug"], "reference": {"resource": "model-list", "fields": ["slug"]}}]
    return schema


def file_facts(data: bytes) -> dict[str, Any]:
    return {"encoding": "utf-8", "bytes": len(data), "hash": f"sha256:{hashlib.sha256(data).hexdigest()}"}


def json_resource(name: str, data_dir: str, rel: str, files: dict[str, bytes], schema: str, title: str) -> dict:
    """A whole JSON document: its size and hash, and the JSON Schema that defines it."""
    return {
        "name": name,
        "title": title,
        "path": f"{data_dir}/{rel}",
        "format": "json",
        "mediatype": "application/json",
        **file_facts(files[rel]),
        "jsonSchema": (SCHEMAS / schema).as_posix(),
    }


def descriptor(
    files: dict[str, bytes], data_dir: str, version: str, lock: Lock, meta: dict[str, Any], schemas: dict
) -> dict:
    """The descriptor for a data folder `data_dir` whose files are `files` (relative to it)."""
    defs = field_definitions(schemas)
    src = source_for(meta, workloads(meta)[0])
    documents = [
        json_resource("index-document", data_dir, INDEX, files, INDEX_SCHEMA, "Index"),
        json_resource("model-list-document", data_dir, MODEL_LIST, files, MODEL_LIST_SCHEMA, "Model list"),
    ]
    # Tabular views of the two JSON documents: frictionless cannot measure bytes or hashes through a
    # JSON dialect, so those are on the documents above and the views carry none.
    index_rows = {
        "name": "index-rows",
        "title": "Index rows",
        "type": "table",
        "description": "One row per model and GPU: the best configuration under the latency deadline, in energy order.",
        "path": f"{data_dir}/{INDEX}",
        "format": "json",
        "mediatype": "application/json",
        "dialect": {"json": {"property": "rows", "keys": ["model", *INDEX_ROW_KEYS]}},
        "schema": table_schema(("model", *INDEX_ROW_KEYS), defs, ["slug", "gpu"], fk=True),
    }
    model_list = {
        "name": "model-list",
        "title": "Model list",
        "type": "table",
        "description": "One entry per model document, sorted by slug.",
        "path": f"{data_dir}/{MODEL_LIST}",
        "format": "json",
        "mediatype": "application/json",
        "dialect": {"json": {"property": "models", "keys": list(MODEL_LIST_KEYS)}},
        "schema": table_schema(MODEL_LIST_KEYS, defs, ["slug"], fk=False),
    }
    table = {
        "name": "configurations",
        "title": "All configurations",
        "type": "table",
        "description": "Every configuration of every model, one row each, as in the per-model documents.",
        "path": f"{data_dir}/{CSV}",
        "format": "csv",
        "mediatype": "text/csv",
        **file_facts(files[CSV]),
        "schema": table_schema(COLUMNS, defs, ["slug", "row_id", "repeat"], fk=True),
    }
    model_docs = [
        json_resource(f"model-{slug_of(rel)}", data_dir, rel, files, MODEL_SCHEMA, f"Model {slug_of(rel)}")
        for rel in sorted(files)
        if is_model(rel)
    ]
    return {
        "$schema": PROFILE,
        "name": "leadgreen-data",
        "title": "LeadGreen: GPU energy per output token of large language models (API v1)",
        "description": meta["header"]["caveat"],
        "homepage": meta["base_url"],
        "version": version,
        "licenses": [
            {"name": "Apache-2.0", "path": "https://www.apache.org/licenses/LICENSE-2.0", "title": src["licence"]}
        ],
        "sources": [source_entry(lock, src)],
        "resources": [index_rows, model_list, table, *documents, *model_docs],
    }


def source_entry(lock: Lock, src: dict[str, Any]) -> dict[str, Any]:
    entry = {"title": f"{src['name']} {src['version']}: {src['workload']}", "path": lock.url or lock.file}
    entry.update(version=lock.commit or "", sha256=lock.sha256, bytes=lock.size, retrieved=lock.retrieved)
    return entry
