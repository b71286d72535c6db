"""Rules inside one model document of either kind of workload: names, dates, file name, gpus, row ids, repeats,
order and best; and one spelling per GPU across them."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

from builder.errors import Problem, shown
from builder.layout import ROOT_WORKLOAD, model_rel, row_id, workload_of
from builder.names import control_characters, gpu_case_faults, is_reserved_slug, name_fault
from builder.slug import slugify
from builder.transform import GENERATION_ORDER, LLM_ORDER, best_by_gpu, gen_row_id, measure_keys


def check_names(path: str, doc: dict[str, Any]) -> list[Problem]:
    """The name rules build applies at upstream (builder.names): spreadsheet-safe names, a slug Windows allows."""
    problems = [Problem(path, f"/{key}", fault) for key in ("name", "architecture") if (fault := name_fault(doc[key]))]
    problems += [Problem(path, f"/gpus/{i}", fault) for i, gpu in enumerate(doc["gpus"]) if (fault := name_fault(gpu))]
    if control_characters(doc["name"]):
        msg = f"expected no control or format characters, found {', '.join(control_characters(doc['name']))}"
        problems.append(Problem(path, "/name", msg))
    if slugify(doc["name"]) != doc["slug"]:
        found = f"expected the slug of its name, {shown(slugify(doc['name']))}, found {shown(doc['slug'])}"
        problems.append(Problem(path, "/slug", found))
    if is_reserved_slug(doc["slug"]):
        msg = f"expected a slug Windows allows as a file name, found {shown(doc['slug'])}"
        problems.append(Problem(path, "/slug", msg))
    return problems


def check_gpu_spellings(models: dict[str, dict[str, Any]]) -> list[Problem]:
    """One spelling per GPU across every model document (by path shown) of every workload."""
    pairs = [(path, gpu) for path, doc in models.items() for gpu in doc["gpus"]]
    return [Problem(path, "/gpus", msg) for path, _, msg in gpu_case_faults(pairs)]


def check_dates(shown: str, doc: dict[str, Any]) -> list[Problem]:
    if doc["updated"] != doc["data_version"]:
        return [Problem(shown, "/updated", f"expected data_version {doc['data_version']}, found {doc['updated']}")]
    return []


def check_model(shown: str, rel: str, doc: dict[str, Any]) -> list[Problem]:
    problems = check_dates(shown, doc)
    generation = "kind" in doc
    order_keys, make_id = (GENERATION_ORDER, gen_row_id) if generation else (LLM_ORDER, row_id)
    within = "under_latency_limit" if generation else "under_itl_deadline"
    joules = measure_keys(doc["kind"])[0] if generation else "joules_per_output_token"
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
        msg = f"expected configurations ordered by ({', '.join(order_keys)}), found {order[at]} after {order[at - 1]}"
        problems.append(Problem(shown, f"/configurations/{at}", msg))
    expected = best_by_gpu(confs, within, joules)  # the lowest-energy configuration under the deadline per GPU
    if list(doc["best"]) != list(expected):
        found = f"{list(expected)} (those with a configuration under the deadline, sorted), found {list(doc['best'])}"
        problems.append(Problem(shown, "/best", f"expected GPUs {found}"))
    for gpu, conf in doc["best"].items():
        want = expected.get(gpu)
        if want is not None and conf != want:
            msg = f"expected the lowest-energy configuration under the deadline, {name_of(want)}, found {name_of(conf)}"
            if (conf["row_id"], conf["repeat"]) == (want["row_id"], want["repeat"]):
                diff = ", ".join(k for k in want if conf.get(k) != want[k])
                msg = f"expected a copy of configuration {name_of(want)}, found {diff} differing"
            problems.append(Problem(shown, f"/best/{gpu}", msg))
    return problems


def name_of(conf: dict[str, Any]) -> str:
    """A configuration as messages name it: its row id and repeat."""
    return f"{conf['row_id']} repeat {conf['repeat']}"
