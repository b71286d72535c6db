"""Every upstream task file checked together, and the generation workloads' part of the package."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem, UpstreamError
from builder.gendocs import build_documents, configurations_csv, csv_rel, llm_entry_added
from builder.gendocs import workload_entry as generation_entry
from builder.generation import GenRow, parse_generation
from builder.genmeta import generation_workloads
from builder.layout import GENERATION_WORKLOADS, METADATA, WORKLOAD_LIST
from builder.metadata import load_metadata
from builder.names import gpu_case_faults
from builder.upstream import Row, parse_tasks

Doc = dict[str, Any]
WORKLOAD_ENTRY_ADDED = ("kind", "unit", "latency_metric", "latency_limit")  # what every workload list entry gains


def parse_all(
    inputs: dict[str, tuple[bytes, str]], meta: Doc
) -> tuple[dict[str, list[Row]], dict[str, list[GenRow]], dict[str, list[str]]]:
    """Check every task file (task -> bytes, name shown): the generation tasks of `meta` by builder.generation,
    the rest together by builder.upstream, then one spelling per GPU across all of them. The LLM rows and the
    generation rows by task, and each task's warnings; UpstreamError otherwise."""
    works = {work.task: work for work in generation_workloads(meta) if work.task in inputs}
    generation = {task: parse_generation(*inputs[task], work.kind, work) for task, work in works.items()}
    parsed = parse_tasks({task: given for task, given in inputs.items() if task not in works})
    rows = {task: up.rows for task, up in parsed.items()}
    gen_rows = {task: found for task, (found, _) in generation.items()}
    every = [(inputs[task][1], row.gpu_model) for task, found in [*rows.items(), *gen_rows.items()] for row in found]
    if spellings := gpu_case_faults(every):
        problems = [Problem(path, f"GPU {gpu}", msg) for path, gpu, msg in spellings]
        raise UpstreamError(f"upstream: {len(problems)} GPU name(s) spelt two ways across the task files", problems)
    warnings = {task: up.warnings for task, up in parsed.items()} | {task: w for task, (_, w) in generation.items()}
    return rows, gen_rows, warnings


def parse_every_task(inputs: dict[str, tuple[bytes, str]]) -> dict[str, list[str]]:
    """parse_all with the workloads of metadata.toml: each task's warnings."""
    return parse_all(inputs, load_metadata(METADATA))[2]


def generation_documents(rows: dict[str, list[GenRow]], meta: Doc, date: str) -> dict[str, Doc]:
    """Every JSON document of every generation workload (by path), from its rows."""
    docs: dict[str, Doc] = {}
    for work in generation_workloads(meta):
        docs |= build_documents(rows[work.task], meta, date, work)
    return docs


def extend_workload_list(docs: dict[str, Doc], meta: Doc) -> None:
    """workloads.json in `docs` gains every entry's kind, unit and latency rule, and the generation workloads."""
    listed = docs[WORKLOAD_LIST]
    entries = [{**entry, **llm_entry_added(meta)} for entry in listed["workloads"]]
    base, version = meta["base_url"], meta["header"]["version"]
    listed["workloads"] = entries + [generation_entry(work, docs, base, version) for work in generation_workloads(meta)]


def generation_tables(docs: dict[str, Doc], meta: Doc) -> dict[str, bytes]:
    """Each generation workload's configurations.csv (by path), from its model documents in `docs`."""
    return {csv_rel(work.id): configurations_csv(docs, work) for work in generation_workloads(meta)}


def is_generation(workload: str) -> bool:
    return workload in GENERATION_WORKLOADS
