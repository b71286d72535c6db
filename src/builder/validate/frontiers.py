"""Rules of a frontier document (an LLM or a generation workload's) against its model documents
and the CSV."""

from bisect import bisect_left
from collections import Counter
from typing import Any

from builder import layout
from builder.errors import Problem, pointer
from builder.fields import QUANTILE_KEYS
from builder.frontier import (
    DEFINITION,
    GENERATION_AXES,
    LLM_AXES,
    LLM_DEFINITION,
    Axes,
    latency_targets,
    target_key,
    undominated,
)
from builder.layout import CSV, GENERATION_WORKLOADS, model_list_rel, model_rel, output_lengths_rel
from builder.relations import ENERGY_PER_REQUEST
from builder.validate.crossfile import Conf, differing
from builder.validate.csvrows import Own
from builder.validate.documents import name_of
from builder.validate.tree import Tree

Keyed = dict[tuple[str, int], Conf]  # configurations by (row_id, repeat)
# mean_output_tokens (2 decimals) against avg_output_tokens (a whole token)
HALF_TOKEN = 0.5 + 0.005


def check_frontier(
    tree: Tree, workload: str, doc: dict[str, Any], ok: dict[str, Any], own_csv: Own
) -> list[Problem]:
    """A frontier that passed its schema: its head, models and GPU types, then each part's
    entries (`own_csv`: the workload's joules_per_response in the root CSV)."""
    shown, problems = tree.shown(layout.frontier_rel(workload)), []
    kind = GENERATION_WORKLOADS.get(workload)
    axes = LLM_AXES if kind is None else GENERATION_AXES[kind]
    if doc["workload"] != workload:
        folder = f"{workload!r} (its folder)"
        problems.append(
            Problem.mismatch(shown, "/workload", "frontier.workload", folder, repr(doc["workload"]))
        )
    problems += differing(
        shown,
        "/definition",
        dict(LLM_DEFINITION if kind is None else DEFINITION),
        doc["definition"],
    )
    if kind is None:
        targets = [target_key(t) for t in doc["itl_targets_ms"]]
        named = "itl_targets_ms"
    else:
        limits = {"latency_targets_s": latency_targets(doc["latency_limit_s"])}
        problems += differing(shown, "", limits, doc, "half latency_limit_s, then latency_limit_s")
        targets = [target_key(t) for t in doc["latency_targets_s"]]
        named = "latency_targets_s"
    slugs = [m["slug"] for m in doc["models"]]
    if (listed := ok.get(model_list_rel(workload))) and slugs != (
        want := [m["slug"] for m in listed["models"]]
    ):
        of = f"the slugs of {model_list_rel(workload)} {want}"
        problems.append(Problem.mismatch(shown, "/models", "frontier.models", of, str(slugs)))
    lengths = (
        output_lengths_rel(workload),
        own_lengths(tree, workload, ok) if kind is None else None,
    )
    for i, item in enumerate(doc["models"]):
        source = model_rel(item["slug"], workload)
        if (model := ok.get(source)) is None:
            continue  # missing (the model list says so) or with schema problems of its own
        if list(item["gpus"]) != model["gpus"]:
            of = f"the GPUs of {source} {model['gpus']}"
            problems.append(
                Problem.mismatch(
                    shown, f"/models/{i}/gpus", "frontier.gpus", of, str(list(item["gpus"]))
                )
            )
        part = Part(
            shown, source, axes, (targets, named), own_csv if kind is None else None, lengths
        )
        on_gpu = by_gpu(model["configurations"])
        for gpu, held in item["gpus"].items():
            at = pointer(["models", i, "gpus", gpu])
            problems += part.check(at, held, on_gpu.get(gpu, []), "on this GPU")
        problems += part.check(
            f"/models/{i}/across_gpus", item["across_gpus"], model["configurations"], ""
        )
    return problems


def by_gpu(confs: list[Conf]) -> dict[str, list[Conf]]:
    """A model's configurations by GPU type, each list in document order."""
    found: dict[str, list[Conf]] = {}
    for conf in confs:
        found.setdefault(conf["gpu"], []).append(conf)
    return found


def own_lengths(tree: Tree, workload: str, ok: dict[str, Any]) -> Keyed | None:
    """The workload's output-lengths configurations by (row_id, repeat); none when absent; None
    when it failed."""
    rel = output_lengths_rel(workload)
    if (doc := ok.get(rel)) is None:
        return None if rel in tree.raw else {}
    return {
        (c["row_id"], c["repeat"]): c for model in doc["models"] for c in model["configurations"]
    }


