"""One upstream task file as a document, before its rows: read strictly (not an HTML page, within
the caps per task, against its schema), held to its pinned task, and its problems worded (a row's
named by its identity, once per model where the fault is the model's)."""

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from builder.errors import Problem, UpstreamError, printable, shown
from builder.jsonschemas import input_problems
from builder.layout import MAX_CONFIGURATIONS_PER_TASK, MAX_GPUS_PER_TASK, MAX_MODELS_PER_TASK
from builder.strictjson import StrictJSONError, parse_json

# what a model has once, whichever row: a fault in one is said once per model
MODEL_FIELDS = ("nickname", "architecture", "total_params_billions", "activated_params_billions")
_ROW = re.compile(r"/configurations/([0-9]+)(?=/|$)")


def read_task(
    data: bytes, path: str, schema: str, part: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[Problem], dict[int, Any]]:
    """A task file parsed strictly, every way it breaks `schema` (at `part`), and the rows no
    problem points into."""
    if data.lstrip()[:1] == b"<":
        problem = Problem.mismatch(
            path, "/", "upstream.html", "JSON", "what looks like an HTML page"
        )
        raise UpstreamError(f"{path}: not JSON; nothing was written", [problem])
    try:
        doc = parse_json(data)
    except StrictJSONError as exc:
        problems = exc.problems(path)
        raise UpstreamError(
            f"{path}: {len(problems)} problem(s) in upstream; nothing was written", problems
        ) from None
    check_caps(doc, path)
    problems = input_problems(schema, doc, path, part)
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("configurations"), list)
        or not doc["configurations"]
    ):
        raise UpstreamError(f"{path}: no configurations; nothing was written", problems)
    bad = {int(row[1]) for problem in problems if (row := _ROW.match(problem.where))}
    return doc, problems, {i: raw for i, raw in enumerate(doc["configurations"]) if i not in bad}


def task_fault(doc: dict[str, Any], path: str, task: str) -> list[Problem]:
    """The file's `task`, where it names one, against the task it is pinned as."""
    if doc.get("task", task) == task:
        return []
    return [
        Problem.mismatch(
            path, "/task", "upstream.task", f"the task file of {task}", shown(doc["task"])
        )
    ]


def check_caps(doc: Any, path: str) -> None:
    """UpstreamError naming `path` when its configurations, or the distinct model_id or gpu_model
    among them, pass their cap."""
    confs = doc.get("configurations") if isinstance(doc, dict) else None
    if not isinstance(confs, list):
        return

    # GPU names that differ by case alone count once: that fault is a row's own
    def distinct(
        key: str,
    ) -> int:
        return len(
            {
                c[key].casefold()
                for c in confs
                if isinstance(c, dict) and isinstance(c.get(key), str)
            }
        )

    counts = (
        (MAX_CONFIGURATIONS_PER_TASK, len(confs), "configurations"),
        (MAX_MODELS_PER_TASK, distinct("model_id"), "models (model_id)"),
        (MAX_GPUS_PER_TASK, distinct("gpu_model"), "GPU types (gpu_model)"),
    )
    over = [(f"at most {cap:,} {what} in a task", f"{n:,}") for cap, n, what in counts if n > cap]
    if over:
        found = [
            Problem.mismatch(path, "/configurations", "upstream.too-large", *pair) for pair in over
        ]
        raise UpstreamError(f"{path}: too large for one task; nothing was written", found)


def worded(
    problems: list[Problem],
    confs: list[Any],
    identity: tuple[str, ...],
    rules: Mapping[Problem, str],
) -> list[Problem]:
    """`problems`, each in a row named by that row's `identity` among `confs`: one for all the rows
    of a model where the fault is in a model field, or breaks one relation (`rules` giving each
    relation problem's rule), its first row named with how many more."""
    # what makes problems one -> [the first, the rows sharing it]
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for problem in problems:
        row = _ROW.match(problem.where)
        i, place = (int(row[1]), problem.where[row.end() :]) if row else (None, "")
        key: tuple[Any, ...] = (problem,)
        if i is not None and problem in rules:  # one model's rows that break one relation
            key = (repr(confs[i].get("model_id")), place, rules[problem])
        elif i is not None and place.lstrip("/") in ("model_id", *MODEL_FIELDS):  # a row object's
            key = (repr(confs[i].get("model_id")), place, problem.message)
        groups.setdefault(key, [problem]).extend([] if i is None else [i])
    found = []
    for problem, *sharing in groups.values():
        if sharing and isinstance(confs[sharing[0]], dict):
            model, gpu, count, last = (confs[sharing[0]].get(k, "?") for k in identity)
            more = len(sharing) - 1
            also = f", and {more} more row{'s' if more > 1 else ''} of this model" if more else ""
            named_by = printable(f" ({model}, {gpu}, {count} GPU(s), {identity[-1]} {last}{also})")
            problem = replace(problem, where=problem.where + named_by)
        found.append(problem)
    return found
