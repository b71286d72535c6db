"""The generation workloads (text to image, text to video): each model document on its own (identity,
order, physics, latency flags, best), then its index, model list, CSV and workload list entry."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from builder import layout
from builder.csvview import csv_rel
from builder.csvview import generation_csv as configurations_csv
from builder.errors import Problem
from builder.genmeta import LATENCY_METRIC, UNIT_OF_KIND
from builder.names import control_characters
from builder.slug import slugify
from builder.transform import best_by_gpu, gen_row_id, index_row_keys, index_rows, measure_keys, sig4
from builder.validate.crossfile import ENTRY_FROM_DOC, check_reference_row
from builder.validate.tree import Tree

Doc = dict[str, Any]
HALF_MS = 0.0005  # half the last digit of batch_latency_s (3 decimals)
SORT_KEYS = ("gpu", "num_gpus", "batch_size", "ulysses_degree", "ring_degree")


class _Work(NamedTuple):
    """What builder.csvview needs of a workload: its id and kind."""

    id: str
    kind: str


def _models(docs: dict[str, Doc]) -> dict[str, Doc]:
    """The generation model documents among a workload's documents, by path."""
    return {rel: doc for rel, doc in docs.items() if (found := layout.place(rel)) and found.kind == "generation-model"}


def check_workload(tree: Tree, workload: str, docs: dict[str, Doc], slugs: set[str], base_url: str) -> list[Problem]:
    """One generation workload's model documents, index, model list and CSV (`docs`: those that passed their
    schema; `slugs`: of every model document present)."""
    work = _Work(workload, layout.GENERATION_WORKLOADS[workload])
    models = _models(docs)
    problems = [p for rel, doc in sorted(models.items()) for p in check_model(tree.shown(rel), rel, doc, work)]
    complete = len(models) == len(slugs)
    ordered = [models[rel] for rel in sorted(models, key=lambda r: models[r]["slug"])]
    index_rel, list_rel = layout.index_rel(workload), layout.model_list_rel(workload)
    index = docs.get(index_rel)
    if index is not None:
        shown = tree.shown(index_rel)
        problems += _same_header(shown, index, ordered, work)
        if index["workload"] != workload:
            problems.append(Problem(shown, "/workload", f"expected {workload!r}, found {index['workload']!r}"))
        if complete and index["rows"] != index_rows(ordered, index_row_keys(work.kind), measure_keys(work.kind)[0]):
            problems.append(
                Problem(
                    shown,
                    "/rows",
                    _first_difference(
                        index["rows"], index_rows(ordered, index_row_keys(work.kind), measure_keys(work.kind)[0])
                    ),
                )
            )
        problems += check_reference_row(shown, index, "model {model!r}, GPU {gpu} x {num_gpus}")
    listing = docs.get(list_rel)
    if listing is not None and complete:
        version = listing["version"]
        want = [
            {
                **{k: m[k] for k in ("slug", *ENTRY_FROM_DOC)},
                "url": layout.model_url(base_url, version, m["slug"], workload),
                "page": layout.page_url(base_url, m["slug"], workload),
            }
            for m in ordered
        ]
        have = [{k: e[k] for k in want[0]} for e in listing["models"]] if want else []
        if have != want:
            problems.append(Problem(tree.shown(list_rel), "/models", _first_difference(have, want)))
        if listing["kind"] != work.kind:
            msg = f"expected {work.kind!r}, found {listing['kind']!r}"
            problems.append(Problem(tree.shown(list_rel), "/kind", msg))
    problems += _check_csv(tree, models, complete, work)
    return problems


def _same_header(shown: str, index: Doc, models: list[Doc], work: _Work) -> list[Problem]:
    problems = []
    for key in ("kind", "unit", "latency_limit_s", "source", "caveat", "boundary", "version"):
        if any(m[key] != index[key] for m in models):
            msg = "expected the same value as every model document of the workload"
            problems.append(Problem(shown, f"/{key}", msg))
    if index["kind"] != work.kind:
        problems.append(Problem(shown, "/kind", f"expected {work.kind!r}, found {index['kind']!r}"))
    return problems


