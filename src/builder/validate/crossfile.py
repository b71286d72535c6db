"""Rules across files, for both kinds of workload: index vs models, model list vs documents, shared headers,
the CSVs.

The per-workload rules take one workload's documents (its index, model list and model documents).
"""

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

SHARED = ("version", "kind", "unit", "itl_deadline_ms", "latency_limit_s", "source", "caveat", "boundary")
ENTRY_FROM_DOC = ("name", "model_id", "params_b", "active_params_b", "gpus")
WH_SLACK = 0.005 + 1.4e-5  # 2 decimals, from the unrounded J, which the 4-decimal J column is within 5e-5 of


def is_any_model(rel: str) -> bool:
    """Whether a path inside the data folder is a model document of either kind of workload."""
    found = place(rel)
    return found is not None and found.slug is not None


def check_files(tree: Tree) -> list[Problem]:
    """Only published files; the workload list, the CSV, and an index, model list and frontier (or CSV) for every
    workload present."""
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


def check_workload(tree: Tree, workload: str, docs: dict[str, Any], slugs: set[str], base_url: str) -> list[Problem]:
    """One workload's headers, index, model list and (of a generation workload) kind and CSV: `docs` are those
    that passed their schema, `slugs` those of every model document present."""
    problems = check_headers(tree, workload, docs) + check_kind(tree, workload, docs)
    if index_rel(workload) in docs:
        problems += check_index(tree, workload, docs)
    if (model_list := docs.get(model_list_rel(workload))) is not None:
        problems += check_model_list(tree, workload, docs, slugs, base_url, model_list["version"])
    kind = GENERATION_WORKLOADS.get(workload)
    models = {rel: doc for rel, doc in docs.items() if is_any_model(rel)}
    rel = csvview.csv_rel(workload)
    if kind and rel in tree.raw and len(models) == len(slugs) and all(m["kind"] == kind for m in models.values()):
        expected = csvview.generation_csv(models, workload, kind)
        problems += check_csv(tree, rel, expected)
    return problems


def check_kind(tree: Tree, workload: str, docs: dict[str, Any]) -> list[Problem]:
    """Every document of a generation workload states its kind and that kind's unit."""
    kind = GENERATION_WORKLOADS.get(workload)
    if kind is None:
        return []
    want = {"kind": kind, "unit": UNIT_OF_KIND[kind]}
    return [
        Problem(tree.shown(rel), f"/{key}", f"expected {value!r}, found {doc[key]!r}")
        for rel, doc in docs.items()
        for key, value in want.items()
        if key in doc and doc[key] != value
    ]


def reference_document(workload: str, docs: dict[str, Any]) -> str | None:
    """The document whose shared header the rest of a workload's documents must repeat: its index, or a model."""
    return index_rel(workload) if index_rel(workload) in docs else next(filter(is_any_model, docs), None)


def check_headers(tree: Tree, workload: str, docs: dict[str, Any]) -> list[Problem]:
    """The shared header fields are identical across one workload's files; its index is the reference."""
    ref_rel = reference_document(workload, docs)
    if ref_rel is None:
        return []
    return [p for rel, doc in docs.items() for p in same_values(tree, rel, doc, ref_rel, docs[ref_rel], SHARED)]


def same_values(tree: Tree, rel: str, doc: Any, ref_rel: str, ref: Any, keys: tuple[str, ...]) -> list[Problem]:
    """Each of `keys` that both documents hold has the same value in `doc` as in the reference `ref`."""
    shared = [key for key in keys if key in doc and key in ref]
    found = [d for key in shared for d in compare(ref[key], doc[key], f"/{key}", tree.shown(ref_rel))]
    return [Problem(tree.shown(rel), where, message) for where, message in found]


def differing(shown: str, at: str, want: dict[str, Any], found: dict[str, Any], source: str) -> list[Problem]:
    """One problem a key whose value in `found` (at `at`) is not the one `want` takes from `source`."""
    return [
        Problem(shown, f"{at}/{key}", f"expected {value!r} as in {source}, found {found.get(key)!r}")
        for key, value in want.items()
        if found.get(key) != value
    ]


