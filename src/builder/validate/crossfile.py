"""Rules across files: of one workload (index, model list, models, frontier, CSV) and across
workloads."""

from typing import Any

from builder import csvview, layout
from builder.errors import Problem
from builder.errors import shown as shown_value
from builder.fields import MEASURE_KEYS
from builder.layout import (
    CSV,
    GENERATION_WORKLOADS,
    MAX_CONFIGURATIONS_PER_TASK,
    MAX_GPUS_PER_TASK,
    MAX_MODELS_PER_TASK,
    ROOT_WORKLOAD,
    index_rel,
    model_list_rel,
    model_rel,
)
from builder.metadata import UNIT_OF_KIND, WORKLOAD_SOURCE_KEYS
from builder.transform import generation_index_row, index_row
from builder.validate.csvrows import check_csv
from builder.validate.descriptor import value_differences
from builder.validate.tree import Tree

# version and unit: the schemas'
SHARED = (
    "itl_deadline_ms",
    "latency_limit_s",
    "source",
    "caveat",
    "boundary",
)
ENTRY_FROM_DOC = ("name", "model_id", "params_b", "active_params_b", "gpus")
# version and unit: the schemas'
SHARED_ACROSS = (
    "itl_deadline_ms",
    "caveat",
    "boundary",
    "selection",
)
MODEL_IDENTITY = ("name", "model_id", "params_b", "active_params_b", "architecture")
Conf = dict[str, Any]
# by workload: documents that passed their schema, every slug
Groups = dict[str, tuple[dict[str, Any], set[str]]]


def is_any_model(rel: str) -> bool:
    """Whether a path inside the data folder is a model document of either kind of workload."""
    found = layout.place(rel)
    return found is not None and found.slug is not None


def check_files(tree: Tree) -> list[Problem]:
    """Every file a package and each of its workloads must have."""
    present = {found.workload for found in tree.places.values() if found.workload} | {ROOT_WORKLOAD}
    required = [
        index_rel(ROOT_WORKLOAD),
        model_list_rel(ROOT_WORKLOAD),
        layout.WORKLOAD_LIST,
        layout.UNITS,
        CSV,
    ]
    required += [
        rel for w in sorted(present - {ROOT_WORKLOAD}) for rel in (index_rel(w), model_list_rel(w))
    ]
    required += [csvview.csv_rel(w) for w in sorted(present & GENERATION_WORKLOADS.keys())]
    # every workload's, an image or video one's too
    required += [layout.frontier_rel(w) for w in sorted(present)]
    missing = [rel for rel in required if rel not in tree.raw]
    return [
        Problem.mismatch(tree.shown(rel), "/", "crossfile.missing-file", "this file", "it missing")
        for rel in missing
    ]


def differing(
    shown: str, at: str, want: dict[str, Any], found: dict[str, Any], source: str = ""
) -> list[Problem]:
    """One problem a key of `want` (the values `source` holds) that `found` lacks or holds
    another value of."""
    for key, value in want.items():  # the same scalars, as most are: no difference to look for
        if key not in found or type(value) is not type(found[key]) or value != found[key]:
            break
        if isinstance(value, (dict, list)):
            break
    else:
        return []
    diffs = value_differences(want, {key: found[key] for key in want if key in found}, at, source)
    return [Problem.of(shown, where, "crossfile.copied-value", message) for where, message in diffs]


