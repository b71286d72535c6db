"""Rules inside one model document of either kind: names, dates, file name, row ids, order, best,
and physics."""

import math
from collections import Counter
from itertools import pairwise
from operator import itemgetter
from typing import Any

from builder.configurations import WH_PER_JOULE, sig4
from builder.errors import Finding, Problem, Said, shown
from builder.fields import MEASURE_KEYS
from builder.layout import (
    GENERATION_ORDER,
    LLM_ORDER,
    NUM_GPUS_RULE,
    ROOT_WORKLOAD,
    model_rel,
    num_gpus_for,
    row_id,
    workload_of,
)
from builder.names import (
    control_characters,
    gpu_spelling_faults,
    is_reserved_slug,
    name_fault,
    slugify,
)
from builder.relations import ENERGY_PER_ITEM, ENERGY_PER_TOKEN, ITEMS_PER_SECOND
from builder.transform import best_by_gpu

WH_PER_J_PER_MILLION = 1e6 / 3600
J_ROUNDING = 0.5e-7 * WH_PER_J_PER_MILLION  # joules are published to 7 decimals
RATE_TOLERANCE = 0.01
HALF_MS = 0.0005  # half the last digit of batch_latency_s (3 decimals)
NAME = "document.name"  # the code of a name a spreadsheet misreads
PERCENTILES = ("median_itl_ms", "p90_itl_ms", "p95_itl_ms", "p99_itl_ms")


def check_names(path: str, doc: dict[str, Any]) -> list[Problem]:
    """The name rules build applies at upstream (builder.names): spreadsheet-safe names, a slug
    Windows allows."""
    # a generation model has no architecture
    keys = [key for key in ("name", "model_id", "architecture") if key in doc]
    problems = [
        Problem.of(path, f"/{key}", NAME, fault) for key in keys if (fault := name_fault(doc[key]))
    ]
    if not any(p.where == "/name" for p in problems) and (
        fault := name_fault(doc["slug"], "a slug")
    ):
        problems.append(Problem.of(path, "/slug", NAME, fault))
    problems += [
        Problem.of(path, f"/gpus/{i}", NAME, f)
        for i, gpu in enumerate(doc["gpus"])
        if (f := name_fault(gpu))
    ]
    reserved = "a GPU name Windows allows as a folder name"  # its page's folder, gpus/<slug>/
    problems += [
        Problem.mismatch(path, f"/gpus/{i}", "document.reserved-name", reserved, shown(gpu))
        for i, gpu in enumerate(doc["gpus"])
        if is_reserved_slug(slugify(gpu))
    ]
    if control_characters(doc["name"]):
        chars = ", ".join(control_characters(doc["name"]))
        problems.append(
            Problem.mismatch(
                path, "/name", "document.control", "no control or format characters", chars
            )
        )
    if slugify(doc["name"]) != doc["slug"]:
        want = f"the slug of its name, {shown(slugify(doc['name']))}"
        problems.append(Problem.mismatch(path, "/slug", "document.slug", want, shown(doc["slug"])))
    if is_reserved_slug(doc["slug"]):
        want = "a slug Windows allows as a file name"
        problems.append(
            Problem.mismatch(path, "/slug", "document.reserved-name", want, shown(doc["slug"]))
        )
    return problems


def check_gpu_spellings(models: dict[str, dict[str, Any]]) -> list[Problem]:
    """One spelling per GPU across every model document (by path shown) of every workload."""
    pairs = [(path, gpu) for path, doc in models.items() for gpu in doc["gpus"]]
    return [
        Problem.of(path, "/gpus", "document.gpu-spelling", msg)
        for path, _, msg in gpu_spelling_faults(pairs)
    ]


def check_dates(shown: str, doc: dict[str, Any]) -> list[Problem]:
    if doc["updated"] != doc["data_version"]:
        want = f"data_version {doc['data_version']}"
        return [Problem.mismatch(shown, "/updated", "document.updated", want, str(doc["updated"]))]
    return []