def check_model(shown: str, rel: str, doc: Doc, work: _Work) -> list[Problem]:
    """One generation model document on its own: identity, order, keys, physics, latency flags and best."""
    problems = []
    unit = UNIT_OF_KIND[work.kind]
    if doc["kind"] != work.kind or doc["unit"] != unit:
        msg = f"expected kind {work.kind!r} and unit {unit!r}, found {doc['kind']!r}, {doc['unit']!r}"
        return [Problem(shown, "/kind", msg)]
    if doc["slug"] != slugify(doc["name"]) or rel != layout.model_rel(doc["slug"], work.id):
        msg = f"expected the slug of its name and its file name, found {doc['slug']!r}"
        problems.append(Problem(shown, "/slug", msg))
    if control_characters(doc["name"]):
        msg = f"expected no control or format characters, found {control_characters(doc['name'])}"
        problems.append(Problem(shown, "/name", msg))
    confs = doc["configurations"]
    keys = [tuple(c[k] for k in SORT_KEYS) for c in confs]
    if keys != sorted(keys):
        problems.append(Problem(shown, "/configurations", f"expected configurations sorted by {', '.join(SORT_KEYS)}"))
    seen: dict[str, int] = {}
    for i, conf in enumerate(confs):
        at = f"/configurations/{i}"
        want_id = gen_row_id(doc["slug"], *(conf[k] for k in SORT_KEYS))
        seen[want_id] = seen.get(want_id, 0) + 1
        if conf["row_id"] != want_id or conf["repeat"] != seen[want_id]:
            msg = f"expected row_id {want_id} and repeat {seen[want_id]}, found {conf['row_id']} and {conf['repeat']}"
            problems.append(Problem(shown, at, msg))
        faults = physics_faults(conf, work.kind, doc["latency_limit_s"])
        problems += [Problem(shown, f"{at}/{key}", msg) for key, msg in faults]
    if doc["gpus"] != sorted({c["gpu"] for c in confs}):
        problems.append(Problem(shown, "/gpus", "expected the sorted distinct GPUs of its configurations"))
    want = best_by_gpu(confs, "under_latency_limit", measure_keys(work.kind)[0])
    for gpu in sorted(want.keys() | doc["best"].keys()):
        if doc["best"].get(gpu) != want.get(gpu):
            found = doc["best"].get(gpu, {}).get("row_id", "none")
            expected = want[gpu]["row_id"] if gpu in want else "none (no configuration within the limit)"
            limit = doc["latency_limit_s"]
            msg = f"expected the lowest-energy configuration within {limit} s ({expected}), found {found}"
            problems.append(Problem(shown, f"/best/{gpu}", msg))
    return problems


