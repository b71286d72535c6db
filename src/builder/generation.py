"""Read and check an upstream image or video task file with builder.upstream's steps, and every task file at once."""

import math
from dataclasses import dataclass, fields

from builder import upstream
from builder.errors import Problem, UpstreamError
from builder.metadata import GenerationWorkload, generation_workloads
from builder.names import name_fault
from builder.upstream import parse_upstream

INPUT_SCHEMA = "generation-task.schema.json"  # in schemas/inputs/
REL_TOLERANCE = 1e-9  # upstream's energy and throughput agree with power and latency to float precision
TASK_FIELDS = ("task", "task_display_name")  # the file's own labels; only the task is held to its pin
IDENTITY = ("model_id", "gpu_model", "num_gpus", "batch_size")  # what names a row in a message
OWN_NAMES = {"energy_joules": "energy_per_{}_joules", "throughput_per_sec": "throughput_{}s_per_sec"}
OWN_NAMES |= {"width": "{}_width", "height": "{}_height"}  # GenRow field -> upstream field, {} the kind


@dataclass(frozen=True)
class GenRow(upstream.UpstreamRow):
    """One checked upstream configuration of an image or video workload, its own fields in neutral names."""

    batch_size: int
    ulysses_degree: int
    ring_degree: int
    inference_steps: int
    batch_latency_s: float
    energy_joules: float  # per image or per video
    throughput_per_sec: float  # images or videos per second
    width: int
    height: int
    num_frames: int | None = None  # video only
    fps: int | None = None  # video only


def parse_generation(data: bytes, path: str, work: GenerationWorkload) -> upstream.Parsed:
    """The checked rows and warnings of the task file of `work`, or UpstreamError."""
    doc, problems, sound = upstream.read_task(data, path, INPUT_SCHEMA, f"#/$defs/{work.kind}Task")
    architecture = doc.get("architecture")
    if isinstance(architecture, str) and (fault := name_fault(architecture)):
        problems.append(Problem(path, "/architecture", fault))
    problems += upstream.task_fault(doc, path, work.task)
    skipped = {"architecture"} if work.kind == "video" else {"architecture", "num_frames", "fps"}  # not fields of a row
    names = {f.name: OWN_NAMES.get(f.name, f.name).format(work.kind) for f in fields(GenRow) if f.name not in skipped}
    rows = {i: GenRow(architecture=architecture, **{f: raw[n] for f, n in names.items()}) for i, raw in sound.items()}
    for i, row in rows.items():
        faults = upstream.name_faults(row, ("nickname", "gpu_model"))
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
        problems += [Problem(path, f"/configurations/{i}/{names[name]}", msg) for name, msg in faults]
    known = {*names.values(), *TASK_FIELDS, "architecture"}
    return list(rows.values()), upstream.finish(problems, doc, rows, path, known, IDENTITY)


def parse_all(inputs: dict[str, tuple[bytes, str]], meta: dict) -> tuple[dict[str, list], dict[str, list[str]]]:
    """The rows and warnings by task of every task file (task -> bytes, name shown), the rules across files checked."""
    works = {work.task: work for work in generation_workloads(meta)}
    parsed: dict[str, upstream.Parsed] = {}
    refused: list[UpstreamError] = []
    for task, (data, name) in inputs.items():
        try:
            work = works.get(task)
            parsed[task] = parse_generation(data, name, work) if work else parse_upstream(data, name, task)
        except UpstreamError as exc:
            refused.append(exc)
    if len(refused) == 1:
        raise refused[0]
    problems = [p for exc in refused for p in exc.problems]
    if not problems:
        every = [(inputs[task][1], row) for task, (rows, _) in parsed.items() for row in rows]
        llm = [(inputs[task][1], row) for task, (rows, _) in parsed.items() if task not in works for row in rows]
        problems = sorted({*upstream.model_faults(llm), *upstream.gpu_faults(every)})
    if problems:
        files = len({p.path for p in problems})
        raise UpstreamError(f"{len(problems)} problem(s) in {files} upstream file(s); nothing was written", problems)
    return {task: rows for task, (rows, _) in parsed.items()}, {task: found for task, (_, found) in parsed.items()}