def held(want: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """The keys of `want` that `doc` holds: a header key a kind of document lacks is its schema's
    to require."""
    return {key: value for key, value in want.items() if key in doc}


def reference_document(workload: str, docs: dict[str, Any]) -> str | None:
    """The document whose shared header the rest of a workload's documents must repeat: its
    index, or a model."""
    return (
        index_rel(workload)
        if index_rel(workload) in docs
        else next(filter(is_any_model, docs), None)
    )


def check_workload(
    tree: Tree, workload: str, groups: Groups, base_url: str, *, csv_lines: bool = True
) -> list[Problem]:
    """One workload's shared headers (an LLM one's as text conversation's too), kind, index,
    model list and (unless `csv_lines` is False) CSV."""
    (docs, slugs), root_docs = groups[workload], groups[ROOT_WORKLOAD][0]
    problems: list[Problem] = []
    kind, ref_rel, root_rel = (
        GENERATION_WORKLOADS.get(workload),
        reference_document(workload, docs),
        None,
    )
    if workload not in (ROOT_WORKLOAD, *GENERATION_WORKLOADS):
        root_rel = reference_document(ROOT_WORKLOAD, root_docs)
    # but the source fields that are the workload's own
    if root_rel is not None and ref_rel is not None:
        root, ref, own = root_docs[root_rel], docs[ref_rel], dict.fromkeys(WORKLOAD_SOURCE_KEYS)
        want = {key: root[key] for key in SHARED_ACROSS if key in root} | {
            "source": root["source"] | own
        }
        found = ref | {"source": ref["source"] | own}
        problems += differing(
            tree.shown(ref_rel), "", held(want, found), found, tree.shown(root_rel)
        )
    shared = {key: docs[ref_rel][key] for key in SHARED if key in docs[ref_rel]} if ref_rel else {}
    for rel, doc in docs.items():
        if shared and ref_rel:
            problems += differing(tree.shown(rel), "", held(shared, doc), doc, tree.shown(ref_rel))
        if kind is not None:
            problems += differing(
                tree.shown(rel), "", held({"kind": kind, "unit": UNIT_OF_KIND[kind]}, doc), doc
            )
    if index_rel(workload) in docs:
        problems += check_index(tree, workload, docs)
    # against the model documents present
    if (model_list := docs.get(model_list_rel(workload))) is not None:
        shown = tree.shown(model_list_rel(workload))
        listed = [e["slug"] for e in model_list["models"]]
        if listed != sorted(listed):
            problems.append(
                Problem.mismatch(
                    shown,
                    "/models",
                    "crossfile.model-order",
                    "entries sorted by slug",
                    "them out of order",
                )
            )
        for slug in sorted(slugs - set(listed)):
            entry_for = f"an entry for {model_rel(slug, workload)}"
            problems.append(
                Problem.mismatch(shown, "/models", "crossfile.model-entry", entry_for, "none")
            )
        seen: set[str] = set()
        for i, entry in enumerate(model_list["models"]):
            slug, at, rel = entry["slug"], f"/models/{i}", model_rel(entry["slug"], workload)
            if slug in seen:
                problems.append(
                    Problem.mismatch(
                        shown,
                        f"{at}/slug",
                        "crossfile.model-once",
                        "each model once",
                        shown_value(slug),
                        " again",
                    )
                )
            seen.add(slug)
            if slug not in slugs:
                problems.append(
                    Problem.mismatch(
                        shown, f"{at}/slug", "crossfile.model-file", f"a file {rel}", "none"
                    )
                )
            if rel in docs:
                problems += differing(
                    shown, at, {key: docs[rel][key] for key in ENTRY_FROM_DOC}, entry, rel
                )
            url = layout.document_url(base_url, model_list["version"], model_rel(slug, workload))
            problems += differing(
                shown, at, {"url": url, "page": layout.page_url(base_url, slug, workload)}, entry
            )
    places = tree.places
    models = {rel: doc for rel, doc in docs.items() if rel in places and places[rel].slug}
    problems += check_workload_caps(tree.shown(model_list_rel(workload)), len(slugs), models)
    rel = csvview.csv_rel(workload)
    if (
        csv_lines
        and kind
        and rel in tree.raw
        and len(models) == len(slugs)
        and all(m["kind"] == kind for m in models.values())
    ):
        problems += check_csv(tree, rel, csvview.generation_csv(models, workload, kind))
    return problems


def check_index(tree: Tree, workload: str, docs: dict[str, Any]) -> list[Problem]:
    """A workload's index against the best configurations of its model documents."""
    shown, index = tree.shown(index_rel(workload)), docs[index_rel(workload)]
    models = {
        found.slug: doc
        for rel, doc in docs.items()
        if (found := tree.places.get(rel)) and found.slug
    }
    rows, problems = index["rows"], []
    if index["workload"] != workload:
        folder = f"{workload!r} (its folder)"
        problems.append(
            Problem.mismatch(
                shown, "/workload", "crossfile.workload", folder, repr(index["workload"])
            )
        )
    seen: set[tuple[str, str]] = set()
    for i, row in enumerate(rows):
        key = (row["slug"], row["gpu"])
        if key in seen:
            problems.append(
                Problem.mismatch(
                    shown,
                    f"/rows/{i}",
                    "crossfile.index-row-once",
                    "one row per model and GPU",
                    str(key),
                    " again",
                )
            )
        seen.add(key)
        doc = models.get(row["slug"], {})
        if not doc and model_rel(row["slug"], workload) in tree.docs:
            continue  # the model document has schema problems of its own
        if (best := doc.get("best", {}).get(row["gpu"])) is None:
            problems.append(
                Problem.mismatch(
                    shown,
                    f"/rows/{i}",
                    "crossfile.index-row-best",
                    f"a best configuration for {key}",
                    "none",
                )
            )
            continue
        want = (
            generation_index_row(doc, best, doc["kind"])
            if "kind" in doc
            else dict(index_row(doc, best))
        )
        problems += differing(
            shown, f"/rows/{i}", want, row, f"{model_rel(row['slug'], workload)} best[{row['gpu']}]"
        )
    for slug, doc in models.items():
        for gpu in doc["best"]:
            if (slug, gpu) not in seen:
                row_for = f"a row for {model_rel(slug, workload)} best[{gpu}]"
                problems.append(
                    Problem.mismatch(shown, "/rows", "crossfile.index-row-missing", row_for, "none")
                )
    joules = MEASURE_KEYS[index.get("kind", "llm")][0]
    for i in range(1, len(rows)):
        if rows[i][joules] < rows[i - 1][joules]:
            ascending, after = f"rows in ascending {joules}", f" after {rows[i - 1][joules]}"
            problems.append(
                Problem.mismatch(
                    shown,
                    f"/rows/{i}",
                    "crossfile.index-order",
                    ascending,
                    str(rows[i][joules]),
                    after,
                )
            )
    return problems + check_reference_row(shown, index)


def check_reference_row(shown: str, index: dict[str, Any]) -> list[Problem]:
    """The index's reference_row is exactly one of its rows."""
    ref = index["reference_row"]
    found = sum(
        all(row[k] == ref[k] for k in ("model", "gpu", "num_gpus")) for row in index["rows"]
    )
    want = "exactly one row with model {model!r}, gpu {gpu}, num_gpus {num_gpus}".format(**ref)
    return (
        []
        if found == 1
        else [
            Problem.mismatch(shown, "/reference_row", "crossfile.reference-row", want, str(found))
        ]
    )


def check_workload_caps(shown: str, slugs: int, models: dict[str, Any]) -> list[Problem]:
    """A workload past upstream's caps on a task (models, configurations, GPU types), which build
    never writes."""
    confs = [conf for doc in models.values() for conf in doc["configurations"]]
    counts = (
        (MAX_MODELS_PER_TASK, slugs, "models"),
        (MAX_CONFIGURATIONS_PER_TASK, len(confs), "configurations"),
        (MAX_GPUS_PER_TASK, len({conf["gpu"] for conf in confs}), "GPU types"),
    )
    over = [
        (f"at most {cap:,} {what} in a workload", f"{n:,}") for cap, n, what in counts if n > cap
    ]
    return [Problem.mismatch(shown, "/models", "crossfile.too-large", *pair) for pair in over]


def group_by_workload(tree: Tree, ok: dict[str, Any]) -> Groups:
    """Per workload (text conversation first): its documents that passed their schema, and every
    model's slug."""
    groups: Groups = {ROOT_WORKLOAD: ({}, set())}
    for rel, found in tree.places.items():
        if found.workload is None:
            continue
        docs, slugs = groups.setdefault(found.workload, ({}, set()))
        if rel in ok:
            docs[rel] = ok[rel]
        if found.slug is not None:
            slugs.add(found.slug)
    return {w: groups[w] for w in sorted(groups, key=lambda w: (w != ROOT_WORKLOAD, w))}


def check_identity(tree: Tree, groups: Groups) -> list[Problem]:
    """A model (a slug) has one name, model id, parameter counts and architecture everywhere; a
    model id one slug."""
    first: dict[str, tuple[str, dict[str, Any]]] = {}
    slug_of_id: dict[str, tuple[str, str]] = {}
    problems = []
    for docs, _ in groups.values():
        for rel, doc in docs.items():
            if not layout.is_model(rel):
                continue
            seen_rel, seen = first.setdefault(doc["slug"], (rel, doc))
            there = f"{tree.shown(seen_rel)} (the same model in another workload)"
            problems += differing(
                tree.shown(rel), "", {key: seen[key] for key in MODEL_IDENTITY}, doc, there
            )
            owner_rel, owner = slug_of_id.setdefault(doc["model_id"], (rel, doc["slug"]))
            if owner != doc["slug"]:
                there = f"{owner} in {tree.shown(owner_rel)}"
                also = f" also as {there}"
                problems.append(
                    Problem.mismatch(
                        tree.shown(rel),
                        "/model_id",
                        "crossfile.slug-per-model",
                        "one slug per model_id",
                        str(doc["model_id"]),
                        also,
                    )
                )
    return problems
