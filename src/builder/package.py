"""The Data Package v2 descriptor: each published file a resource with its size and sha256, and
frictionless tables."""

import json
from collections.abc import Mapping
from typing import Any

from builder import configurations, layout
from builder.csvview import COLUMNS, MODEL_COLUMNS, csv_rel
from builder.jsonschemas import registry, resolved
from builder.metadata import all_workloads, source_for
from builder.pin import Lock, sha256

DESCRIPTOR_KEYS = (
    "$schema",
    "name",
    "title",
    "description",
    "homepage",
    "version",
    "licenses",
    "sources",
    "resources",
)
TABLE_TYPES = {"string", "number", "integer", "boolean", "array"}
# as Table Schema names them too
CONSTRAINTS = (
    "minimum",
    "exclusiveMinimum",
    "enum",
    "minLength",
    "maxLength",
)
GEN_DEFS_SCHEMA = "generation-defs.schema.json"
# the data's, for a machine
LICENCE = {
    "name": "Apache-2.0",
    "path": "https://www.apache.org/licenses/LICENSE-2.0",
}
# of a workload's documents
TITLES = {
    "index": "Index",
    "model-list": "Model list",
    "frontier": "Frontier",
}
TITLES["output-lengths"] = "Output lengths"
MODEL_FILES = "<org>__<model>__<task>.json"  # an upstream per-model file's name


