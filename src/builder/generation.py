"""Read and check an upstream generation task file (text to image, text to video): untrusted input stops here.

Parsed strictly and checked against schemas/inputs/generation-task.schema.json like an LLM task file;
code adds names, num_gpus = ulysses_degree x ring_degree, the physics of each row and the rules across rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from builder.caps import check_caps
from builder.errors import Problem, UpstreamError, printable
from builder.inputs import schema_problems
from builder.names import control_characters, is_reserved_slug, name_fault
from builder.slug import slugify
from builder.upstream import load_json, model_faults, task_fault

if TYPE_CHECKING:
    from builder.genmeta import GenerationWorkload

INPUT_SCHEMA = "generation-task.schema.json"  # in schemas/inputs/
REL_TOLERANCE = 1e-9  # upstream's energy and throughput agree with power and latency to float precision
MAX_INT = 2**53
TASK_FIELDS = ("task", "task_display_name")  # the file's own labels; only the task is held to its pin


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


def parse_generation(
    data: bytes, path: str, kind: str, work: GenerationWorkload | None = None
) -> tuple[list[GenRow], list[str]]:
    """The checked rows of an upstream task file of `kind` ("image" or "video") and its warnings, or
    UpstreamError listing every problem; `work`, when given, is the workload whose task the file must be."""
    doc: Any = load_json(data, path)
    check_caps(doc, path)
    problems = schema_problems(INPUT_SCHEMA, doc, path, ref=f"#/$defs/{kind}Task")
    if problems:
        raise UpstreamError(f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems)
    names = upstream_names(kind)
    rows = [
        GenRow(architecture=doc["architecture"], **{f: raw[n] for f, n in names.items()})
        for raw in doc["configurations"]
    ]
    problems = row_problems(rows, path)
    if fault := name_fault(doc["architecture"]):
        problems.append(Problem(path, "/architecture", fault))
    problems += task_fault(doc, path, work.task) if work else []
    problems += model_faults([(path, row) for row in rows])
    if problems:
        raise UpstreamError(f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems)
    known = {*names.values(), *TASK_FIELDS, "architecture"}
    unknown = sorted({k for raw in doc["configurations"] for k in raw} - known)
    warnings = [f"{path}: unknown upstream field(s) ignored: {printable(', '.join(unknown))}"] if unknown else []
    return rows, warnings


def row_problems(rows: list[GenRow], path: str) -> list[Problem]:
    """Each row's faults; a nickname fault that a model's rows share is shown once, at its first row,
    with how many more rows share it."""
    problems: list[Problem] = []
    shared: dict[tuple[str, str], list[int]] = {}  # (model, fault) -> [index in problems, rows that share it]
    for i, row in enumerate(rows):
        for msg in row_faults(row):
            if msg.startswith("nickname: "):
                if (row.model_id, msg) in shared:
                    shared[row.model_id, msg][1] += 1
                    continue
                shared[row.model_id, msg] = [len(problems), 0]
            problems.append(Problem(path, f"/configurations/{i}", msg))
    for at, more in shared.values():
        if more:
            also = f" (and {more} more row{'s' if more > 1 else ''} of this model)"
            problems[at] = replace(problems[at], where=problems[at].where + also)
    return problems


def row_faults(row: GenRow) -> list[str]:
    """What is wrong with one row on its own: its name, its GPU layout, its physics."""
    faults = []
    if control_characters(row.nickname):
        faults.append(f"nickname: expected no control or format characters, found {control_characters(row.nickname)}")
    faults += [f"{name}: {fault}" for name in ("nickname", "gpu_model") if (fault := name_fault(getattr(row, name)))]
    if not slugify(row.nickname):
        faults.append(f"nickname: expected a name whose slug is not empty, found {row.nickname!r}")
    if is_reserved_slug(slugify(row.nickname)):
        faults.append(f"nickname: expected a slug Windows allows as a file name, found {slugify(row.nickname)!r}")
    if row.num_gpus != row.ulysses_degree * row.ring_degree:
        faults.append(f"num_gpus: expected ulysses_degree x ring_degree = {row.ulysses_degree * row.ring_degree}")
    energy = row.avg_power_watts * row.batch_latency_s / row.batch_size
    if not math.isclose(row.energy_joules, energy, rel_tol=REL_TOLERANCE):
        rule = f"avg_power_watts x batch_latency_s / batch_size = {energy!r}"
        faults.append(f"energy: expected {rule}, found {row.energy_joules!r}")
    throughput = row.batch_size / row.batch_latency_s
    if not math.isclose(row.throughput_per_sec, throughput, rel_tol=REL_TOLERANCE):
        rule = f"batch_size / batch_latency_s = {throughput!r}"
        faults.append(f"throughput: expected {rule}, found {row.throughput_per_sec!r}")
    if row.avg_power_watts > MAX_INT or row.energy_joules * 1000 / 3600 > 1e12:
        faults.append("expected power and energy that round to exact numbers")
    return faults
