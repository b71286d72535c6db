"""The generation workloads in the build and the descriptor: their documents and CSVs from their
upstream files, their entries in the workload list, and their resources in datapackage.json."""

from __future__ import annotations

from typing import Any

from builder.gendocs import (
    ENTRY_KEYS_ADDED,
    MODEL_COLUMNS,
    MODEL_ENTRY_KEYS,
    build_documents,
    config_keys,
    configurations_csv,
    csv_rel,
    index_row_keys,
    llm_entry_added,
    workload_entry,
)
from builder.generation import parse_generation
from builder.genmeta import generation_workloads
from builder.layout import (
    GENERATION_SCHEMA_OF_KIND,
    GENERATION_WORKLOADS,
    METADATA,
    WORKLOAD_LIST,
    index_rel,
    model_list_rel,
    place,
)

Doc = dict[str, Any]
GEN_DEFS_SCHEMA = "generation-defs.schema.json"


def generation_documents(
    inputs: dict[str, tuple[bytes, str]], meta: Doc, date: str
) -> tuple[dict[str, Doc], list[str]]:
    """Every JSON document of every generation workload (by path), from each task's (bytes, name shown);
    and warnings."""
    docs: dict[str, Doc] = {}
    warnings: list[str] = []
    for work in generation_workloads(meta):
        data, shown = inputs[work.task]
        rows, found = parse_generation(data, shown, work.kind)
        docs |= build_documents(rows, meta, date, work)
        warnings += found
    return docs, warnings


def parse_every_task(inputs: dict[str, tuple[bytes, str]]) -> dict[str, list[str]]:
    """Check every task file (task -> bytes, name shown): the generation tasks of metadata.toml by
    builder.generation, the rest together by builder.upstream; each task's warnings."""
    from builder.metadata import load_metadata
    from builder.upstream import parse_tasks

    kinds = {work.task: work.kind for work in generation_workloads(load_metadata(METADATA))}
    warnings = {task: parse_generation(*inputs[task], kinds[task])[1] for task in inputs if task in kinds}
    parsed = parse_tasks({task: given for task, given in inputs.items() if task not in kinds})
    return warnings | {task: up.warnings for task, up in parsed.items()}


def extend_workload_list(docs: dict[str, Doc], meta: Doc) -> None:
    """workloads.json in `docs` gains every entry's kind, unit and latency rule, and the generation workloads."""
    listed = docs[WORKLOAD_LIST]
    added = llm_entry_added(meta)
    entries = [{**entry, **added} for entry in listed["workloads"]]
    base, version = meta["base_url"], meta["header"]["version"]
    entries += [workload_entry(work, docs, base, version) for work in generation_workloads(meta)]
    listed["workloads"] = entries


def generation_tables(docs: dict[str, Doc], meta: Doc) -> dict[str, bytes]:
    """Each generation workload's configurations.csv (by path), from its model documents in `docs`."""
    return {csv_rel(work.id): configurations_csv(docs, work) for work in generation_workloads(meta)}


def is_generation(workload: str) -> bool:
    return workload in GENERATION_WORKLOADS


def field_definitions(schemas: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each generation field's JSON Schema, by name, a one-item allOf resolved within the definitions."""
    defs = schemas[GEN_DEFS_SCHEMA]["$defs"]

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
        if ref is None:
            return node
        return {**resolve(defs[ref.rsplit("/", 1)[1]]), **{k: v for k, v in node.items() if k not in ("$ref", "allOf")}}

    return {name: resolve(node) for name, node in defs.items() if "type" in node or "allOf" in node}


def generation_resources(
    workload: str, name: str, files: dict[str, bytes], data_dir: str, schemas: dict[str, dict[str, Any]]
) -> tuple[list[dict], list[dict]]:
    """A generation workload's tables (index rows, model list, configurations.csv) and its JSON documents."""
    from builder.package import file_facts, json_resource, json_table, table_schema

    kind = GENERATION_WORKLOADS[workload]
    defs = field_definitions(schemas)
    suffix, of = f"-{workload}", f" ({name})"
    row_keys = index_row_keys(kind)
    schema_of = GENERATION_SCHEMA_OF_KIND
    tables = [
        json_table(
            f"index-rows{suffix}",
            f"Index rows{of}",
            "One row per model and GPU type: the lowest-energy configuration within the batch-latency limit, "
            "in energy order.",
            f"{data_dir}/{index_rel(workload)}",
            "rows",
            row_keys,
            table_schema(row_keys, defs, ["slug", "gpu"], models=f"model-list{suffix}"),
        ),
        json_table(
            f"model-list{suffix}",
            f"Model list{of}",
            "One entry per model document, sorted by slug.",
            f"{data_dir}/{model_list_rel(workload)}",
            "models",
            MODEL_ENTRY_KEYS,
            table_schema(MODEL_ENTRY_KEYS, defs, ["slug"]),
        ),
        {
            "name": f"configurations{suffix}",
            "title": f"Configurations{of}",
            "type": "table",
            "description": "Every configuration of every model of the workload, one row each, as in its documents.",
            "path": f"{data_dir}/{csv_rel(workload)}",
            "format": "csv",
            "mediatype": "text/csv",
            **file_facts(files.get(csv_rel(workload), b"")),
            "schema": table_schema((*MODEL_COLUMNS, *config_keys(kind)), defs, ["slug", "row_id", "repeat"]),
        },
    ]
    documents = [
        json_resource(
            f"index-document{suffix}", data_dir, index_rel(workload), files, schema_of["generation-index"], f"Index{of}"
        ),
        json_resource(
            f"model-list-document{suffix}",
            data_dir,
            model_list_rel(workload),
            files,
            schema_of["generation-model-list"],
            f"Model list{of}",
        ),
    ]
    for rel in sorted(files):
        found = place(rel)
        if found is not None and found.kind == "generation-model" and found.workload == workload:
            documents.append(
                json_resource(
                    f"model{suffix}.{found.slug}",
                    data_dir,
                    rel,
                    files,
                    schema_of["generation-model"],
                    f"Model {found.slug}{of}",
                )
            )
    return tables, documents


WORKLOAD_ENTRY_ADDED = ENTRY_KEYS_ADDED  # the workload list table's columns after the LLM ones