def physics_faults(conf: Doc, kind: str, limit_s: float) -> list[tuple[str, str]]:
    """(key, message) for each published value that disagrees with the others beyond rounding."""
    joules_key, wh_key, rate_key = measure_keys(kind)
    power, latency, batch = conf["gpu_power_watts_total"], conf["batch_latency_s"], conf["batch_size"]
    joules, faults = conf[joules_key], []
    if conf["num_gpus"] != conf["ulysses_degree"] * conf["ring_degree"]:
        faults.append(("num_gpus", "expected ulysses_degree x ring_degree"))
    expected = power * latency / batch
    slack = (0.5 * latency + power * HALF_MS + 0.5 * HALF_MS) / batch + 0.00005 + 1e-9 * joules
    if abs(joules - expected) > slack:
        msg = f"expected gpu_power_watts_total x batch_latency_s / batch_size = {expected:.4f} (within {slack:.4f})"
        faults.append((joules_key, f"{msg}, found {joules}"))
    per_wh = 1000 / 3600 if kind == "image" else 1 / 3600
    if abs(conf[wh_key] - joules * per_wh) > 0.005 + 0.00005 * per_wh + 1e-9 * joules:
        msg = f"expected {joules_key} x {per_wh * 3600:g} / 3600 = {joules * per_wh:.2f}, found {conf[wh_key]}"
        faults.append((wh_key, msg))
    rate = conf[rate_key]
    if latency > HALF_MS and rate > 0:
        low, high = batch / (latency + HALF_MS), batch / (latency - HALF_MS)
        half_digit = 0.5 * 10 ** (math.floor(math.log10(rate)) - 3) * (1 + 1e-9)
        if not (low - half_digit <= rate <= high + half_digit) or rate != sig4(rate):
            msg = f"expected batch_size / batch_latency_s = {batch / latency:.4g} to 4 significant digits"
            faults.append((rate_key, f"{msg}, found {rate}"))
    under = conf["under_latency_limit"]
    if (latency < limit_s - HALF_MS and not under) or (latency > limit_s + HALF_MS and under):
        msg = f"expected {str(not under).lower()} for a batch latency of {latency} s against {limit_s} s"
        faults.append(("under_latency_limit", f"{msg}, found {str(under).lower()}"))
    return faults


def _check_csv(tree: Tree, models: dict[str, Doc], complete: bool, work: _Work) -> list[Problem]:
    rel = csv_rel(work.id)
    shown = tree.shown(rel)
    if rel not in tree.raw:
        return [Problem(shown, "/", "expected this file, found it missing")]
    if not complete:
        return []
    want = configurations_csv(models, work).decode("utf-8").splitlines()  # type: ignore[arg-type]
    have = tree.raw[rel].decode("utf-8", errors="replace").splitlines()
    for i, (a, b) in enumerate(zip(have, want, strict=False)):
        if a != b:
            return [Problem(shown, f"line {i + 1}", f"expected {b!r} (from the model documents), found {a!r}")]
    if len(have) != len(want) or not tree.raw[rel].endswith(b"\n"):
        return [Problem(shown, "/", f"expected {len(want)} lines (from the model documents), found {len(have)}")]
    return []


def entry_facts(workload: str, docs: dict[str, Doc], slugs: set[str], base_url: str, version: str) -> dict[str, Any]:
    """What a workload list entry must say of its kind, unit and latency rule; of a generation workload,
    also its counts and URLs (`docs` and `slugs` as check_workload takes them)."""
    index = docs.get(layout.index_rel(workload))
    if workload not in layout.GENERATION_WORKLOADS:
        want = {"kind": "llm", "latency_metric": "median_itl_ms"}
        if index is not None and "itl_deadline_ms" in index:
            want |= {"unit": index["unit"], "latency_limit": index["itl_deadline_ms"]}
        return want
    kind = layout.GENERATION_WORKLOADS[workload]
    want = {"kind": kind, "unit": UNIT_OF_KIND[kind], "latency_metric": LATENCY_METRIC}
    if index is not None and "latency_limit_s" in index:
        want |= {"latency_limit": index["latency_limit_s"], "data_url": index["source"]["data_url"]}
    models = _models(docs)
    want |= {"model_count": len(slugs)}
    if len(models) == len(slugs):
        want |= {"configuration_count": sum(len(m["configurations"]) for m in models.values())}
    return want | {
        "index_url": layout.document_url(base_url, version, layout.index_rel(workload)),
        "models_url": layout.document_url(base_url, version, layout.model_list_rel(workload)),
    }


def _first_difference(have: list[Any], want: list[Any]) -> str:
    """The first entry where two lists differ, or their lengths, as one message."""
    for i, (a, b) in enumerate(zip(have, want, strict=False)):
        if a != b:
            return f"expected at {i} {b!r} (from the model documents), found {a!r}"
    return f"expected {len(want)} entries (from the model documents), found {len(have)}"
