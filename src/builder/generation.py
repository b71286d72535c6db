"""Read and check an upstream generation task file (text to image, text to video): untrusted input stops here.

The bytes are parsed strictly (builder.upstream.load_json) and checked against
schemas/inputs/generation-task.schema.json; this module checks what a schema cannot: names without
control or format characters, one name and parameter count per model, one model per slug,
num_gpus = ulysses_degree x ring_degree, and the physics of every row.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Any

from builder.caps import check_caps
from builder.errors import Problem, UpstreamError, printable
from builder.inputs import schema_problems
from builder.names import gpu_case_faults, is_reserved_slug, name_fault
from builder.slug import slugify
from builder.upstream import load_json

INPUT_SCHEMA = "generation-task.schema.json"  # in schemas/inputs/
PRECISIONS = {"bfloat16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}
REL_TOLERANCE = 1e-9  # upstream's energy and throughput agree with power and latency to float precision
MAX_INT = 2**53
MODEL_FIELDS = ("nickname", "total_params_billions", "activated_params_billions")


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
    num_frames: int | None  # video only
    fps: int | None  # video only


def upstream_names(kind: str) -> dict[str, str]:
    """GenRow field -> upstream field, for a kind ("image" or "video")."""
    own = {
        "energy_joules": f"energy_per_{kind}_joules",
        "throughput_per_sec": f"throughput_{kind}s_per_sec",
        "width": f"{kind}_width",
        "height": f"{kind}_height",
    }
    if kind == "video":
        own |= {"num_frames": "num_frames", "fps": "fps"}
    shared = ("nickname", "model_id", "gpu_model", "weight_precision", "num_gpus", "batch_size", "ulysses_degree")
    shared += ("ring_degree", "inference_steps", "total_params_billions", "activated_params_billions")
    shared += ("avg_power_watts", "batch_latency_s")
    return {**{name: name for name in shared}, **own}


def control_characters(name: str) -> list[str]:
    """The Unicode control (Cc) and format (Cf) characters of a name, as U+XXXX."""
    return [f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")]


def parse_generation(data: bytes, path: str, kind: str) -> tuple[list[GenRow], list[str]]:
    """The checked rows of an upstream task file of `kind` ("image" or "video"), and warnings;
    UpstreamError listing every problem otherwise."""
    doc: Any = load_json(data, path)
    check_caps(doc, path)
    problems = schema_problems(INPUT_SCHEMA, doc, path, ref=f"#/$defs/{kind}Task")
    if problems:
        raise UpstreamError(f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems)
    names = upstream_names(kind)
    rows = []
    for raw in doc["configurations"]:
        values = {field: raw.get(name) for field, name in names.items()}
        rows.append(GenRow(architecture=doc["architecture"], **{"num_frames": None, "fps": None, **values}))
    problems = [Problem(path, f"/configurations/{i}", msg) for i, row in enumerate(rows) for msg in row_faults(row)]
    if fault := name_fault(doc["architecture"]):
        problems.append(Problem(path, "/architecture", fault))
    problems += model_faults(rows, path)
    if problems:
        raise UpstreamError(f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems)
    known = {*names.values(), "task", "task_display_name", "architecture"}
    unknown = sorted({k for raw in doc["configurations"] for k in raw} - known)
    warnings = [f"{path}: unknown upstream field(s) ignored: {printable(', '.join(unknown))}"] if unknown else []
    return rows, warnings


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
        faults.append(
            f"energy: expected avg_power_watts x batch_latency_s / batch_size = {energy!r}, found {row.energy_joules!r}"
        )
    throughput = row.batch_size / row.batch_latency_s
    if not math.isclose(row.throughput_per_sec, throughput, rel_tol=REL_TOLERANCE):
        faults.append(
            f"throughput: expected batch_size / batch_latency_s = {throughput!r}, found {row.throughput_per_sec!r}"
        )
    if row.avg_power_watts > MAX_INT or row.energy_joules * 1000 / 3600 > 1e12:
        faults.append("expected power and energy that round to exact numbers")
    return faults


def model_faults(rows: list[GenRow], path: str) -> list[Problem]:
    """One name and parameter count per model id, one model per slug, one spelling per GPU."""
    problems = []
    first: dict[str, GenRow] = {}
    owner: dict[str, str] = {}
    for row in rows:
        seen = first.setdefault(row.model_id, row)
        for name in MODEL_FIELDS:
            if getattr(row, name) != getattr(seen, name):
                msg = f"expected one {name} per model ({getattr(seen, name)!r}), found {getattr(row, name)!r}"
                problems.append(Problem(path, f"model {row.model_id}", msg))
        slug = slugify(row.nickname)
        if owner.setdefault(slug, row.model_id) != row.model_id:
            msg = f"expected one model per slug, found {owner[slug]} and {row.model_id} both as {slug!r}"
            problems.append(Problem(path, f"slug {slug}", msg))
    problems += [
        Problem(path, f"GPU {gpu}", msg) for _, gpu, msg in gpu_case_faults([(path, r.gpu_model) for r in rows])
    ]
    return sorted(set(problems))
