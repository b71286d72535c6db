"""Rules across one workload's files (index, model list, model documents, shared headers) and the CSVs."""

from __future__ import annotations

from typing import Any

from builder import csvview
from builder.errors import Problem
from builder.errors import shown as shown_value
from builder.genmeta import UNIT_OF_KIND
from builder.layout import (
    CSV,
    GENERATION_WORKLOADS,
    ROOT_WORKLOAD,
    WORKLOAD_LIST,
    frontier_rel,
    index_rel,
    model_list_rel,
    model_rel,
    model_url,
    page_url,
    place,
    schema_for,
    slug_of,
)
from builder.responses import JOULES, WH, stated_responses
from builder.transform import index_row, index_row_keys, measure_keys
from builder.validate.descriptor import compare
from builder.validate.tree import Tree

SHARED = ("itl_deadline_ms", "latency_limit_s", "source", "caveat", "boundary")  # version and unit: the schemas'
ENTRY_FROM_DOC = ("name", "model_id", "params_b", "active_params_b", "gpus")
WH_SLACK = 0.005 + 1.4e-5  # 2 decimals, from the unrounded J, which the 4-decimal J column is within 5e-5 of


def is_any_model(rel: str) -> bool:
    """Whether a path inside the data folder is a model document of either kind of workload."""
    found = place(rel)
    return found is not None and found.slug is not None


def check_files(tree: Tree) -> list[Problem]:
    """Only published files, and every file a package and each of its workloads must have."""
    problems = []
    for rel in sorted({*tree.stray, *tree.raw}):
        if rel != CSV and schema_for(rel) is None:  # each published document has a schema
            problems.append(Problem(tree.shown(rel), "/", "expected only published files, found a stray file"))
    present = {found.workload for rel in tree.raw if (found := place(rel)) and found.workload} | {ROOT_WORKLOAD}
    required = [index_rel(ROOT_WORKLOAD), model_list_rel(ROOT_WORKLOAD), WORKLOAD_LIST, CSV]
    required += [rel for w in sorted(present - {ROOT_WORKLOAD}) for rel in (index_rel(w), model_list_rel(w))]
    required += [csvview.csv_rel(w) for w in sorted(present & GENERATION_WORKLOADS.keys())]
    required += [frontier_rel(w) for w in sorted(present - GENERATION_WORKLOADS.keys())]
    for rel in required:
        if rel not in tree.raw:
            problems.append(Problem(tree.shown(rel), "/", "expected this file, found it missing"))
    return problems


def differing(shown: str, at: str, want: dict[str, Any], found: dict[str, Any], source: str = "") -> list[Problem]:
    """One problem a difference in a key that `want` (the values `source` holds) and `found` both hold."""
    keys = [key for key in want if key in found]
    diffs = compare({key: want[key] for key in keys}, {key: found[key] for key in keys}, at, source)
    return [Problem(shown, where, message) for where, message in diffs]


def reference_document(workload: str, docs: dict[str, Any]) -> str | None:
    """The document whose shared header the rest of a workload's documents must repeat: its index, or a model."""
    return index_rel(workload) if index_rel(workload) in docs else next(filter(is_any_model, docs), None)


def check_workload(tree: Tree, workload: str, docs: dict[str, Any], slugs: set[str], base_url: str) -> list[Problem]:
    """One workload's shared headers, kind, index, model list and CSV (`docs`: those that passed their schema)."""
    problems = []
    kind = GENERATION_WORKLOADS.get(workload)
    ref_rel = reference_document(workload, docs)
    for rel, doc in docs.items():
        if ref_rel is not None:
            shared = {key: docs[ref_rel][key] for key in SHARED if key in docs[ref_rel]}
            problems += differing(tree.shown(rel), "", shared, doc, tree.shown(ref_rel))
        if kind is not None:
            problems += differing(tree.shown(rel), "", {"kind": kind, "unit": UNIT_OF_KIND[kind]}, doc)
    if index_rel(workload) in docs:
        problems += check_index(tree, workload, docs)
    if model_list_rel(workload) in docs:
        problems += check_model_list(tree, workload, docs, slugs, base_url)
    models = {rel: doc for rel, doc in docs.items() if is_any_model(rel)}
    rel = csvview.csv_rel(workload)
    if kind and rel in tree.raw and len(models) == len(slugs) and all(m["kind"] == kind for m in models.values()):
        problems += check_csv(tree, rel, csvview.generation_csv(models, workload, kind))
    return problems


