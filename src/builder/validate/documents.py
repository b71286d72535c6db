"""Rules inside one model document of either kind: names, dates, file name, row ids, order, best, and physics."""

import math
from collections import Counter
from itertools import pairwise
from typing import Any

from builder.errors import Problem, shown
from builder.layout import NUM_GPUS_RULE, ROOT_WORKLOAD, model_rel, num_gpus_for, row_id, workload_of
from builder.names import control_characters, gpu_spelling_faults, is_reserved_slug, name_fault, slugify
from builder.relations import ENERGY_PER_ITEM, ENERGY_PER_TOKEN, ITEMS_PER_SECOND
from builder.transform import GENERATION_ORDER, LLM_ORDER, MEASURE_KEYS, WH_PER_JOULE, best_by_gpu, sig4

WH_PER_J_PER_MILLION = 1e6 / 3600
J_ROUNDING = 0.5e-7 * WH_PER_J_PER_MILLION  # joules are published to 7 decimals
RATE_TOLERANCE = 0.01
HALF_MS = 0.0005  # half the last digit of batch_latency_s (3 decimals)
PERCENTILES = ("median_itl_ms", "p90_itl_ms", "p95_itl_ms", "p99_itl_ms")


def check_names(path: str, doc: dict[str, Any]) -> list[Problem]:
    """The name rules build applies at upstream (builder.names): spreadsheet-safe names, a slug Windows allows."""
    keys = [key for key in ("name", "model_id", "architecture") if key in doc]  # a generation model has no architecture
    problems = [Problem(path, f"/{key}", fault) for key in keys if (fault := name_fault(doc[key]))]
    if not any(p.where == "/name" for p in problems) and (fault := name_fault(doc["slug"], "a slug")):
        problems.append(Problem(path, "/slug", fault))
    problems += [Problem(path, f"/gpus/{i}", fault) for i, gpu in enumerate(doc["gpus"]) if (fault := name_fault(gpu))]
    reserved = "expected a GPU name Windows allows as a folder name, found {}"  # its page's folder, gpus/<slug>/
    problems += [
        Problem(path, f"/gpus/{i}", reserved.format(shown(gpu)))
        for i, gpu in enumerate(doc["gpus"])
        if is_reserved_slug(slugify(gpu))
    ]
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
    return [Problem(path, "/gpus", msg) for path, _, msg in gpu_spelling_faults(pairs)]


def check_dates(shown: str, doc: dict[str, Any]) -> list[Problem]:
    if doc["updated"] != doc["data_version"]:
        return [Problem(shown, "/updated", f"expected data_version {doc['data_version']}, found {doc['updated']}")]
    return []


def check_model(shown: str, rel: str, doc: dict[str, Any]) -> list[Problem]:
    problems = check_dates(shown, doc)
    generation = "kind" in doc
    order_keys = GENERATION_ORDER if generation else LLM_ORDER
    within = "under_latency_limit" if generation else "under_itl_deadline"
    joules = MEASURE_KEYS[doc["kind"]][0] if generation else "joules_per_output_token"
    slug = doc["slug"]
    if rel != (file_name := model_rel(slug, workload_of(rel) or ROOT_WORKLOAD)):
        problems.append(Problem(shown, "/slug", f"expected the file name {file_name}, found {rel}"))
    confs = doc["configurations"]
    if doc["gpus"] != (gpus := sorted({c["gpu"] for c in confs})):
        problems.append(Problem(shown, "/gpus", f"expected the configurations' GPUs {gpus}, found {doc['gpus']}"))
    counts: Counter[str] = Counter()
    for i, conf in enumerate(confs):
        rid = row_id(slug, *(conf[k] for k in order_keys))
        if conf["row_id"] != rid:
            problems.append(Problem(shown, f"/configurations/{i}/row_id", f"expected {rid}, found {conf['row_id']}"))
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


