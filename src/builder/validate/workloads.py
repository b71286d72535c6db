"""Rules across workloads: the workload list against the documents it points to, shared headers, one model."""

from __future__ import annotations

from typing import Any

from builder import layout
from builder.errors import Problem
from builder.genmeta import LATENCY_METRIC, UNIT_OF_KIND
from builder.metadata import WORKLOAD_SOURCE_KEYS
from builder.transform import workload_urls
from builder.validate.crossfile import differing, is_any_model, reference_document
from builder.validate.tree import Tree

SHARED_ACROSS = ("itl_deadline_ms", "caveat", "boundary", "selection")  # version and unit: the schemas'
IDENTITY = ("name", "model_id", "params_b", "active_params_b", "architecture")


def group_by_workload(tree: Tree, ok: dict[str, Any]) -> dict[str, tuple[dict[str, Any], set[str]]]:
    """Per workload (text conversation first): its documents that passed their schema, and every model's slug."""
    groups: dict[str, tuple[dict[str, Any], set[str]]] = {layout.ROOT_WORKLOAD: ({}, set())}
    for rel in tree.raw:
        found = layout.place(rel)
        if found is None or found.workload is None:
            continue
        docs, slugs = groups.setdefault(found.workload, ({}, set()))
        if rel in ok:
            docs[rel] = ok[rel]
        if found.slug is not None:
            slugs.add(found.slug)
    return {w: groups[w] for w in sorted(groups, key=lambda w: (w != layout.ROOT_WORKLOAD, w))}


def check_shared_across(tree: Tree, groups: dict[str, tuple[dict[str, Any], set[str]]]) -> list[Problem]:
    """Every workload repeats text conversation's header, and its source but for the workload's own fields."""
    root_docs = groups[layout.ROOT_WORKLOAD][0]
    root_rel = reference_document(layout.ROOT_WORKLOAD, root_docs)
    if root_rel is None:
        return []
    root, problems = root_docs[root_rel], []
    for workload, (docs, _) in groups.items():
        ref_rel = reference_document(workload, docs)
        if workload in (layout.ROOT_WORKLOAD, *layout.GENERATION_WORKLOADS) or ref_rel is None:
            continue
        doc, own = docs[ref_rel], dict.fromkeys(WORKLOAD_SOURCE_KEYS)  # the workload's own source fields may differ
        want = {key: root[key] for key in SHARED_ACROSS if key in root} | {"source": root["source"] | own}
        problems += differing(
            tree.shown(ref_rel), "", want, doc | {"source": doc["source"] | own}, tree.shown(root_rel)
        )
    return problems


def check_identity(tree: Tree, groups: dict[str, tuple[dict[str, Any], set[str]]]) -> list[Problem]:
    """A model (a slug) has one name, model id, parameter counts and architecture everywhere; a model id one slug."""
    first: dict[str, tuple[str, dict[str, Any]]] = {}
    slug_of_id: dict[str, tuple[str, str]] = {}
    problems = []
    for docs, _ in groups.values():
        for rel, doc in docs.items():
            if not layout.is_model(rel):
                continue
            seen_rel, seen = first.setdefault(doc["slug"], (rel, doc))
            there = f"{tree.shown(seen_rel)} (the same model in another workload)"
            problems += differing(tree.shown(rel), "", {key: seen[key] for key in IDENTITY}, doc, there)
            owner_rel, owner = slug_of_id.setdefault(doc["model_id"], (rel, doc["slug"]))
            if owner != doc["slug"]:
                there = f"{owner} in {tree.shown(owner_rel)}"
                msg = f"expected one slug per model_id, found {doc['model_id']} also as {there}"
                problems.append(Problem(tree.shown(rel), "/model_id", msg))
    return problems


def entry_facts(workload: str, docs: dict[str, Any], slugs: set[str], base_url: str, version: str) -> dict[str, Any]:
    """What a workload list entry must say: kind, unit, latency rule, counts (of parsed documents) and URLs."""
    index = docs.get(layout.index_rel(workload))
    kind = layout.GENERATION_WORKLOADS.get(workload)
    want = workload_urls(base_url, version, workload) | {"kind": kind or "llm", "model_count": len(slugs)}
    if kind is None:
        want["latency_metric"] = "median_itl_ms"
        if index is not None:
            want |= {"unit": index["unit"], "latency_limit": index["itl_deadline_ms"]}
    else:
        del want["frontier_url"]  # a generation workload has no frontier
        want |= {"unit": UNIT_OF_KIND[kind], "latency_metric": LATENCY_METRIC}
        if index is not None:
            want["latency_limit"] = index["latency_limit_s"]
    if index is not None:
        want["data_url"] = index["source"]["data_url"]
    models = [doc for rel, doc in docs.items() if is_any_model(rel)]
    if len(models) == len(slugs):
        want["configuration_count"] = sum(len(m["configurations"]) for m in models)
    return want


def check_workload_list(
    tree: Tree, ok: dict[str, Any], groups: dict[str, tuple[dict[str, Any], set[str]]], base_url: str
) -> list[Problem]:
    """workloads.json lists every workload present, once, text conversation first, each as entry_facts says."""
    shown, doc = tree.shown(layout.WORKLOAD_LIST), ok[layout.WORKLOAD_LIST]
    entries = doc["workloads"]
    ids = [entry["id"] for entry in entries]
    problems = []
    if ids[0] != layout.ROOT_WORKLOAD:
        problems.append(Problem(shown, "/workloads/0/id", f"expected {layout.ROOT_WORKLOAD} first, found {ids[0]}"))
    for workload in groups:
        if workload not in ids and workload not in layout.GENERATION_WORKLOADS:
            msg = f"expected an entry for the workload of {tree.shown(layout.index_rel(workload))}, found none"
            problems.append(Problem(shown, "/workloads", msg))
    for i, entry in enumerate(entries):
        workload, at = entry["id"], f"/workloads/{i}"
        docs, slugs = groups.get(workload, ({}, set()))
        problems += differing(shown, at, entry_facts(workload, docs, slugs, base_url, doc["version"]), entry)
        if workload in ids[:i]:
            problems.append(Problem(shown, f"{at}/id", f"expected each workload once, found {workload} again"))
            continue
        for rel in (layout.index_rel(workload), layout.model_list_rel(workload)):
            if rel not in tree.docs:
                problems.append(Problem(shown, f"{at}/id", f"expected a file {tree.shown(rel)}, found none"))
        index = docs.get(layout.index_rel(workload))
        label = f"{entry['name']} ({entry['task']})"
        if index is not None and index["source"]["workload"] != label:
            msg = f"expected name and task as in source.workload {index['source']['workload']!r}, found {label!r}"
            problems.append(Problem(shown, at, msg))
    return problems