def check_model_list(tree: Tree, workload: str, docs: dict[str, Any], files: set[str], base_url: str) -> list[Problem]:
    """A workload's model list against its model documents (`files`: the slugs of those present, parsed or not)."""
    shown, model_list = tree.shown(model_list_rel(workload)), docs[model_list_rel(workload)]
    listed = [e["slug"] for e in model_list["models"]]
    problems, seen = [], set()
    if listed != sorted(listed):
        problems.append(Problem(shown, "/models", "expected entries sorted by slug, found them out of order"))
    for slug in sorted(files - set(listed)):
        problems.append(Problem(shown, "/models", f"expected an entry for {model_rel(slug, workload)}, found none"))
    for i, entry in enumerate(model_list["models"]):
        slug, at, rel = entry["slug"], f"/models/{i}", model_rel(entry["slug"], workload)
        if slug in seen:
            problems.append(Problem(shown, f"{at}/slug", f"expected each model once, found {shown_value(slug)} again"))
        seen.add(slug)
        if slug not in files:
            problems.append(Problem(shown, f"{at}/slug", f"expected a file {rel}, found none"))
        if rel in docs:
            problems += differing(shown, at, {key: docs[rel][key] for key in ENTRY_FROM_DOC}, entry, rel)
        url = model_url(base_url, model_list["version"], slug, workload)
        problems += differing(shown, at, {"url": url, "page": page_url(base_url, slug, workload)}, entry)
    return problems


def check_index(tree: Tree, workload: str, docs: dict[str, Any]) -> list[Problem]:
    """A workload's index against the best configurations of its model documents."""
    shown, index = tree.shown(index_rel(workload)), docs[index_rel(workload)]
    models = {slug_of(rel): doc for rel, doc in docs.items() if is_any_model(rel)}
    rows = index["rows"]
    problems = []
    if index["workload"] != workload:
        problems.append(Problem(shown, "/workload", f"expected {workload!r} (its folder), found {index['workload']!r}"))
    seen: set[tuple[str, str]] = set()
    for i, row in enumerate(rows):
        key = (row["slug"], row["gpu"])
        if key in seen:
            problems.append(Problem(shown, f"/rows/{i}", f"expected one row per model and GPU, found {key} again"))
        seen.add(key)
        doc = models.get(row["slug"], {})
        if not doc and model_rel(row["slug"], workload) in tree.docs:
            continue  # the model document has schema problems of its own
        best = doc.get("best", {}).get(row["gpu"])
        if best is None:
            problems.append(Problem(shown, f"/rows/{i}", f"expected a best configuration for {key}, found none"))
            continue
        want = index_row(doc, best, index_row_keys(doc["kind"])) if "kind" in doc else index_row(doc, best)
        problems += differing(shown, f"/rows/{i}", want, row, f"{model_rel(row['slug'], workload)} best[{row['gpu']}]")
    for slug, doc in models.items():
        for gpu in doc["best"]:
            if (slug, gpu) not in seen:
                msg = f"expected a row for {model_rel(slug, workload)} best[{gpu}], found none"
                problems.append(Problem(shown, "/rows", msg))
    joules = measure_keys(index["kind"])[0] if "kind" in index else "joules_per_output_token"
    for i in range(1, len(rows)):
        if rows[i][joules] < rows[i - 1][joules]:
            msg = f"expected rows in ascending {joules}, found {rows[i][joules]} after {rows[i - 1][joules]}"
            problems.append(Problem(shown, f"/rows/{i}", msg))
    return problems + check_reference_row(shown, index)


def check_reference_row(shown: str, index: dict[str, Any]) -> list[Problem]:
    """The index's reference_row is exactly one of its rows."""
    ref = index["reference_row"]
    key = ("model", "gpu", "num_gpus")
    found = sum(tuple(row[k] for k in key) == tuple(ref[k] for k in key) for row in index["rows"])
    if found == 1:
        return []
    named = "model {model!r}, gpu {gpu}, num_gpus {num_gpus}".format(**ref)
    return [Problem(shown, "/reference_row", f"expected exactly one row with {named}, found {found}")]


def check_csv(tree: Tree, rel: str, expected: bytes) -> list[Problem]:
    """A flat table is exactly the model documents' configurations (`expected`), in the builder's order."""
    if tree.raw[rel] == expected:
        return []
    want = expected.decode().split("\n")
    found = tree.raw[rel].decode("utf-8", errors="replace").split("\n")  # a \r stays in the line it ends
    shown = tree.shown(rel)
    for line, (w, f) in enumerate(zip(want, found, strict=False), start=1):
        if w != f:
            return [Problem(shown, f"line {line}", f"expected {w!r} (from the model documents), found {f!r}")]
    at = min(len(want), len(found))
    what = "a final newline and no more" if len(want) > len(found) else "nothing after the last line's newline"
    return [Problem(shown, f"line {at}", f"expected {what} ({len(want) - 1} lines), found {len(found) - 1}")]


def check_root_csv(tree: Tree, ok: dict[str, Any]) -> list[Problem]:
    """The LLM workloads' flat table, in the workload list's order, each wh_per_thousand_responses its J / 3.6."""
    if CSV not in tree.raw:
        return []
    responses = list(stated_responses(tree.raw[CSV]))  # the J column is upstream's, which `builder drift` checks
    problems = check_csv(tree, CSV, csvview.configurations_csv(ok, {key: energy for _, key, energy in responses}))
    for line, key, (joules, wh) in responses:
        if abs(wh - joules / 3.6) > WH_SLACK:
            conf = f"{key[1]} repeat {key[2]} of {key[0]}"
            msg = f"expected {JOULES} / 3.6 = {round(joules / 3.6, 2)} ({conf}), found {wh}"
            problems.append(Problem(tree.shown(CSV), f"line {line}, column {WH}", msg))
    return problems