def check_model_list(
    tree: Tree, workload: str, docs: dict[str, Any], files: set[str], base_url: str, version: str
) -> list[Problem]:
    """A workload's model list against its model documents (`files`: the slugs of those present, parsed or not)."""
    shown = tree.shown(model_list_rel(workload))
    entries = docs[model_list_rel(workload)]["models"]
    listed = [e["slug"] for e in entries]
    problems = []
    if listed != sorted(listed):
        problems.append(Problem(shown, "/models", "expected entries sorted by slug, found them out of order"))
    for slug in sorted(files - set(listed)):
        problems.append(Problem(shown, "/models", f"expected an entry for {model_rel(slug, workload)}, found none"))
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        slug, at = entry["slug"], f"/models/{i}"
        if slug in seen:
            problems.append(Problem(shown, f"{at}/slug", f"expected each model once, found {shown_value(slug)} again"))
        seen.add(slug)
        rel = model_rel(slug, workload)
        doc = docs.get(rel)
        if slug not in files:
            problems.append(Problem(shown, f"{at}/slug", f"expected a file {rel}, found none"))
        if doc is not None:
            problems += differing(shown, at, {key: doc[key] for key in ENTRY_FROM_DOC}, entry, rel)
        derived = {"url": model_url(base_url, version, slug, workload), "page": page_url(base_url, slug, workload)}
        for key, want in derived.items():
            if entry[key] != want:
                problems.append(Problem(shown, f"{at}/{key}", f"expected {want}, found {entry[key]}"))
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
        doc = models.get(row["slug"])
        if doc is None and model_rel(row["slug"], workload) in tree.docs:
            continue  # the model document has schema problems of its own
        best = doc["best"].get(row["gpu"]) if doc else None
        if best is None:
            problems.append(Problem(shown, f"/rows/{i}", f"expected a best configuration for {key}, found none"))
            continue
        source = f"{model_rel(row['slug'], workload)} best[{row['gpu']}]"
        problems += differing(shown, f"/rows/{i}", _index_row(doc, best), row, source)  # type: ignore[arg-type]
    for slug, doc in models.items():
        for gpu in doc["best"]:
            if (slug, gpu) not in seen:
                msg = f"expected a row for {model_rel(slug, workload)} best[{gpu}], found none"
                problems.append(Problem(shown, "/rows", msg))
    joules = measure_keys(index["kind"])[0] if "kind" in index else "joules_per_output_token"
    energies = [r.get(joules) for r in rows]
    for i in range(1, len(energies)):
        if energies[i] < energies[i - 1]:
            msg = f"expected rows in ascending {joules}, found {energies[i]} after {energies[i - 1]}"
            problems.append(Problem(shown, f"/rows/{i}", msg))
    return problems + check_reference_row(shown, index)


def _index_row(model: dict[str, Any], best: dict[str, Any]) -> dict[str, Any]:
    """The index row of one model's best configuration on one GPU, as the builder writes it for its kind."""
    if "kind" in model:  # a generation workload's
        return index_row(model, best, index_row_keys(model["kind"]))
    return index_row(model, best)


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
    """The LLM workloads' flat table, in the workload list's order, with its responses columns."""
    if CSV not in tree.raw:
        return []
    stated = {key: energy for _, key, energy in stated_responses(tree.raw[CSV])}  # their values: see check_responses
    expected = csvview.configurations_csv(ok, stated)
    return check_csv(tree, CSV, expected) + check_responses(tree)


def check_responses(tree: Tree) -> list[Problem]:
    """Each CSV row's wh_per_thousand_responses is its joules_per_response / 3.6, within rounding (the J
    column is upstream's energy_per_request_joules, which `builder drift` checks)."""
    problems = []
    for line, key, (joules, wh) in stated_responses(tree.raw.get(CSV, b"")):
        if abs(wh - joules / 3.6) > WH_SLACK:
            conf = f"{key[1]} repeat {key[2]} of {key[0]}"
            msg = f"expected {JOULES} / 3.6 = {round(joules / 3.6, 2)} ({conf}), found {wh}"
            problems.append(Problem(tree.shown(CSV), f"line {line}, column {WH}", msg))
    return problems
