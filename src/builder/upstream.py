"""Read and check the upstream task file: untrusted input stops here.

Everything after `parse_upstream` works on `Row` values whose fields are present, typed,
finite, in range and safe to put in an id, a URL or a file name. Anywhere in the file, a number
that JSON or Python would not carry faithfully (NaN, Infinity, 1e999, an integer past 2^53 or with
thousands of digits) and a key given twice in one object are refused, with where they are.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, fields

from builder.errors import Problem, UpstreamError
from builder.layout import NUM_GPUS_RULE, num_gpus_for
from builder.slug import slugify

PRECISIONS = {"bfloat16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}"
PATTERNS = {
    "gpu_model": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}"),
    "model_id": re.compile(f"{_NAME}/{_NAME}"),
    "nickname": re.compile(r"[A-Za-z0-9][A-Za-z0-9 .,_()+-]{0,99}"),
    "architecture": re.compile(r"[A-Za-z0-9][A-Za-z0-9 .,_()+-]{0,63}"),
}
COUNTS = ("num_gpus", "tensor_parallel", "data_parallel", "expert_parallel", "max_num_seqs")
MEASURES = (
    "total_params_billions",
    "activated_params_billions",
    "avg_batch_size",
    "avg_output_len",
    "avg_power_watts",
    "energy_per_token_joules",
    "energy_per_request_joules",
    "output_throughput_tokens_per_sec",
    "median_itl_ms",
    "p90_itl_ms",
    "p95_itl_ms",
    "p99_itl_ms",
)
# Published by upstream but not used by the documents: known, so not warned about.
IGNORED: frozenset[str] = frozenset()
MODEL_FIELDS = ("nickname", "architecture", "total_params_billions", "activated_params_billions")

MAX_INT = 2**53  # the largest integer every JSON reader carries exactly
# A sane upper bound on every measure, far above any upstream publishes (the largest, tokens per
# second, is about 1.6e4), that keeps every derived value finite and every rounded integer exact.
MAX_MEASURE = 1e12
LONG_INT_DIGITS = 20  # longer integers are not converted at all (Python refuses past 4300 digits)


@dataclass(frozen=True)
class Row:
    """One checked upstream configuration, upstream field names kept."""

    nickname: str
    model_id: str
    architecture: str
    gpu_model: str
    weight_precision: str
    num_gpus: int
    tensor_parallel: int
    data_parallel: int
    expert_parallel: int
    max_num_seqs: int
    total_params_billions: float
    activated_params_billions: float
    avg_batch_size: float
    avg_output_len: float
    avg_power_watts: float
    energy_per_token_joules: float
    energy_per_request_joules: float  # energy_per_token_joules x avg_output_len, as upstream computes it
    output_throughput_tokens_per_sec: float
    median_itl_ms: float
    p90_itl_ms: float
    p95_itl_ms: float
    p99_itl_ms: float


CHECKED = frozenset(f.name for f in fields(Row))  # each checked by _row_faults
KNOWN = CHECKED | IGNORED


@dataclass(frozen=True)
class Upstream:
    rows: list[Row]
    warnings: list[str]


def parse_tasks(inputs: dict[str, tuple[bytes, str]]) -> dict[str, Upstream]:
    """Parse and check several task files (task -> bytes, name shown), then check them against each other.

    A model in several tasks must have one nickname, architecture and parameter counts
    everywhere, and a slug one model. UpstreamError lists every problem of every file.
    """
    parsed: dict[str, Upstream] = {}
    refused: list[UpstreamError] = []
    for task, (data, name) in inputs.items():
        try:
            parsed[task] = parse_upstream(data, name, task)
        except UpstreamError as exc:
            refused.append(exc)
    if len(refused) == 1:
        raise refused[0]
    problems = [p for exc in refused for p in exc.problems]
    if not problems:
        problems = _model_faults([(inputs[task][1], row) for task, up in parsed.items() for row in up.rows])
    if problems:
        files = len({p.path for p in problems})
        raise UpstreamError(f"{len(problems)} problem(s) in {files} upstream file(s); nothing was written", problems)
    return parsed


def parse_upstream(data: bytes, path: str, task: str | None = None) -> Upstream:
    """Parse and check upstream bytes (of `task`, when given); raise UpstreamError listing every problem."""
    doc = _load_json(data, path)
    configurations = _configurations(doc, path)
    problems = [Problem(path, where or "/", msg) for where, msg in _unsafe(doc, "", skip={"configurations"})]
    if task is not None and doc.get("task", task) != task:
        problems.append(Problem(path, "/task", f"expected the task file of {task}, found {_show(doc, 'task')}"))
    rows: list[Row] = []
    unknown: set[str] = set()
    for i, raw in enumerate(configurations):
        where = f"/configurations/{i}"
        if not isinstance(raw, dict):
            problems.append(Problem(path, where, f"expected an object, found {_kind(raw)}"))
            continue
        unknown |= raw.keys() - KNOWN
        faults = [(f"/{name}", msg) for name, msg in _row_faults(raw)] + _unsafe(raw, "", skip=CHECKED)
        found = [Problem(path, f"{where}{pointer} {_identity(raw)}", msg) for pointer, msg in faults]
        problems += found
        if not found:
            rows.append(Row(**{f.name: raw[f.name] for f in fields(Row)}))
    problems += _model_faults([(path, row) for row in rows])
    if problems:
        raise UpstreamError(f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems)
    warnings = [f"{path}: unknown upstream field(s) ignored: {', '.join(sorted(unknown))}"] if unknown else []
    return Upstream(rows, warnings)


class _LongInt:
    """An integer literal too long to convert: kept as its length, refused by the checks."""

    def __init__(self, text: str) -> None:
        self.negative = text.startswith("-")
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"{'a negative' if self.negative else 'an'} integer of {self.digits} digits"


class _Object(dict):
    """A JSON object that remembers the keys it was given more than once."""

    duplicates: tuple[str, ...] = ()


def _parse_int(text: str) -> int | _LongInt:
    return int(text) if len(text.lstrip("-")) <= LONG_INT_DIGITS else _LongInt(text)


def _object(pairs: list[tuple[str, object]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        obj.duplicates = tuple(sorted({key for key, _ in pairs if key in seen or seen.add(key)}))
    return obj


def _load_json(data: bytes, path: str) -> object:
    if data.lstrip()[:1] == b"<":
        problem = Problem(path, "/", "expected JSON, found what looks like an HTML page")
        raise UpstreamError(f"{path}: not JSON; nothing was written", [problem])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = Problem(path, f"byte {exc.start}", f"expected UTF-8 text, found the byte {data[exc.start]:#04x}")
        raise UpstreamError(f"{path}: not UTF-8 text; nothing was written", [problem]) from exc
    try:
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=_object)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else "/"
        problem = Problem(path, where, f"expected JSON, found invalid JSON ({exc})")
        raise UpstreamError(f"{path}: not JSON; nothing was written", [problem]) from exc


def _configurations(doc: object, path: str) -> list:
    confs = doc.get("configurations") if isinstance(doc, dict) else None
    if not isinstance(confs, list) or not confs:
        found = f"an object whose configurations is {_kind(confs)}" if isinstance(doc, dict) else _kind(doc)
        msg = f"expected an object with a non-empty configurations list, found {found}"
        raise UpstreamError(f"{path}: no configurations; nothing was written", [Problem(path, "/", msg)])
    return confs


def _row_faults(raw: dict) -> list[tuple[str, str]]:
    faults = []
    for name, pattern in PATTERNS.items():
        value = raw.get(name)
        if not isinstance(value, str) or not pattern.fullmatch(value):
            faults.append((name, f"expected a string matching {pattern.pattern}, found {_show(raw, name)}"))
    if "nickname" not in dict(faults) and not slugify(raw["nickname"]):
        faults.append(("nickname", f"expected a name whose slug is not empty, found {raw['nickname']!r}"))
    if raw.get("weight_precision") not in PRECISIONS:
        found = _show(raw, "weight_precision")
        faults.append(("weight_precision", f"expected one of {sorted(PRECISIONS)}, found {found}"))
    for name in COUNTS:
        value = raw.get(name)
        if _above(value, MAX_INT):
            faults.append((name, f"expected an integer <= 2^53 ({MAX_INT}), found {_show(raw, name)}"))
        elif not _is_int(value) or value < 1:
            faults.append((name, f"expected an integer >= 1, found {_show(raw, name)}"))
    for name in MEASURES:
        value = raw.get(name)
        if _above(value, MAX_MEASURE):
            faults.append((name, f"expected at most {MAX_MEASURE:g} (a sane upper bound), found {_show(raw, name)}"))
        elif not _is_number(value) or not math.isfinite(value) or value <= 0:
            faults.append((name, f"expected a finite number > 0, found {_show(raw, name)}"))
    if not faults:
        faults += _derived_faults(raw)
    if not faults:
        layout = num_gpus_for(raw["tensor_parallel"], raw["data_parallel"], raw["expert_parallel"])
        if raw["num_gpus"] != layout:
            faults.append(("num_gpus", f"expected {NUM_GPUS_RULE} = {layout}, found {raw['num_gpus']}"))
    return faults


def _derived_faults(raw: dict) -> list[tuple[str, str]]:
    """The values the documents derive must be finite, and the rounded integers exact (see transform)."""
    derived = {
        "energy_per_token_joules": ("wh_per_million_output_tokens", raw["energy_per_token_joules"] * 1e6 / 3600),
        "avg_power_watts": ("gpu_power_watts_total", raw["avg_power_watts"]),
        "avg_output_len": ("avg_output_tokens", raw["avg_output_len"]),
    }
    return [
        (name, f"expected a value whose {field} is finite and <= 2^53, found {raw[name]!r} ({field} {value!r})")
        for name, (field, value) in derived.items()
        if not math.isfinite(value) or value > MAX_INT
    ]


def _unsafe(value: object, where: str, skip: frozenset[str] | set[str] = frozenset()) -> list[tuple[str, str]]:
    """(JSON pointer, message) for every number JSON cannot carry faithfully and every key given twice.

    `skip` names keys of the outer object whose values are checked elsewhere. Iterative: upstream
    may nest as deep as the JSON parser allows.
    """
    found: list[tuple[str, str]] = []
    todo: list[tuple[str, object, frozenset[str] | set[str]]] = [(where, value, skip)]
    while todo:
        where, value, skip = todo.pop()
        if isinstance(value, _Object) and value.duplicates:
            keys = ", ".join(repr(k) for k in value.duplicates)
            found.append((where, f"expected each key once in an object, found {keys} more than once"))
        if isinstance(value, dict):
            todo += [(f"{where}/{_escape(k)}", v, frozenset()) for k, v in value.items() if k not in skip]
        elif isinstance(value, list):
            todo += [(f"{where}/{i}", v, frozenset()) for i, v in enumerate(value)]
        elif isinstance(value, _LongInt):
            found.append((where, f"expected a number JSON carries exactly, found {value!r}"))
        elif isinstance(value, float) and not math.isfinite(value):
            found.append((where, f"expected a finite number, found {value!r}"))
        elif _is_int(value) and abs(value) > MAX_INT:  # type: ignore[arg-type]
            found.append((where, f"expected an integer within +-2^53 ({MAX_INT}), found {value}"))
    return sorted(found)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _model_faults(rows: list[tuple[str, Row]]) -> list[Problem]:
    """One nickname, architecture and parameter counts per model, one model per slug, over (file, row) pairs."""
    problems = []
    first: dict[str, tuple[str, Row]] = {}
    slug_owner: dict[str, tuple[str, str]] = {}
    for path, row in rows:
        seen_in, seen = first.setdefault(row.model_id, (path, row))
        there = "" if seen_in == path else f" in {seen_in}"
        for name in MODEL_FIELDS:
            if getattr(row, name) != getattr(seen, name):
                msg = f"expected one {name} per model ({getattr(seen, name)!r}{there}), found {getattr(row, name)!r}"
                problems.append(Problem(path, f"model {row.model_id}", msg))
        slug = slugify(row.nickname)
        owned_in, owner = slug_owner.setdefault(slug, (path, row.model_id))
        if owner != row.model_id:
            there = "" if owned_in == path else f" (in {owned_in})"
            msg = f"expected one model per slug, found {owner}{there} and {row.model_id} both as {slug!r}"
            problems.append(Problem(path, f"slug {slug}", msg))
    return sorted(set(problems))


def _identity(raw: dict) -> str:
    model, gpu, count, seqs = (raw.get(k, "?") for k in ("model_id", "gpu_model", "num_gpus", "max_num_seqs"))
    return f"({model}, {gpu}, {count} GPU(s), max_num_seqs {seqs})"


def _show(raw: dict, name: str) -> str:
    return repr(raw[name]) if name in raw else "nothing (field missing)"


def _kind(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _above(value: object, bound: float) -> bool:
    """A number past `bound` (not infinity: that is not a finite number at all)."""
    if isinstance(value, _LongInt):
        return not value.negative
    return _is_number(value) and math.isfinite(value) and value > bound  # type: ignore[operator]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
