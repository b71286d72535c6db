"""Rules across workloads: workloads.json against each workload's documents, units.json against
workloads.json."""

from typing import Any

from builder import layout
from builder.errors import Problem
from builder.fields import LATENCY_FIELD
from builder.layout import GENERATION_WORKLOADS, ROOT_WORKLOAD, index_rel, model_list_rel
from builder.metadata import UNIT_OF_KIND
from builder.transform import UNITS_DEFINITION, unit_rows, workload_urls
from builder.validate.crossfile import Groups, differing, is_any_model
from builder.validate.tree import Tree


def entry_facts(
    workload: str, docs: dict[str, Any], slugs: set[str], base_url: str, version: str
) -> dict[str, Any]:
    """What a workload list entry must say: kind, unit, latency rule, counts (of parsed
    documents) and URLs."""
    index = docs.get(index_rel(workload))
    kind = GENERATION_WORKLOADS.get(workload)
    want = workload_urls(base_url, version, workload) | {
        "kind": kind or "llm",
        "model_count": len(slugs),
    }
    if kind is None:
        want["latency_metric"] = LATENCY_FIELD["llm"]
        if index is not None:
            want |= {"unit": index["unit"], "latency_limit": index["itl_deadline_ms"]}
    else:
        del want["frontier_url"]  # a generation workload has no frontier
        want |= {"unit": UNIT_OF_KIND[kind], "latency_metric": LATENCY_FIELD[kind]}
        if index is not None:
            want["latency_limit"] = index["latency_limit_s"]
    if index is not None:
        want["data_url"] = index["source"]["data_url"]
    models = [doc for rel, doc in docs.items() if is_any_model(rel)]
    if len(models) == len(slugs):
        want["configuration_count"] = sum(len(m["configurations"]) for m in models)
    return want


def check_workload_list(
    tree: Tree, ok: dict[str, Any], groups: Groups, base_url: str
) -> list[Problem]:
    """workloads.json lists every workload present, once, text conversation first, each as
    entry_facts says."""
    shown, doc = tree.shown(layout.WORKLOAD_LIST), ok[layout.WORKLOAD_LIST]
    entries = doc["workloads"]
    ids, problems = [entry["id"] for entry in entries], []
    if ids[0] != ROOT_WORKLOAD:
        problems.append(
            Problem.mismatch(
                shown, "/workloads/0/id", "workloads.first", f"{ROOT_WORKLOAD} first", str(ids[0])
            )
        )
    for workload in groups:
        if workload not in ids and workload not in GENERATION_WORKLOADS:
            want = f"an entry for the workload of {tree.shown(index_rel(workload))}"
            problems.append(Problem.mismatch(shown, "/workloads", "workloads.entry", want, "none"))
    for i, entry in enumerate(entries):
        workload, at = entry["id"], f"/workloads/{i}"
        docs, slugs = groups.get(workload, ({}, set()))
        problems += differing(
            shown, at, entry_facts(workload, docs, slugs, base_url, doc["version"]), entry
        )
        if workload in ids[:i]:
            problems.append(
                Problem.mismatch(
                    shown,
                    f"{at}/id",
                    "workloads.once",
                    "each workload once",
                    str(workload),
                    " again",
                )
            )
            continue
        for rel in (index_rel(workload), model_list_rel(workload)):
            if rel not in tree.docs:
                problems.append(
                    Problem.mismatch(
                        shown, f"{at}/id", "workloads.file", f"a file {tree.shown(rel)}", "none"
                    )
                )
        index = docs.get(index_rel(workload))
        label = f"{entry['name']} ({entry['task']})"
        if index is not None and index["source"]["workload"] != label:
            want = f"name and task as in source.workload {index['source']['workload']!r}"
            problems.append(Problem.mismatch(shown, at, "workloads.label", want, repr(label)))
    return problems


def check_units(tree: Tree, ok: dict[str, Any], base_url: str) -> list[Problem]:
    """units.json repeats each workload list entry's unit and latency rule, in its order, with
    the limit's unit."""
    if (doc := ok.get(layout.UNITS)) is None:
        return []  # missing (check_files) or with schema problems of its own
    entries = ok[layout.WORKLOAD_LIST]["workloads"]
    want = {
        "definition": UNITS_DEFINITION,
        "workloads": unit_rows(entries, base_url, doc["version"]),
    }
    return differing(tree.shown(layout.UNITS), "", want, doc, tree.shown(layout.WORKLOAD_LIST))
