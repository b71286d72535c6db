"""Each workload's frontier.json against its model documents: entries, dominance and best_under."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem, pointer
from builder.frontier import ENTRY_KEYS
from builder.layout import frontier_rel, model_list_rel, model_rel
from builder.validate.crossfile import differing
from builder.validate.documents import name_of
from builder.validate.tree import Tree

Conf = dict[str, Any]
J, ITL = "joules_per_output_token", "median_itl_ms"


def check_frontier(tree: Tree, workload: str, doc: dict[str, Any], ok: dict[str, Any]) -> list[Problem]:
    """A frontier that passed its schema: its workload, models and GPU types, then each GPU type's entries."""
    shown, problems = tree.shown(frontier_rel(workload)), []
    if doc["workload"] != workload:
        problems.append(Problem(shown, "/workload", f"expected {workload!r} (its folder), found {doc['workload']!r}"))
    slugs = [m["slug"] for m in doc["models"]]
    if (listed := ok.get(model_list_rel(workload))) and slugs != (want := [m["slug"] for m in listed["models"]]):
        msg = f"expected the slugs of {model_list_rel(workload)} {want}, found {slugs}"
        problems.append(Problem(shown, "/models", msg))
    targets = [str(t) for t in doc["itl_targets_ms"]]
    for i, item in enumerate(doc["models"]):
        source = model_rel(item["slug"], workload)
        if (model := ok.get(source)) is None:
            continue  # missing (the model list says so) or with schema problems of its own
        if list(item["gpus"]) != model["gpus"]:
            msg = f"expected the GPUs of {source} {model['gpus']}, found {list(item['gpus'])}"
            problems.append(Problem(shown, f"/models/{i}/gpus", msg))
        for gpu, held in item["gpus"].items():
            confs = [c for c in model["configurations"] if c["gpu"] == gpu]
            problems += _check_gpu(shown, pointer(["models", i, "gpus", gpu]), source, held, confs, targets)
    return problems


def _check_gpu(shown: str, where: str, source: str, held: Conf, confs: list[Conf], targets: list[str]) -> list[Problem]:
    """One model's frontier and best_under on one GPU type, against its configurations there."""
    problems: list[Problem] = []
    if list(held["best_under"]) != targets:
        msg = f"expected best_under keys {targets} (itl_targets_ms), found {list(held['best_under'])}"
        problems.append(Problem(shown, f"{where}/best_under", msg))
    keyed = {(c["row_id"], c["repeat"]): c for c in confs}
    front: list[Conf] = []
    for j, entry in enumerate(held["frontier"]):
        conf = _matching(shown, f"{where}/frontier/{j}", source, entry, keyed, problems)
        if conf is None:
            continue
        if any(c is conf for c in front):
            msg = f"expected each configuration once, found {name_of(conf)} again"
            problems.append(Problem(shown, f"{where}/frontier/{j}", msg))
            continue
        if front and conf[ITL] < front[-1][ITL]:
            msg = f"expected median_itl_ms ascending, found {conf[ITL]} after {front[-1][ITL]}"
            problems.append(Problem(shown, f"{where}/frontier/{j}", msg))
        front.append(conf)
        # rounding never reverses an order, only makes ties: dominated means strictly lower on both
        better = next((c for c in confs if c[J] < conf[J] and c[ITL] < conf[ITL]), None)
        if better is not None:
            msg = f"expected a configuration no other dominates, found {name_of(conf)} dominated by {name_of(better)}"
            problems.append(Problem(shown, f"{where}/frontier/{j}", msg))
    on_front = {id(c) for c in front}
    for conf in confs:  # missing only when no other is lower or equal on both
        if id(conf) not in on_front and len([c for c in confs if c[J] <= conf[J] and c[ITL] <= conf[ITL]]) == 1:
            msg = f"expected every undominated configuration, found {name_of(conf)} ({source}) missing"
            problems.append(Problem(shown, f"{where}/frontier", msg))
    for target, entry in held["best_under"].items():
        at = f"{where}/best_under/{target}"
        surely = [c for c in confs if c[ITL] < float(target)]  # rounded below the target: unrounded too
        want = min(surely, key=lambda c: c[J], default=None)  # the first on a tie
        if entry is None:
            if want is not None:
                msg = f"expected {name_of(want)} (the lowest energy under {target} ms), found null"
                problems.append(Problem(shown, at, msg))
            continue
        conf = _matching(shown, at, source, entry, keyed, problems)
        if conf is None:
            continue
        if conf[ITL] > float(target):
            msg = f"expected a configuration with median_itl_ms <= {target}, found {name_of(conf)} at {conf[ITL]}"
            problems.append(Problem(shown, at, msg))
        elif want is not None and _rank(want, confs) < _rank(conf, confs):
            msg = f"expected {name_of(want)} (the lowest energy under {target} ms), found {name_of(conf)}"
            problems.append(Problem(shown, at, msg))
    return problems


def _matching(
    shown: str, at: str, source: str, entry: dict[str, Any], keyed: dict[tuple[str, int], Conf], problems: list[Problem]
) -> Conf | None:
    """The configuration an entry names, when it exists and every value equals the published one."""
    conf = keyed.get((entry["row_id"], entry["repeat"]))
    if conf is None:
        msg = f"expected a configuration of {source} on this GPU, found no {entry['row_id']} repeat {entry['repeat']}"
        problems.append(Problem(shown, at, msg))
        return None
    problems += differing(shown, at, {key: conf[key] for key in ENTRY_KEYS}, entry, f"{source} {name_of(conf)}")
    return conf


def _rank(conf: Conf, confs: list[Conf]) -> tuple[float, int]:
    """How `best` orders candidates: energy, then configuration order."""
    return conf[J], next(i for i, c in enumerate(confs) if c is conf)