def _resolved(
    schemas: dict[str, dict[str, Any]], name: str, nodes: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Subschemas of schemas[name] with every $ref resolved and each one-item allOf merged into
    its holder."""
    holder = resolved(
        {"$id": schemas[name]["$id"], "properties": nodes}, registry(schemas.values())
    )
    return {key: _merged(node) for key, node in holder["properties"].items()}


def _merged(node: dict[str, Any]) -> dict[str, Any]:
    if len(node.get("allOf", ())) != 1:
        return node
    return {**_merged(node["allOf"][0]), **{k: v for k, v in node.items() if k != "allOf"}}


def field_definitions(schemas: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each published field's JSON Schema, by name, $refs resolved."""
    found = _resolved(schemas, layout.DEFS_SCHEMA, schemas[layout.DEFS_SCHEMA]["$defs"])
    entry = schemas[layout.MODEL_LIST_SCHEMA]["properties"]["models"]["items"]["properties"]
    found |= _resolved(
        schemas, layout.MODEL_LIST_SCHEMA, {name: entry[name] for name in ("gpus", "url", "page")}
    )
    row = schemas[layout.INDEX_SCHEMA]["properties"]["rows"]["items"]["properties"]
    return found | _resolved(schemas, layout.INDEX_SCHEMA, {"model": row["model"]})


def table_schema(names: tuple[str, ...], defs: dict[str, Any], key: list[str]) -> dict[str, Any]:
    """A Table Schema of the named fields as their JSON Schemas state them, each required."""
    fields = []
    for name in names:
        node = defs[name]
        assert node["type"] in TABLE_TYPES, f"{name}: no Table Schema type for {node['type']}"
        constraints = {"required": True} | {k: node[k] for k in CONSTRAINTS if k in node}
        if "const" in node:
            constraints["enum"] = [node["const"]]
        if "pattern" in node:
            constraints["pattern"] = (
                node["pattern"].removeprefix("^").removesuffix("$(?!\\n)").removesuffix("$")
            )
        field = {
            "name": name,
            "type": node["type"],
            "description": node["description"],
            "constraints": constraints,
        }
        fields.append(field | ({"format": "uri"} if node.get("format") == "uri" else {}))
    return {"fields": fields, "primaryKey": key}


def resource(
    name: str,
    title: str,
    path: str,
    fmt: str,
    description: str = "",
    data: bytes | None = None,
    **rest: Any,
) -> dict[str, Any]:
    """A resource: a table when it has a `description`, its size and hash when `data` is given."""
    found: dict[str, Any] = {"name": name, "title": title}
    if description:
        found |= {"type": "table", "description": description}
    found |= {
        "path": path,
        "format": fmt,
        "mediatype": "text/csv" if fmt == "csv" else "application/json",
    }
    if data is not None:
        found |= {"encoding": "utf-8", "bytes": len(data), "hash": f"sha256:{sha256(data)}"}
    return found | rest


def workload_resources(
    workload: str, name: str, files: Mapping[str, Any], data_dir: str, schemas: dict[str, Any]
) -> tuple[list[Any], list[Any]]:
    """A workload's tables (a generation workload's CSV) and documents; text conversation's keep
    their v1 names."""
    suffix, of = ("", "") if workload == layout.ROOT_WORKLOAD else (f"-{workload}", f" ({name})")
    rels = {"index": layout.index_rel(workload), "model-list": layout.model_list_rel(workload)}
    # every workload's, an image or video one's too
    rels["frontier"] = layout.frontier_rel(workload)
    kind = layout.GENERATION_WORKLOADS.get(workload)
    tables = []
    if kind is None:
        prefix = ""
        if layout.output_lengths_rel(workload) in files:  # only where the lock pins per-model files
            rels["output-lengths"] = layout.output_lengths_rel(workload)
    else:
        gen_defs = {
            k: v
            for k, v in schemas[GEN_DEFS_SCHEMA]["$defs"].items()
            if "type" in v or "allOf" in v
        }
        prefix, defs = "generation-", _resolved(schemas, GEN_DEFS_SCHEMA, gen_defs)
        columns = (*MODEL_COLUMNS, *configurations.config_keys(kind))
        description = (
            "Every configuration of every model of the workload, one row each, as in its documents."
        )
        rel, schema = csv_rel(workload), table_schema(columns, defs, ["slug", "row_id", "repeat"])
        title, path, data = f"Configurations{of}", f"{data_dir}/{rel}", files.get(rel, b"")
        tables.append(
            resource(
                f"configurations{suffix}", title, path, "csv", description, data, schema=schema
            )
        )
    documents = [(f"{doc}-document{suffix}", TITLES[doc] + of, rel) for doc, rel in rels.items()]
    for rel in sorted(files):
        found = layout.place(rel)
        if found is not None and found.kind == f"{prefix}model" and found.workload == workload:
            name = f"model{suffix}.{found.slug}" if suffix else f"model-{found.slug}"
            documents.append((name, f"Model {found.slug}{of}", rel))
    return tables, [json_document(*doc, files, data_dir) for doc in documents]


def json_document(
    name: str, title: str, rel: str, files: Mapping[str, bytes], data_dir: str
) -> dict[str, Any]:
    """A whole JSON document: its size and hash (a missing file is check_files's to report), and
    its schema."""
    schema = f"{layout.SCHEMAS.as_posix()}/{layout.schema_for(rel)}"
    return resource(
        name, title, f"{data_dir}/{rel}", "json", data=files.get(rel, b""), jsonSchema=schema
    )


def descriptor(
    files: Mapping[str, Any],
    data_dir: str,
    version: str,
    locks: dict[str, Any],
    meta: dict[str, Any],
    schemas: dict[str, Any],
    models: dict[str, Lock] | None = None,
) -> dict[str, Any]:
    """The descriptor for a data folder `data_dir` whose files are `files` (relative to it)."""
    curated = curated_parts(locks, meta, models)
    parts = {**curated, **derived_parts(files, data_dir, version, schemas)}
    return {key: parts[key] for key in DESCRIPTOR_KEYS}


def derived_parts(
    files: Mapping[str, bytes], data_dir: str, version: str | None, schemas: dict[str, Any]
) -> dict[str, Any]:
    """The descriptor's keys that follow from the tree alone (its files, schemas and data
    version)."""
    return {
        "$schema": layout.PROFILE,
        "version": version,
        "resources": resources(files, data_dir, schemas),
    }


def curated_parts(
    locks: dict[str, Lock], meta: dict[str, Any], models: dict[str, Lock] | None = None
) -> dict[str, Any]:
    """The descriptor's keys that come from metadata.toml and the upstream lock (`models`: the
    per-model files' entries)."""
    sources = [(work.task, source_for(meta, work)) for work in all_workloads(meta)]
    pinned = [(locks[task], src) for task, src in sources if task in locks]
    return {
        "name": layout.PACKAGE_NAME,
        "title": "LeadGreen: GPU energy of AI models per unit of output, per model and GPU (API "
        "v1)",
        "description": meta["header"]["caveat"],
        "homepage": meta["base_url"],
        "licenses": [LICENCE | {"title": sources[0][1]["licence"]}],
        "sources": [
            source(lock, f"{src['name']} {src['version']}: {src['workload']}")
            for lock, src in pinned
        ]
        + model_sources(models or {}, f"{sources[0][1]['name']} {sources[0][1]['version']}"),
    }


def model_sources(models: dict[str, Lock], title: str) -> list[dict[str, Any]]:
    """The per-model files as sources, one per upstream folder, commit and mirror folder: the
    folder's URL, the sha256 of their listing (`<sha256>  <file>` lines in file order, as
    `LC_ALL=C sha256sum models/*.json` prints them in upstream/), their total size and latest
    retrieval."""
    groups: dict[tuple[str, str | None, str | None], list[Lock]] = {}
    for lock in sorted(models.values(), key=lambda lock: lock.file):
        mirror = _folder(lock.mirror) if lock.mirror else None
        groups.setdefault((_folder(lock.url or lock.file), lock.commit, mirror), []).append(lock)
    found = []
    for (path, commit, mirror), locks in groups.items():
        listing = "".join(f"{lock.sha256}  {lock.file}\n" for lock in locks).encode()
        size, retrieved = sum(lock.size for lock in locks), max(lock.retrieved for lock in locks)
        group = Lock(path, path, commit, sha256(listing), size, retrieved, mirror)
        named = f"{title}: {len(locks)} per-model files ({MODEL_FILES}, output lengths)"
        found.append(source(group, named))
    return found


def _folder(url: str) -> str:
    """The folder part of a URL or path, with its trailing '/'."""
    return url.rpartition("/")[0] + "/"


def source(lock: Lock, title: str) -> dict[str, Any]:
    """A pinned snapshot as a source: upstream's URL and commit, and beside them the mirror it
    came from (or null)."""
    found = {
        "title": title,
        "path": lock.url or lock.file,
        "mirror": lock.mirror,
        "version": lock.commit or "",
    }
    return found | {"sha256": lock.sha256, "bytes": lock.size, "retrieved": lock.retrieved}


def resources(
    files: Mapping[str, bytes], data_dir: str, schemas: dict[str, Any]
) -> list[dict[str, Any]]:
    """Every published file as a resource: the flat table, the documents (whole JSON, no table
    views: JSON Schema checks them), then the generation workloads' own."""
    # the workloads workloads.json lists; text conversation alone if it cannot (check_files reports
    # why)
    try:
        listed = [
            (e["id"], e["name"]) for e in json.loads(files[layout.WORKLOAD_LIST])["workloads"]
        ]
        if not all(layout.is_workload_id(i) and isinstance(n, str) for i, n in listed):
            listed = [(layout.ROOT_WORKLOAD, "")]
    except (KeyError, TypeError, ValueError, RecursionError):
        listed = [(layout.ROOT_WORKLOAD, "")]
    tables: list[dict[str, Any]] = []
    documents = [
        json_document(
            "workload-list-document", "Workload list", layout.WORKLOAD_LIST, files, data_dir
        )
    ]
    generation: list[dict[str, Any]] = []
    for workload, name in listed:
        own_tables, own_documents = workload_resources(workload, name, files, data_dir, schemas)
        # its own tables and schemas, after every other resource
        if workload in layout.GENERATION_WORKLOADS:
            generation += [*own_tables, *own_documents]
        else:
            tables += own_tables
            documents += own_documents
    # No foreign key: a configuration's model is in its own workload's model list, and a Table
    # Schema cannot say which one; crossfile checks every row against the model documents.
    description = (
        "Every configuration of every model in every workload, one row each, as in the documents."
    )
    schema = table_schema(
        COLUMNS, field_definitions(schemas), ["workload", "slug", "row_id", "repeat"]
    )
    path, data = f"{data_dir}/{layout.CSV}", files.get(layout.CSV, b"")
    tables.append(
        resource(
            "configurations", "All configurations", path, "csv", description, data, schema=schema
        )
    )
    # added after the v1 resources
    units = json_document("units-document", "Units", layout.UNITS, files, data_dir)
    return [*tables, *documents, *generation, units]
