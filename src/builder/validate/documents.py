"""Rules inside one model document of either kind of workload: dates, file name, gpus, row ids, repeats,
order and best."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from builder.errors import Problem
from builder.layout import ROOT_WORKLOAD, model_rel, row_id, workload_of
from builder.transform import GENERATION_ORDER, LLM_ORDER, best_by_gpu, gen_row_id, measure_keys


def rules_of(doc: dict[str, Any]) -> tuple[tuple[str, ...], Callable[..., str], str, str]:
    """A model document's configuration order (the parts of its row ids), row id maker, flag of a configuration
    within the latency rule, and the energy that `best` is lowest on."""
    if "kind" in doc:  # a generation workload's
        return GENERATION_ORDER, gen_row_id, "under_latency_limit", measure_keys(doc["kind"])[0]
    return LLM_ORDER, row_id, "under_itl_deadline", "joules_per_output_token"


def check_dates(shown: str, doc: dict[str, Any]) -> list[Problem]:
    if doc["updated"] != doc["data_version"]:
        return [Problem(shown, "/updated", f"expected data_version {doc['data_version']}, found {doc['updated']}")]
    return []


def check_model(shown: str, rel: str, doc: dict[str, Any]) -> list[Problem]:
    problems = check_dates(shown, doc)
    order_keys, make_id, within, joules = rules_of(doc)
    slug = doc["slug"]
    want = model_rel(slug, workload_of(rel) or ROOT_WORKLOAD)
    if rel != want:
        problems.append(Problem(shown, "/slug", f"expected the file name {want}, found {rel}"))
    confs = doc["configurations"]
    gpus = sorted({c["gpu"] for c in confs})
    if doc["gpus"] != gpus:
        problems.append(Problem(shown, "/gpus", f"expected the configurations' GPUs {gpus}, found {doc['gpus']}"))
    counts: Counter[str] = Counter()
    for i, conf in enumerate(confs):
        want = make_id(slug, *(conf[k] for k in order_keys))
        if conf["row_id"] != want:
            problems.append(Problem(shown, f"/configurations/{i}/row_id", f"expected {want}, found {conf['row_id']}"))
        counts[conf["row_id"]] += 1
        if conf["repeat"] != counts[conf["row_id"]]:
            msg = f"expected {counts[conf['row_id']]} (repeats count 1, 2, ... per row_id), found {conf['repeat']}"
            problems.append(Problem(shown, f"/configurations/{i}/repeat", msg))
    order = [tuple(c[k] for k in order_keys) for c in confs]
    if order != sorted(order):
        at = next(i for i, (a, b) in enumerate(pairwise(order)) if a > b) + 1
        found = f"{order[at]} after {order[at - 1]}"
        msg = f"expected configurations ordered by ({', '.join(order_keys)}), found {found}"
        problems.append(Problem(shown, f"/configurations/{at}", msg))
    return problems + check_best(shown, doc, best_by_gpu(confs, within, joules))


def check_best(shown: str, doc: dict[str, Any], expected: dict[str, Any]) -> list[Problem]:
    """best[gpu] is the lowest-energy configuration under the deadline; only GPUs with one appear."""
    problems = []
    if list(doc["best"]) != list(expected):
        want = list(expected)
        msg = f"expected GPUs {want} (those with a configuration under the deadline, sorted), found {list(doc['best'])}"
        problems.append(Problem(shown, "/best", msg))
    for gpu, conf in doc["best"].items():
        want = expected.get(gpu)
        if want is not None and conf != want:
            named = name_of(want)
            msg = f"expected the lowest-energy configuration under the deadline, {named}, found {name_of(conf)}"
            if (conf["row_id"], conf["repeat"]) == (want["row_id"], want["repeat"]):
                diff = ", ".join(k for k in want if conf.get(k) != want[k])
                msg = f"expected a copy of configuration {name_of(want)}, found {diff} differing"
            problems.append(Problem(shown, f"/best/{gpu}", msg))
    return problems


def name_of(conf: dict[str, Any]) -> str:
    """A configuration as messages name it: its row id and repeat."""
    return f"{conf['row_id']} repeat {conf['repeat']}"