def check_model(shown: str, rel: str, doc: dict[str, Any]) -> list[Problem]:
    problems = check_dates(shown, doc)
    generation = "kind" in doc
    order_keys = GENERATION_ORDER if generation else LLM_ORDER
    within = "under_latency_limit" if generation else "under_itl_deadline"
    joules = MEASURE_KEYS[doc["kind"] if generation else "llm"][0]
    slug = doc["slug"]
    if rel != (file_name := model_rel(slug, workload_of(rel) or ROOT_WORKLOAD)):
        problems.append(
            Problem.mismatch(
                shown, "/slug", "document.file-name", f"the file name {file_name}", rel
            )
        )
    confs = doc["configurations"]
    if doc["gpus"] != (gpus := sorted({c["gpu"] for c in confs})):
        listed = f"the configurations' GPUs {gpus}"
        problems.append(Problem.mismatch(shown, "/gpus", "document.gpus", listed, str(doc["gpus"])))
    # each configuration's sort key, which its row id is made of after the slug
    order = list(map(itemgetter(*order_keys), confs))
    counts: Counter[str] = Counter()
    for i, conf in enumerate(confs):
        rid = row_id(slug, *order[i])
        if conf["row_id"] != rid:
            place = f"/configurations/{i}/row_id"
            problems.append(
                Problem.mismatch(shown, place, "document.row-id", rid, str(conf["row_id"]))
            )
        counts[conf["row_id"]] += 1
        if conf["repeat"] != counts[conf["row_id"]]:
            count = f"{counts[conf['row_id']]} (repeats count 1, 2, ... per row_id)"
            place = f"/configurations/{i}/repeat"
            problems.append(
                Problem.mismatch(shown, place, "document.repeat", count, str(conf["repeat"]))
            )
    if order != sorted(order):
        at = next(i for i, (a, b) in enumerate(pairwise(order)) if a > b) + 1
        ordered, note = (
            f"configurations ordered by ({', '.join(order_keys)})",
            f" after {order[at - 1]}",
        )
        problems.append(
            Problem.mismatch(
                shown, f"/configurations/{at}", "document.order", ordered, str(order[at]), note
            )
        )
    # the lowest-energy configuration under the deadline per GPU
    expected = best_by_gpu(confs, within, joules)
    if list(doc["best"]) != list(expected):
        gpus_wanted = (
            f"GPUs {list(expected)} (those with a configuration under the deadline, sorted)"
        )
        problems.append(
            Problem.mismatch(
                shown, "/best", "document.best-gpus", gpus_wanted, str(list(doc["best"]))
            )
        )
    for gpu, conf in doc["best"].items():
        want = expected.get(gpu)
        if want is not None and conf != want:
            msg = Said(
                f"the lowest-energy configuration under the deadline, {name_of(want)}",
                name_of(conf),
            )
            if (conf["row_id"], conf["repeat"]) == (want["row_id"], want["repeat"]):
                diff = ", ".join(k for k in want if conf.get(k) != want[k])
                msg = Said(f"a copy of configuration {name_of(want)}", diff, " differing")
            problems.append(Problem.of(shown, f"/best/{gpu}", "document.best", msg))
    return problems


def name_of(conf: dict[str, Any]) -> str:
    """A configuration as messages name it: its row id and repeat."""
    return f"{conf['row_id']} repeat {conf['repeat']}"


def finite(*values: Any) -> bool:
    """Whether every value is a finite number (an int or float, never a bool)."""
    for v in values:
        # an int or a float as most are; else isinstance says (a bool is an int)
        number = type(v) is float or type(v) is int
        if not number and (isinstance(v, bool) or not isinstance(v, (int, float))):
            return False
        if not math.isfinite(v):
            return False
    return True


