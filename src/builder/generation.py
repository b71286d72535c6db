"""Read and check an upstream generation task file (text to image, text to video): untrusted input stops here.

The steps are an LLM task file's (builder.upstream) with its own schema, schemas/inputs/generation-task.schema.json;
code adds num_gpus = ulysses_degree x ring_degree and the physics of each row. parse_all checks every task file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from builder.errors import Problem, UpstreamError
from builder.genmeta import GenerationWorkload, generation_workloads
from builder.names import name_fault
from builder.upstream import (
    Upstream,
    finish,
    gpu_faults,
    model_faults,
    name_faults,
    parse_upstream,
    read_task,
    sound_rows,
    task_fault,
)

INPUT_SCHEMA = "generation-task.schema.json"  # in schemas/inputs/
REL_TOLERANCE = 1e-9  # upstream's energy and throughput agree with power and latency to float precision
TASK_FIELDS = ("task", "task_display_name")  # the file's own labels; only the task is held to its pin
IDENTITY = ("model_id", "gpu_model", "num_gpus", "batch_size")  # what names a row in a message


@dataclass(frozen=True)
class GenRow:
    """One checked upstream configuration of an image or video workload, in neutral names."""

    nickname: str
    model_id: str
    architecture: str
    gpu_model: str
    weight_precision: str
    num_gpus: int
    batch_size: int
    ulysses_degree: int
    ring_degree: int
    inference_steps: int
    total_params_billions: float
    activated_params_billions: float
    avg_power_watts: float
    batch_latency_s: float
    energy_joules: float  # per image or per video
    throughput_per_sec: float  # images or videos per second
    width: int
    height: int
    num_frames: int | None = None  # video only
    fps: int | None = None  # video only


def upstream_names(kind: str) -> dict[str, str]:
    """GenRow field -> upstream field, for a kind ("image" or "video")."""
    own = {
        "energy_joules": f"energy_per_{kind}_joules",
        "throughput_per_sec": f"throughput_{kind}s_per_sec",
        "width": f"{kind}_width",
        "height": f"{kind}_height",
    }
    skipped = {"architecture"} if kind == "video" else {"architecture", "num_frames", "fps"}  # not fields of a row
    return {field.name: own.get(field.name, field.name) for field in fields(GenRow) if field.name not in skipped}


def parse_generation(data: bytes, path: str, kind: str, work: GenerationWorkload | None = None) -> Upstream:
    """The checked rows of an upstream task file of `kind` ("image" or "video") and its warnings, or
    UpstreamError listing every problem; `work`, when given, is the workload whose task the file must be."""
    doc, problems = read_task(data, path, INPUT_SCHEMA, f"#/$defs/{kind}Task")
    architecture = doc.get("architecture")
    if isinstance(architecture, str) and (fault := name_fault(architecture)):
        problems.append(Problem(path, "/architecture", fault))
    problems += task_fault(doc, path, work.task) if work else []
    names = upstream_names(kind)
    rows = {
        i: GenRow(architecture=architecture, **{f: raw[n] for f, n in names.items()})
        for i, raw in sound_rows(doc, problems)
    }
    for i, row in rows.items():
        problems += [Problem(path, f"/configurations/{i}/{names[name]}", msg) for name, msg in row_faults(row)]
    known = {*names.values(), *TASK_FIELDS, "architecture"}
    return Upstream(list(rows.values()), finish(problems, doc, rows, path, known, IDENTITY))


def row_faults(row: GenRow) -> list[tuple[str, str]]:
    """(GenRow field, fault) of one row on its own: its names, its GPU layout, its physics."""
    faults = name_faults(row, ("nickname", "gpu_model"))
    if row.num_gpus != row.ulysses_degree * row.ring_degree:
        layout = f"ulysses_degree x ring_degree = {row.ulysses_degree * row.ring_degree}"
        faults.append(("num_gpus", f"expected {layout}, found {row.num_gpus}"))
    energy = row.avg_power_watts * row.batch_latency_s / row.batch_size
    if not math.isclose(row.energy_joules, energy, rel_tol=REL_TOLERANCE):
        rule = f"avg_power_watts x batch_latency_s / batch_size = {energy!r}"
        faults.append(("energy_joules", f"expected {rule}, found {row.energy_joules!r}"))
    throughput = row.batch_size / row.batch_latency_s
    if not math.isclose(row.throughput_per_sec, throughput, rel_tol=REL_TOLERANCE):
        rule = f"batch_size / batch_latency_s = {throughput!r}"
        faults.append(("throughput_per_sec", f"expected {rule}, found {row.throughput_per_sec!r}"))
    return faults


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
