"""Every upstream task file checked, each by the parser of its kind, and the rules across the files."""

from __future__ import annotations

from typing import Any

from builder.errors import UpstreamError
from builder.generation import parse_generation
from builder.genmeta import generation_workloads
from builder.layout import METADATA
from builder.metadata import load_metadata
from builder.upstream import Upstream, gpu_faults, model_faults, parse_upstream


def parse_all(
    inputs: dict[str, tuple[bytes, str]], meta: dict[str, Any]
) -> tuple[dict[str, list], dict[str, list[str]]]:
    """Check every task file (task -> bytes, name shown): the image and video tasks of `meta` by builder.generation,
    the others by builder.upstream; then one nickname and slug per model across the LLM files, and one spelling
    per GPU across all. The rows and the warnings by task; UpstreamError listing every problem otherwise."""
    works = {work.task: work for work in generation_workloads(meta)}
    parsed: dict[str, Upstream] = {}
    refused: list[UpstreamError] = []
    for task, (data, name) in inputs.items():
        try:
            work = works.get(task)
            parsed[task] = parse_generation(data, name, work.kind, work) if work else parse_upstream(data, name, task)
        except UpstreamError as exc:
            refused.append(exc)
    if len(refused) == 1:
        raise refused[0]
    problems = [p for exc in refused for p in exc.problems]
    if not problems:
        every = [(inputs[task][1], row) for task, up in parsed.items() for row in up.rows]
        llm = [(inputs[task][1], row) for task, up in parsed.items() if task not in works for row in up.rows]
        problems = sorted({*model_faults(llm), *gpu_faults(every)})
    if problems:
        files = len({p.path for p in problems})
        raise UpstreamError(f"{len(problems)} problem(s) in {files} upstream file(s); nothing was written", problems)
    return {task: up.rows for task, up in parsed.items()}, {task: up.warnings for task, up in parsed.items()}


def parse_every_task(inputs: dict[str, tuple[bytes, str]]) -> dict[str, list[str]]:
    """parse_all with the workloads of metadata.toml: each task's warnings."""
    return parse_all(inputs, load_metadata(METADATA))[1]