def check_configuration(conf: dict[str, Any], deadline: float, where: str) -> list[Finding]:
    """A finding for every law an LLM configuration breaks; each fails on NaN by itself
    (`not a <= b`)."""
    unbounded = [k for k, v in conf.items() if isinstance(v, float) and not math.isfinite(v)]
    faults = [
        Finding(f"{where}/{k}", "physics.finite", Said("a finite number", str(conf[k])))
        for k in unbounded
    ]
    j, wh = conf["joules_per_output_token"], conf["wh_per_million_output_tokens"]
    if not (finite(j, wh) and abs(wh - j * WH_PER_J_PER_MILLION) <= 0.005 + J_ROUNDING):
        want = round(j * WH_PER_J_PER_MILLION, 2) if finite(j) else "a finite number"
        faults.append(
            Finding(
                f"{where}/wh_per_million_output_tokens",
                "physics.wh-per-million-tokens",
                Said(f"J x 10^6 / 3600 = {want} (2 decimals)", str(wh)),
            )
        )
    power, tps = conf["gpu_power_watts_total"], conf["tokens_per_second"]
    # within rounding
    rate = ENERGY_PER_TOKEN.compute(power, tps) if finite(power, tps) and tps > 0 else math.nan
    if not finite(rate):  # also a quotient that overflows
        msg = Said(
            "power / tokens per second of finite figures, rate > 0", f"{power} W / {tps} tokens/s"
        )
        faults.append(Finding(f"{where}/joules_per_output_token", "physics.energy-per-token", msg))
    elif not (finite(j) and abs(j - rate) <= RATE_TOLERANCE * rate):
        msg = Said(f"power / tokens per second = {rate:.7f} J (within 1 %)", str(j))
        faults.append(Finding(f"{where}/joules_per_output_token", "physics.energy-per-token", msg))
    chain = [conf[k] for k in PERCENTILES]
    # not chain == sorted(chain): NaN
    if not (finite(*chain) and all(a <= b for a, b in pairwise(chain))):
        said = Said("median <= p90 <= p95 <= p99", " / ".join(map(str, chain)))
        faults.append(Finding(f"{where}/p90_itl_ms", "physics.percentile-order", said))
    in_flight, seqs = conf["avg_requests_in_flight"], conf["max_num_seqs"]
    if not (finite(in_flight, seqs) and in_flight <= seqs):
        msg = Said(
            f"at most max_num_seqs = {conf['max_num_seqs']}", str(conf["avg_requests_in_flight"])
        )
        faults.append(Finding(f"{where}/avg_requests_in_flight", "physics.in-flight-limit", msg))
    if not (
        finite(conf["avg_running_batch"], in_flight) and conf["avg_running_batch"] == in_flight
    ):
        msg = Said(
            f"avg_requests_in_flight = {conf['avg_requests_in_flight']}",
            str(conf["avg_running_batch"]),
        )
        faults.append(Finding(f"{where}/avg_running_batch", "physics.running-batch", msg))
    median = conf["median_itl_ms"]
    if not finite(median, deadline):
        msg = Said(
            "a finite median and deadline to judge", f"median {median} ms, deadline {deadline} ms"
        )
        faults.append(Finding(f"{where}/under_itl_deadline", "physics.itl-deadline", msg))
    # within rounding of the deadline either answer is right; `not x < y` is true for NaN
    elif not (abs(median - deadline) < 0.05) and conf["under_itl_deadline"] is not (
        median < deadline
    ):
        want = f"{str(median < deadline).lower()} (median {median} ms, deadline {deadline} ms)"
        said = Said(want, str(conf["under_itl_deadline"]).lower())
        faults.append(Finding(f"{where}/under_itl_deadline", "physics.itl-deadline", said))
    tp, dp, ep = (conf[k] for k in ("tensor_parallel", "data_parallel", "expert_parallel"))
    layout = num_gpus_for(tp, dp, ep) if finite(tp, dp, ep) else "a finite layout"
    # max() passes NaN through or drops it depending on its place: the layout must also bound both
    # terms
    if not (
        finite(conf["num_gpus"], tp, dp, ep)
        and conf["num_gpus"] == layout
        and layout >= tp * dp
        and layout >= ep
    ):
        said = Said(f"{NUM_GPUS_RULE} = {layout}", str(conf["num_gpus"]))
        faults.append(Finding(f"{where}/num_gpus", "physics.num-gpus", said))
    return faults


