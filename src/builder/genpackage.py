"""The generation workloads in the build: their documents and CSVs from their upstream files, and
their entries in the workload list."""

from __future__ import annotations

from typing import Any

from builder.gendocs import (
    ENTRY_KEYS_ADDED,
    build_documents,
    configurations_csv,
    csv_rel,
    llm_entry_added,
    workload_entry,
)
from builder.generation import parse_generation
from builder.genmeta import generation_workloads
from builder.layout import (
    GENERATION_WORKLOADS,
    METADATA,
    WORKLOAD_LIST,
)

Doc = dict[str, Any]


def generation_documents(
    inputs: dict[str, tuple[bytes, str]], meta: Doc, date: str
) -> tuple[dict[str, Doc], list[str], list[tuple[str, str]]]:
    """Every JSON document of every generation workload (by path), from each task's (bytes, name shown);
    the warnings; and each row's (task file shown, GPU), for the GPU spelling check across every task."""
    docs: dict[str, Doc] = {}
    warnings: list[str] = []
    gpus: list[tuple[str, str]] = []
    for work in generation_workloads(meta):
        data, shown = inputs[work.task]
        rows, found = parse_generation(data, shown, work.kind)
        docs |= build_documents(rows, meta, date, work)
        warnings += found
        gpus += [(shown, row.gpu_model) for row in rows]
    return docs, warnings, gpus


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


WORKLOAD_ENTRY_ADDED = ENTRY_KEYS_ADDED  # the workload list table's columns after the LLM ones