def finite(*values: Any) -> bool:
    """Whether every value is a finite number (an int or float, never a bool)."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)


def check_configuration(conf: dict[str, Any], deadline: float, where: str) -> list[tuple[str, str]]:
    """(pointer, message) for every law an LLM configuration breaks; each fails on NaN by itself (`not a <= b`)."""
    unbounded = [k for k, v in conf.items() if isinstance(v, float) and not math.isfinite(v)]
    faults = [(k, f"expected a finite number, found {conf[k]}") for k in unbounded]
    j, wh = conf["joules_per_output_token"], conf["wh_per_million_output_tokens"]
    if not (finite(j, wh) and abs(wh - j * WH_PER_J_PER_MILLION) <= 0.005 + J_ROUNDING):
        want = round(j * WH_PER_J_PER_MILLION, 2) if finite(j) else "a finite number"
        faults.append(("wh_per_million_output_tokens", f"expected J x 10^6 / 3600 = {want} (2 decimals), found {wh}"))
    power, tps = conf["gpu_power_watts_total"], conf["tokens_per_second"]
    rate = ENERGY_PER_TOKEN.compute(power, tps) if finite(power, tps) and tps > 0 else math.nan  # within rounding
    if not finite(rate):  # also a quotient that overflows
        msg = f"expected power / tokens per second of finite figures, rate > 0, found {power} W / {tps} tokens/s"
        faults.append(("joules_per_output_token", msg))
    elif not (finite(j) and abs(j - rate) <= RATE_TOLERANCE * rate):
        msg = f"expected power / tokens per second = {rate:.7f} J (within 1 %), found {j}"
        faults.append(("joules_per_output_token", msg))
    chain = [conf[k] for k in PERCENTILES]
    if not (finite(*chain) and all(a <= b for a, b in pairwise(chain))):  # not chain == sorted(chain): NaN
        faults.append(("p90_itl_ms", f"expected median <= p90 <= p95 <= p99, found {' / '.join(map(str, chain))}"))
    in_flight, seqs = conf["avg_requests_in_flight"], conf["max_num_seqs"]
    if not (finite(in_flight, seqs) and in_flight <= seqs):
        msg = f"expected at most max_num_seqs = {conf['max_num_seqs']}, found {conf['avg_requests_in_flight']}"
        faults.append(("avg_requests_in_flight", msg))
    if not (finite(conf["avg_running_batch"], in_flight) and conf["avg_running_batch"] == in_flight):
        msg = f"expected avg_requests_in_flight = {conf['avg_requests_in_flight']}, found {conf['avg_running_batch']}"
        faults.append(("avg_running_batch", msg))
    median = conf["median_itl_ms"]
    if not finite(median, deadline):
        msg = f"expected a finite median and deadline to judge, found median {median} ms, deadline {deadline} ms"
        faults.append(("under_itl_deadline", msg))
    # within rounding of the deadline either answer is right; `not x < y` is true for NaN
    elif not (abs(median - deadline) < 0.05) and conf["under_itl_deadline"] is not (median < deadline):
        msg = f"expected {str(median < deadline).lower()} (median {median} ms, deadline {deadline} ms), found"
        faults.append(("under_itl_deadline", f"{msg} {str(conf['under_itl_deadline']).lower()}"))
    tp, dp, ep = (conf[k] for k in ("tensor_parallel", "data_parallel", "expert_parallel"))
    layout = num_gpus_for(tp, dp, ep) if finite(tp, dp, ep) else "a finite layout"
    # max() passes NaN through or drops it depending on its place: the layout must also bound both terms
    if not (finite(conf["num_gpus"], tp, dp, ep) and conf["num_gpus"] == layout and layout >= tp * dp and layout >= ep):
        faults.append(("num_gpus", f"expected {NUM_GPUS_RULE} = {layout}, found {conf['num_gpus']}"))
    return [(f"{where}/{field}", msg) for field, msg in faults]


def generation_faults(conf: dict[str, Any], kind: str, limit_s: float, where: str) -> list[tuple[str, str]]:
    """(pointer, message) for each value of a generation configuration that disagrees with the others."""
    joules_key, wh_key, rate_key = MEASURE_KEYS[kind]
    power, latency, batch = conf["gpu_power_watts_total"], conf["batch_latency_s"], conf["batch_size"]
    joules, faults = conf[joules_key], []
    if conf["num_gpus"] != (layout := conf["ulysses_degree"] * conf["ring_degree"]):
        faults.append(("num_gpus", f"expected ulysses_degree x ring_degree = {layout}, found {conf['num_gpus']}"))
    expected = ENERGY_PER_ITEM.compute(power, latency, batch)  # within the rounding of the published inputs
    slack = (0.5 * latency + power * HALF_MS + 0.5 * HALF_MS) / batch + 0.00005 + 1e-9 * joules
    if abs(joules - expected) > slack:
        msg = f"expected gpu_power_watts_total x batch_latency_s / batch_size = {expected:.4f} (within {slack:.4f})"
        faults.append((joules_key, f"{msg}, found {joules}"))
    per_wh = WH_PER_JOULE[kind]
    if abs(conf[wh_key] - joules * per_wh) > 0.005 + 0.00005 * per_wh + 1e-9 * joules:
        msg = f"expected {joules_key} x {per_wh * 3600:g} / 3600 = {joules * per_wh:.2f}, found {conf[wh_key]}"
        faults.append((wh_key, msg))
    rate = conf[rate_key]
    if latency > HALF_MS and rate > 0:
        low, high = batch / (latency + HALF_MS), batch / (latency - HALF_MS)
        half_digit = 0.5 * 10 ** (math.floor(math.log10(rate)) - 3) * (1 + 1e-9)
        if not (low - half_digit <= rate <= high + half_digit) or rate != sig4(rate):
            want = ITEMS_PER_SECOND.compute(batch, latency)
            msg = f"expected batch_size / batch_latency_s = {want:.4g} to 4 significant digits"
            faults.append((rate_key, f"{msg}, found {rate}"))
    if kind == "video":  # energy per second of video: Wh per video over num_frames / fps seconds
        per_second = joules / 3600 * conf["fps"] / conf["num_frames"]
        if abs(conf["wh_per_video_second"] - per_second) > 0.00005 + 1e-9 * per_second:
            msg = f"expected {joules_key} / 3600 / (num_frames / fps) = {per_second:.4f}"
            faults.append(("wh_per_video_second", f"{msg}, found {conf['wh_per_video_second']}"))
    under = conf["under_latency_limit"]
    if (latency < limit_s - HALF_MS and not under) or (latency > limit_s + HALF_MS and under):
        msg = f"expected {str(not under).lower()} for a batch latency of {latency} s against {limit_s} s"
        faults.append(("under_latency_limit", f"{msg}, found {str(under).lower()}"))
    return [(f"{where}/{field}", msg) for field, msg in faults]


def check_physics(shown: str, doc: dict[str, Any]) -> list[Problem]:
    """Every configuration of a model document of either kind (best entries are checked to equal one of them)."""
    problems = []
    for i, conf in enumerate(doc["configurations"]):
        if "kind" in doc:  # a generation workload's
            faults = generation_faults(conf, doc["kind"], doc["latency_limit_s"], f"/configurations/{i}")
        else:
            faults = check_configuration(conf, doc["itl_deadline_ms"], f"/configurations/{i}")
        problems += [Problem(shown, at, msg) for at, msg in faults]
    return problems