def generation_faults(conf: dict[str, Any], kind: str, limit_s: float, where: str) -> list[Finding]:
    """A finding for each value of a generation configuration that disagrees with the
    others."""
    joules_key, wh_key, rate_key = MEASURE_KEYS[kind]
    power, latency, batch = (
        conf["gpu_power_watts_total"],
        conf["batch_latency_s"],
        conf["batch_size"],
    )
    joules, faults = conf[joules_key], []
    if conf["num_gpus"] != (layout := conf["ulysses_degree"] * conf["ring_degree"]):
        said = Said(f"ulysses_degree x ring_degree = {layout}", str(conf["num_gpus"]))
        faults.append(Finding(f"{where}/num_gpus", "physics.num-gpus", said))
    # within the rounding of the published inputs
    expected = ENERGY_PER_ITEM.compute(power, latency, batch)
    slack = (0.5 * latency + power * HALF_MS + 0.5 * HALF_MS) / batch + 0.00005 + 1e-9 * joules
    if abs(joules - expected) > slack:
        msg = (
            f"gpu_power_watts_total x batch_latency_s / batch_size = {expected:.4f} (within "
            f"{slack:.4f})"
        )
        faults.append(
            Finding(f"{where}/{joules_key}", "physics.energy-per-item", Said(msg, str(joules)))
        )
    per_wh = WH_PER_JOULE[kind]
    if abs(conf[wh_key] - joules * per_wh) > 0.005 + 0.00005 * per_wh + 1e-9 * joules:
        msg = f"{joules_key} x {per_wh * 3600:g} / 3600 = {joules * per_wh:.2f}"
        faults.append(
            Finding(f"{where}/{wh_key}", "physics.wh-per-item", Said(msg, str(conf[wh_key])))
        )
    rate = conf[rate_key]
    if latency > HALF_MS and rate > 0:
        low, high = batch / (latency + HALF_MS), batch / (latency - HALF_MS)
        half_digit = 0.5 * 10 ** (math.floor(math.log10(rate)) - 3) * (1 + 1e-9)
        if not (low - half_digit <= rate <= high + half_digit) or rate != sig4(rate):
            want = ITEMS_PER_SECOND.compute(batch, latency)
            msg = f"batch_size / batch_latency_s = {want:.4g} to 4 significant digits"
            faults.append(
                Finding(f"{where}/{rate_key}", "physics.items-per-second", Said(msg, str(rate)))
            )
    if kind == "video":  # energy per second of video: Wh per video over num_frames / fps seconds
        per_second = joules / 3600 * conf["fps"] / conf["num_frames"]
        if abs(conf["wh_per_video_second"] - per_second) > 0.00005 + 1e-9 * per_second:
            msg = f"{joules_key} / 3600 / (num_frames / fps) = {per_second:.4f}"
            said = Said(msg, str(conf["wh_per_video_second"]))
            faults.append(
                Finding(f"{where}/wh_per_video_second", "physics.wh-per-video-second", said)
            )
    under = conf["under_latency_limit"]
    if (latency < limit_s - HALF_MS and not under) or (latency > limit_s + HALF_MS and under):
        msg = f"{str(not under).lower()} for a batch latency of {latency} s against {limit_s} s"
        said = Said(msg, str(under).lower())
        faults.append(Finding(f"{where}/under_latency_limit", "physics.latency-limit", said))
    return faults


def check_physics(shown: str, doc: dict[str, Any]) -> list[Problem]:
    """Every configuration of a model document of either kind (best entries are checked to equal
    one of them)."""
    problems = []
    for i, conf in enumerate(doc["configurations"]):
        if "kind" in doc:  # a generation workload's
            faults = generation_faults(
                conf, doc["kind"], doc["latency_limit_s"], f"/configurations/{i}"
            )
        else:
            faults = check_configuration(conf, doc["itl_deadline_ms"], f"/configurations/{i}")
        problems += [Problem.of(shown, f.where, f.code, f.said) for f in faults]
    return problems
