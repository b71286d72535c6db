"""An output-lengths document that passed its schema, against itself (physics) and its workload's
model documents."""

from itertools import pairwise
from typing import Any

from builder.errors import Problem, Said, pointer, shown
from builder.fields import QUANTILES
from builder.layout import model_list_rel, model_rel, output_lengths_rel
from builder.lengths import DIGITS, OUTPUT_LENGTHS_DEFINITION, QUANTILE_RULE, quantile
from builder.upstream_models import Histogram, edge_means
from builder.validate.tree import Tree

# an entry's, equal to its configuration's
KEY = (
    "row_id",
    "repeat",
    "gpu",
    "num_gpus",
    "max_num_seqs",
)
LengthFault = tuple[str, Said]  # (pointer, fault)


def check_output_lengths(
    tree: Tree, workload: str, doc: dict[str, Any], ok: dict[str, Any]
) -> list[Problem]:
    """Its workload, texts and models, then each model's histograms and configurations."""
    faults: list[LengthFault] = []
    for key, want in (
        ("workload", workload),
        ("definition", OUTPUT_LENGTHS_DEFINITION),
        ("quantile_rule", QUANTILE_RULE),
    ):
        if doc[key] != want:
            faults.append((f"/{key}", Said(f"{shown(want, 60)}", f"{shown(doc[key], 60)}")))
    slugs = [m["slug"] for m in doc["models"]]
    if (listed := ok.get(model_list_rel(workload))) and slugs != (
        want_slugs := [m["slug"] for m in listed["models"]]
    ):
        faults.append(
            ("/models", Said(f"the slugs of {model_list_rel(workload)} {want_slugs}", f"{slugs}"))
        )
    for i, item in enumerate(doc["models"]):
        source = model_rel(item["slug"], workload)
        model = ok.get(source)  # missing or unsound: the model list's and its schema's problem
        faults += [
            (pointer(("models", i)) + at, fault)
            for at, fault in model_entry_faults(item, model, source)
        ]
    shown_as = tree.shown(output_lengths_rel(workload))
    return [Problem.of(shown_as, at, "lengths.value", fault) for at, fault in faults]


def model_entry_faults(
    item: dict[str, Any], model: dict[str, Any] | None, source: str
) -> list[LengthFault]:
    """One model's entry: its histogram's shape and sum, and each configuration against its model
    document's."""
    bins = item["bins"]
    if len(bins) != len(item["counts"]) + 1:
        return [
            (
                "/bins",
                Said(f"{len(item['counts']) + 1} edges (one more than the counts)", f"{len(bins)}"),
            )
        ]
    if any(low >= high for low, high in pairwise(bins)):
        return [("/bins", Said("edges that rise strictly", "one at or below the one before"))]
    faults = sum_faults(item, "")
    if model is not None and item["model_id"] != model["model_id"]:
        faults.append(
            (
                "/model_id",
                Said(f"{shown(model['model_id'])} (from {source})", f"{shown(item['model_id'])}"),
            )
        )
    confs = item["configurations"]
    if any(len(conf["counts"]) != len(item["counts"]) for conf in confs):
        return [
            *faults,
            ("/configurations", Said("one count a bin in every configuration", "another number")),
        ]
    summed = [sum(column) for column in zip(*(conf["counts"] for conf in confs), strict=True)]
    if summed != item["counts"]:
        faults.append(
            ("/counts", Said("the sum of the configurations' counts, bin by bin", "another"))
        )
    published = model["configurations"] if model is not None else None
    if published is not None and [key(c) for c in confs] != [key(c) for c in published]:
        faults.append(
            ("/configurations", Said(f"the configurations of {source}, in its order", "others"))
        )
        published = None
    for j, conf in enumerate(confs):
        own = Histogram(tuple(bins), tuple(conf["counts"]))
        faults += [(f"/configurations/{j}{at}", fault) for at, fault in conf_faults(conf, own)]
        if (
            published is not None
            and round(conf["mean_output_tokens"]) != published[j]["avg_output_tokens"]
        ):
            said = f"the mean {source} rounds to {published[j]['avg_output_tokens']}"
            faults.append(
                (
                    f"/configurations/{j}/mean_output_tokens",
                    Said(said, repr(conf["mean_output_tokens"])),
                )
            )
    return faults


def conf_faults(conf: dict[str, Any], lengths: Histogram) -> list[LengthFault]:
    """A configuration's sum, its mean within its bins' edge means, and its quantiles as the rule
    gives them."""
    faults = sum_faults(conf, "")
    if faults or not lengths.total:
        return faults
    low, high = edge_means(lengths)
    if not low <= (mean := conf["mean_output_tokens"]) <= high:
        said = Said(f"the mean of the binned lengths, between {low!r} and {high!r}", repr(mean))
        faults.append(("/mean_output_tokens", said))
    for name, share in QUANTILES.items():
        if conf[name] != (want := round(quantile(lengths, share), DIGITS)):
            faults.append(
                (f"/{name}", Said(f"{want!r} (quantile_rule at {share})", f"{conf[name]!r}"))
            )
    return faults


def sum_faults(item: dict[str, Any], at: str) -> list[LengthFault]:
    if item["responses"] != (total := sum(item["counts"])):
        return [
            (f"{at}/responses", Said(f"the sum of the counts, {total}", f"{item['responses']}"))
        ]
    return []


def key(conf: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(conf[name] for name in KEY)