class Part:
    """The checks of one frontier and its best_under (one GPU type's, or across them) against
    configurations."""

    def __init__(
        self,
        shown: str,
        source: str,
        axes: Axes,
        targets: tuple[list[str], str],
        csv: Own | None,
        lengths: tuple[str, Keyed | None] = ("", None),
    ) -> None:
        self.shown, self.source, self.axes, self.csv = shown, source, axes, csv
        self.there, self.lengths = lengths  # the output-lengths document's path and configurations
        self.targets, self.named = targets

    def check(self, where: str, held: Conf, confs: list[Conf], scope: str) -> list[Problem]:
        """Problems of `held` against `confs` (the model's configurations in its scope, in
        document order)."""
        shown, source, problems = self.shown, self.source, []
        energy, latency = self.axes.energy, self.axes.latency
        if list(held["best_under"]) != self.targets:
            keys = f"best_under keys {self.targets} ({self.named})"
            found = str(list(held["best_under"]))
            problems.append(
                Problem.mismatch(shown, f"{where}/best_under", "frontier.targets", keys, found)
            )
        keyed: Keyed = {(c["row_id"], c["repeat"]): c for c in confs}
        # sorted once: every check below is n log n
        by_latency = sorted(confs, key=lambda c: c[latency])
        latencies = [c[latency] for c in by_latency]
        # lows[k]: the lowest-energy configuration of by_latency[:k]
        lows: list[Conf | None] = [None]
        for c in by_latency:
            lows.append(c if lows[-1] is None or c[energy] < lows[-1][energy] else lows[-1])
        front: list[Conf] = []
        on_front: set[int] = set()
        for j, entry in enumerate(held["frontier"]):
            at = f"{where}/frontier/{j}"
            if (conf := self.matching(at, entry, keyed, scope, problems)) is None:
                continue
            if id(conf) in on_front:
                problems.append(
                    Problem.mismatch(
                        shown,
                        at,
                        "frontier.once",
                        "each configuration once",
                        name_of(conf),
                        " again",
                    )
                )
                continue
            if front and conf[latency] < front[-1][latency]:
                after = f" after {front[-1][latency]}"
                problems.append(
                    Problem.mismatch(
                        shown,
                        at,
                        "frontier.order",
                        f"{latency} ascending",
                        str(conf[latency]),
                        after,
                    )
                )
            front.append(conf)
            on_front.add(id(conf))
            # rounding never reverses an order, only makes ties: strictly lower on both dominates in
            # either rule
            better = lows[bisect_left(latencies, conf[latency])]
            if better is not None and better[energy] < conf[energy]:
                want, dominated = (
                    "a configuration no other dominates",
                    f"{name_of(conf)} dominated by {name_of(better)}",
                )
                problems.append(Problem.mismatch(shown, at, "frontier.dominated", want, dominated))
        points = [(c[energy], c[latency]) for c in confs]
        # no other lower or equal on both, rounded: on the frontier by either rule
        counts = Counter(points)
        for conf, point, kept in zip(confs, points, undominated(points), strict=True):
            if kept and counts[point] == 1 and id(conf) not in on_front:
                missing = f"{name_of(conf)} ({source})"
                every = "every undominated configuration"
                problems.append(
                    Problem.mismatch(
                        shown, f"{where}/frontier", "frontier.missing", every, missing, " missing"
                    )
                )
        for target, entry in held["best_under"].items():
            problems += self.best(
                f"{where}/best_under/{target}", target, entry, confs, keyed, scope
            )
        return problems

    def best(
        self, at: str, target: str, entry: Conf | None, confs: list[Conf], keyed: Keyed, scope: str
    ) -> list[Problem]:
        """best_under at one target: the lowest energy at or under it, the first on a tie; null
        when none is."""
        energy, latency, unit = self.axes.energy, self.axes.latency, self.named.rsplit("_", 1)[-1]
        # rounded below the target: unrounded too
        limit = float(target)
        surely = [c for c in confs if c[latency] < limit]
        want = min(surely, key=lambda c: c[energy], default=None)  # the first on a tie
        problems: list[Problem] = []
        if entry is None:
            if want is not None:
                lowest = f"{name_of(want)} (the lowest energy under {target} {unit})"
                problems.append(
                    Problem.mismatch(self.shown, at, "frontier.best-under", lowest, "null")
                )
            return problems
        if (conf := self.matching(at, entry, keyed, scope, problems)) is None:
            return problems
        if conf[latency] > float(target):
            under, found = (
                f"a configuration with {latency} <= {target}",
                f"{name_of(conf)} at {conf[latency]}",
            )
            problems.append(Problem.mismatch(self.shown, at, "frontier.over-target", under, found))
        elif want is not None and (want[energy], confs.index(want)) < (
            conf[energy],
            confs.index(conf),
        ):
            lowest = f"{name_of(want)} (the lowest energy under {target} {unit})"
            problems.append(
                Problem.mismatch(self.shown, at, "frontier.best-under", lowest, name_of(conf))
            )
        return problems

    def matching(
        self, at: str, entry: Conf, keyed: Keyed, scope: str, problems: list[Problem]
    ) -> Conf | None:
        """The configuration an entry names, when it exists; each value it copies must equal the
        published one."""
        if (conf := keyed.get((entry["row_id"], entry["repeat"]))) is None:
            there = f"{self.source} {scope}".rstrip()
            no = f"no {entry['row_id']} repeat {entry['repeat']}"
            problems.append(
                Problem.mismatch(
                    self.shown, at, "frontier.configuration", f"a configuration of {there}", no
                )
            )
            return None
        copied = {key: conf[key] for key in self.axes.entry_keys}
        problems += differing(self.shown, at, copied, entry, f"{self.source} {name_of(conf)}")
        if self.csv is not None:
            problems += self.response(at, entry, conf)
        return conf

    def response(self, at: str, entry: Conf, conf: Conf) -> list[Problem]:
        """An LLM entry's mean output length and energy per response, against its configuration
        and the CSV."""
        problems = []
        mean, joules, per_token = (
            entry["mean_output_tokens"],
            entry["joules_per_response"],
            conf["joules_per_output_token"],
        )
        if abs(mean - conf["avg_output_tokens"]) > HALF_TOKEN:
            named = f"{self.source} {name_of(conf)}"
            within = f"within 0.5 of avg_output_tokens {conf['avg_output_tokens']} ({named})"
            problems.append(
                Problem.mismatch(
                    self.shown,
                    f"{at}/mean_output_tokens",
                    "frontier.mean-tokens",
                    within,
                    str(mean),
                )
            )
        # J per token to 7 decimals, the mean to 2
        product = ENERGY_PER_REQUEST.compute(per_token, mean)
        if abs(joules - product) > 0.5e-7 * mean + 0.005 * per_token + 0.5e-4 + 1e-9 * product:
            named = f"{self.source} {name_of(conf)}"
            msg = f"joules_per_output_token x mean_output_tokens = {product:.4f} ({named})"
            problems.append(
                Problem.mismatch(
                    self.shown,
                    f"{at}/joules_per_response",
                    "physics.energy-per-response",
                    msg,
                    str(joules),
                )
            )
        stated = self.csv.get((conf["row_id"], conf["repeat"])) if self.csv is not None else None
        if stated is not None and stated != joules:
            said = f"{stated} as in {CSV} ({name_of(conf)})"
            problems.append(
                Problem.mismatch(
                    self.shown,
                    f"{at}/joules_per_response",
                    "crossfile.responses-csv",
                    said,
                    str(joules),
                )
            )
        return problems + self.quantiles(at, entry, conf)

    def quantiles(self, at: str, entry: Conf, conf: Conf) -> list[Problem]:
        """An LLM entry's energy per response at the median and p90 length: per token x the
        output-lengths one."""
        if self.lengths is None:
            return []  # the output-lengths document failed its own checks: they say so
        problems, per_token = [], conf["joules_per_output_token"]
        own, there = self.lengths.get((conf["row_id"], conf["repeat"])), self.there
        for name, length in QUANTILE_KEYS.items():
            found = "null" if entry[name] is None else str(entry[name])
            if own is None:
                if entry[name] is not None:
                    said = f"null ({name_of(conf)} has no histogram in {there})"
                    problems.append(
                        Problem.mismatch(
                            self.shown,
                            f"{at}/{name}",
                            "crossfile.response-quantile-null",
                            said,
                            found,
                        )
                    )
                continue
            # J per token to 7 decimals, the quantile as published
            product = per_token * own[length]
            if (
                entry[name] is None
                or abs(entry[name] - product) > 0.5e-7 * own[length] + 0.5e-4 + 1e-9 * product
            ):
                said = (
                    f"joules_per_output_token x {length} = {per_token} x {own[length]} = "
                    f"{product:.4f}"
                )
                said += f" ({self.source}, {there}, {name_of(conf)})"
                problems.append(
                    Problem.mismatch(
                        self.shown, f"{at}/{name}", "crossfile.response-quantile", said, found
                    )
                )
        return problems
