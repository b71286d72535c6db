"""Check the rows of the upstream task files, LLM, image and video, each file and all at once:
untrusted input stops here (upstream_task reads a file as a document, before its rows)."""

from collections.abc import Mapping
from dataclasses import dataclass, fields
from operator import attrgetter, itemgetter
from types import MappingProxyType
from typing import Any

from builder.errors import Problem, Said, UpstreamError, printable
from builder.jsonschemas import GENERATION_TASK_SCHEMA, TASK_SCHEMA
from builder.layout import (
    NUM_GPUS_RULE,
    num_gpus_for,
)
from builder.metadata import GenerationWorkloadMeta, generation_workloads
from builder.names import gpu_spelling_faults, is_reserved_slug, name_fault, slugify
from builder.relations import (
    GENERATION_ORDERS,
    GENERATION_RELATIONS,
    LLM_ORDERS,
    LLM_RELATIONS,
    Order,
    Relation,
    relation_faults,
)
from builder.upstream_task import MODEL_FIELDS, read_task, task_fault, worded

PRECISIONS = {"bfloat16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}
# in CSV cells and paths: each must stay text
NAME_FIELDS = (
    "model_id",
    "nickname",
    "gpu_model",
    "architecture",
)
IDENTITY = ("model_id", "gpu_model", "num_gpus", "max_num_seqs")  # what names a row in a message
GENERATION_IDENTITY = ("model_id", "gpu_model", "num_gpus", "batch_size")  # an image or video row's
# an image or video file's own labels; only the task is held to its pin
TASK_FIELDS = (
    "task",
    "task_display_name",
)
OWN_NAMES = {
    "energy_joules": "energy_per_{}_joules",
    "throughput_per_sec": "throughput_{}s_per_sec",
}
# GenRow field -> upstream field, {} the kind
OWN_NAMES |= {
    "width": "{}_width",
    "height": "{}_height",
}


# Rows are made once, from checked values, and only read (no code assigns to or hashes one): not
# frozen, as a frozen dataclass sets each field through object.__setattr__, a slow call.
@dataclass(slots=True)
class UpstreamRow:
    """What a checked upstream configuration of any kind holds: its model, GPUs and power,
    upstream names kept."""

    nickname: str
    model_id: str
    architecture: str
    gpu_model: str
    weight_precision: str
    num_gpus: int
    total_params_billions: float
    activated_params_billions: float
    avg_power_watts: float


@dataclass(slots=True)
class Row(UpstreamRow):
    """One checked upstream configuration of an LLM workload, upstream field names kept."""

    tensor_parallel: int
    data_parallel: int
    expert_parallel: int
    max_num_seqs: int
    avg_batch_size: float
    avg_output_len: float
    energy_per_token_joules: float
    energy_per_request_joules: (
        float  # energy_per_token_joules x avg_output_len, as upstream computes it
    )
    output_throughput_tokens_per_sec: float
    median_itl_ms: float
    p90_itl_ms: float
    p95_itl_ms: float
    p99_itl_ms: float


@dataclass(slots=True)
class GenRow(UpstreamRow):
    """One checked upstream configuration of an image or video workload, its own fields in
    neutral names."""

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


# each row class's field names, in order (dataclasses.fields makes them anew each call)
FIELD_NAMES: dict[type[UpstreamRow], tuple[str, ...]] = {
    kind: tuple(f.name for f in fields(kind)) for kind in (Row, GenRow)
}
ROW_FIELDS = FIELD_NAMES[Row]
# the fields that hold text: a task file repeats a model's names on each of its rows
TEXT_FIELDS = frozenset(f.name for kind in (Row, GenRow) for f in fields(kind) if f.type is str)
KNOWN = frozenset(ROW_FIELDS)
Parsed = tuple[list[UpstreamRow], list[str]]  # the checked rows of a task file, and its warnings


def parse_upstream(data: bytes, path: str, task: str) -> Parsed:
    """Parse and check the LLM upstream bytes of `task`; raise UpstreamError listing every
    problem."""
    doc, problems, sound = read_task(data, path, TASK_SCHEMA)
    problems += task_fault(doc, path, task)
    values = row_values(sound, {name: name for name in ROW_FIELDS})
    rows = {i: Row(**row) for i, row in values.items()}
    misread = names_misread(rows, NAME_FIELDS)
    for i, row in rows.items():
        at = f"/configurations/{i}"
        faults = misread.get(i, ())
        problems += [Problem.of(path, f"{at}/{name}", "upstream.name", m) for name, m in faults]
        layout = num_gpus_for(row.tensor_parallel, row.data_parallel, row.expert_parallel)
        if row.num_gpus != layout:
            said = Said(f"{NUM_GPUS_RULE} = {layout}", str(row.num_gpus))
            problems.append(Problem.of(path, f"{at}/num_gpus", "upstream.num-gpus", said))
    broken = relation_problems(path, values, LLM_RELATIONS, LLM_ORDERS, {})
    return list(rows.values()), finish(
        problems + list(broken), doc, rows, path, KNOWN, IDENTITY, broken
    )


def parse_generation(data: bytes, path: str, work: GenerationWorkloadMeta) -> Parsed:
    """The checked rows and warnings of the task file of `work`, or UpstreamError."""
    doc, problems, sound = read_task(
        data, path, GENERATION_TASK_SCHEMA, ("$defs", f"{work.kind}Task")
    )
    architecture = doc.get("architecture")
    if isinstance(architecture, str) and (fault := name_fault(architecture)):
        problems.append(Problem.of(path, "/architecture", "upstream.architecture", fault))
    problems += task_fault(doc, path, work.task)
    # not fields of a row
    skipped = {"architecture"} if work.kind == "video" else {"architecture", "num_frames", "fps"}
    names = {
        f.name: OWN_NAMES.get(f.name, f.name).format(work.kind)
        for f in fields(GenRow)
        if f.name not in skipped
    }
    values = row_values(sound, names)
    rows = {i: GenRow(architecture=str(architecture), **row) for i, row in values.items()}
    misread = names_misread(rows, ("model_id", "nickname", "gpu_model"))
    for i, row in rows.items():
        at = f"/configurations/{i}"
        faults = misread.get(i, ())
        problems += [Problem.of(path, f"{at}/{names[n]}", "upstream.name", m) for n, m in faults]
        if row.num_gpus != row.ulysses_degree * row.ring_degree:
            layout = f"ulysses_degree x ring_degree = {row.ulysses_degree * row.ring_degree}"
            said = Said(layout, str(row.num_gpus))
            problems.append(
                Problem.of(path, f"{at}/{names['num_gpus']}", "upstream.num-gpus", said)
            )
    broken = relation_problems(path, values, GENERATION_RELATIONS, GENERATION_ORDERS, names)
    known = {*names.values(), *TASK_FIELDS, "architecture"}
    return list(rows.values()), finish(
        problems + list(broken), doc, rows, path, known, GENERATION_IDENTITY, broken
    )


def row_values(sound: dict[int, Any], names: Mapping[str, str]) -> dict[int, dict[str, Any]]:
    """Each sound row's values by field (`names`: field -> upstream's name), each text the object
    the first row with it holds: the rows of a model share its names."""
    keys, upstream = tuple(names), itemgetter(*names.values())
    texts = [key for key in keys if key in TEXT_FIELDS]
    seen: dict[str, str] = {}
    found = {}
    for i, raw in sound.items():
        values = found[i] = dict(zip(keys, upstream(raw), strict=True))
        for key in texts:
            values[key] = seen.setdefault(values[key], values[key])
    return found


def names_misread(
    rows: Mapping[int, UpstreamRow], fields: tuple[str, ...]
) -> dict[int, list[tuple[str, Said]]]:
    """The name_faults of each row with any, by row: the rows of a model repeat its names, each
    set of `fields` checked once."""
    names_of = attrgetter(*fields)
    checked: dict[tuple[str, ...], list[tuple[str, Said]]] = {}
    found = {}
    for i, row in rows.items():
        if (faults := checked.get(key := names_of(row))) is None:
            faults = checked[key] = name_faults(row, fields)
        if faults:
            found[i] = faults
    return found


def relation_problems(
    path: str,
    rows: Mapping[int, Mapping[str, Any]],
    relations: tuple[Relation, ...],
    orders: tuple[Order, ...],
    names: Mapping[str, str],
) -> dict[Problem, str]:
    """Each row's broken relations and orders (builder.relations; `rows`: each row's values by
    field) as problems at upstream's `names`, with the rule each breaks (finish names the rows of
    one model that break one rule on one line)."""
    found = {}
    for i, values in rows.items():
        for fault in relation_faults(values, relations, orders):
            where = f"/configurations/{i}/{names.get(fault.field, fault.field)}"
            want = f"{fault.rule} = {fault.expected!r}"
            found[Problem.mismatch(path, where, "upstream.relation", want, repr(fault.found))] = (
                fault.rule
            )
    return found


def parse_all(
    inputs: dict[str, tuple[bytes, str]], meta: dict[str, Any]
) -> tuple[dict[str, list[UpstreamRow]], dict[str, list[str]]]:
    """The rows and warnings by task of every task file (task -> bytes, name shown), the rules
    across files checked."""
    works = {work.task: work for work in generation_workloads(meta)}
    parsed: dict[str, Parsed] = {}
    refused: list[UpstreamError] = []
    for task, (data, name) in inputs.items():
        try:
            work = works.get(task)
            parsed[task] = (
                parse_generation(data, name, work) if work else parse_upstream(data, name, task)
            )
        except UpstreamError as exc:
            refused.append(exc)
    if len(refused) == 1:
        raise refused[0]
    problems = [p for exc in refused for p in exc.problems]
    if not problems:
        every = [(inputs[task][1], row) for task, (rows, _) in parsed.items() for row in rows]
        llm = [
            (inputs[task][1], row)
            for task, (rows, _) in parsed.items()
            if task not in works
            for row in rows
        ]
        problems = sorted({*model_faults(llm), *gpu_faults(every)})
    if problems:
        files = len({p.path for p in problems})
        raise UpstreamError(
            f"{len(problems)} problem(s) in {files} upstream file(s); nothing was written", problems
        )
    return {task: rows for task, (rows, _) in parsed.items()}, {
        task: found for task, (_, found) in parsed.items()
    }


def name_faults(row: UpstreamRow, names: tuple[str, ...]) -> list[tuple[str, Said]]:
    """(field, fault) for each of a row's `names` a spreadsheet misreads, and a nickname's slug that
    is empty, reserved, or misread."""
    faults = [(name, fault) for name in names if (fault := name_fault(getattr(row, name)))]
    slug = slugify(row.nickname)
    if not slug:
        faults.append(("nickname", Said("a name whose slug is not empty", repr(row.nickname))))
    if is_reserved_slug(slug):
        faults.append(("nickname", Said("a slug Windows allows as a file name", repr(slug))))
    if is_reserved_slug(slugify(row.gpu_model)):  # its page's folder, gpus/<slug>/
        faults.append(
            ("gpu_model", Said("a GPU name Windows allows as a folder name", repr(row.gpu_model)))
        )
    # a nickname misread is said once, not again of its slug
    said = any(name == "nickname" for name, _ in faults)
    if slug and not said and (fault := name_fault(slug, "a slug")):
        faults.append(("nickname", fault))
    return faults


def finish(
    problems: list[Problem],
    doc: dict[str, Any],
    rows: dict[int, Any],
    path: str,
    known: Any,
    identity: tuple[str, ...],
    rules: Mapping[Problem, str] = MappingProxyType({}),
) -> list[str]:
    """All problems in an UpstreamError, worded by `worded` (a row's named by its `identity`,
    `rules` giving each relation problem's rule), then the model and GPU faults among `rows`;
    without any, warnings."""
    confs = doc["configurations"]
    problems = worded(problems, confs, identity, rules)
    pairs = [(path, row) for row in rows.values()]
    problems += sorted({*model_faults(pairs), *gpu_faults(pairs)})
    if problems:
        raise UpstreamError(
            f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems
        )
    unknown = sorted(set().union(*confs) - set(known))  # no problem: every row is an object
    return (
        [f"{path}: unknown upstream field(s) ignored: {printable(', '.join(unknown))}"]
        if unknown
        else []
    )


def gpu_faults(rows: list[tuple[str, UpstreamRow]]) -> list[Problem]:
    """One spelling per GPU over (file, row) pairs."""
    # a file's rows repeat its GPUs: each (file, GPU) once, a fault found once
    gpus = gpu_spelling_faults(list(dict.fromkeys((path, row.gpu_model) for path, row in rows)))
    return [Problem.of(path, f"GPU {gpu}", "upstream.gpu-spelling", msg) for path, gpu, msg in gpus]


MODEL_VALUES = attrgetter("model_id", *MODEL_FIELDS)  # a row's model, as model_faults checks it


def model_faults(rows: list[tuple[str, UpstreamRow]]) -> list[Problem]:
    """One spelling per model id (not only by case), one nickname, architecture and parameter
    counts per model and one model per slug, over (file, row) pairs."""
    problems = []
    first: dict[str, tuple[str, UpstreamRow]] = {}
    slug_owner: dict[str, tuple[str, str]] = {}
    spelt: dict[str, tuple[str, str]] = {}  # by model_id casefolded: its first spelling
    # a file's rows of a model repeat what is checked here: each alike row once, its faults the same
    alike = {(path, *MODEL_VALUES(row)): (path, row) for path, row in rows}
    for path, row in alike.values():
        spelt_in, spelling = spelt.setdefault(row.model_id.casefold(), (path, row.model_id))
        if spelling != row.model_id:
            there = "" if spelt_in == path else f" in {spelt_in}"
            both = f"{spelling!r}{there} and {row.model_id!r}"
            problems.append(
                Problem.mismatch(
                    path,
                    f"model {row.model_id}",
                    "upstream.model-id-case",
                    "one spelling per model id",
                    both,
                )
            )
        seen_in, seen = first.setdefault(row.model_id, (path, row))
        there = "" if seen_in == path else f" in {seen_in}"
        for name in MODEL_FIELDS:
            if getattr(row, name) != getattr(seen, name):
                want, got = (
                    f"one {name} per model ({getattr(seen, name)!r}{there})",
                    repr(getattr(row, name)),
                )
                problems.append(
                    Problem.mismatch(path, f"model {row.model_id}", "upstream.model", want, got)
                )
        slug = slugify(row.nickname)
        owned_in, owner = slug_owner.setdefault(slug, (path, row.model_id))
        if owner != row.model_id:
            there = "" if owned_in == path else f" (in {owned_in})"
            both = f"{owner}{there} and {row.model_id} both as {slug!r}"
            problems.append(
                Problem.mismatch(path, f"slug {slug}", "upstream.slug", "one model per slug", both)
            )
    return problems
