"""Pure: the output-length distributions of the per-model files -> each LLM workload's
output-lengths document."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from builder import layout
from builder.configurations import KeyedRows
from builder.fields import QUANTILE_KEYS, QUANTILES
from builder.metadata import llm_workloads
from builder.strictjson import Doc
from builder.upstream import Row
from builder.upstream_models import Histogram, ModelFile

if TYPE_CHECKING:  # the reader's types: for mypy only, the reader is not installed beside builder
    from leadgreen_data.types import (
        OutputLengthsDocument,
        OutputLengthsModel,
        OutputLengthsModelConfiguration,
    )

OUTPUT_LENGTHS_DEFINITION = (
    "Per model, how long its responses were, as the leaderboard's per-model file gives it: a "
    "histogram of output "
    "lengths in tokens (bins: the edges, counts: the responses in each bin, the last bin closed) "
    "over every "
    "configuration measured, and each configuration's own histogram beside its exact mean. The "
    "histograms are binned, "
    "so a mean taken from them is close to, not equal to, mean_output_tokens."
)
QUANTILE_RULE = (
    "An estimate from the configuration's histogram: the length at which the counts, summed bin "
    "by bin and spread "
    "evenly inside each bin, reach the quantile's share of the responses (linear interpolation "
    "inside the bin)."
)
DIGITS = 1  # the quantiles' decimals: a tenth of a token


def quantile(lengths: Histogram, share: float) -> float:
    """The output length below which `share` of the responses fall, interpolated inside its bin
    (QUANTILE_RULE)."""
    target, below = share * lengths.total, 0
    for i, count in enumerate(lengths.counts):
        if count and below + count >= target:
            low, high = lengths.bins[i], lengths.bins[i + 1]
            return low + (target - below) / count * (high - low)
        below += count
    return lengths.bins[-1]


def by_row(
    keyed: KeyedRows, files: dict[str, ModelFile]
) -> dict[tuple[str, int], tuple[Row, Histogram]]:
    """Each row's (row_id, repeat) -> the row and its configuration's histogram (rows of models
    with one only)."""
    by_model: dict[str, list[Row]] = {}  # each model's rows, in upstream order
    for row in keyed.values():
        by_model.setdefault(row.model_id, []).append(row)
    lengths: dict[int, Histogram] = {}
    for found in files.values():
        own = by_model.get(found.model_id, [])
        lengths |= {
            id(row): hist for row, hist in zip(own, found.configurations, strict=True) if hist
        }
    return {key: (row, lengths[id(row)]) for key, row in keyed.items() if id(row) in lengths}


def configuration_lengths(
    conf: Mapping[str, Any], row: Row, lengths: Histogram
) -> OutputLengthsModelConfiguration:
    """A configuration's entry: its key, its histogram's counts, its exact mean and its estimated
    quantiles."""
    return {
        "row_id": conf["row_id"],
        "repeat": conf["repeat"],
        "gpu": conf["gpu"],
        "num_gpus": conf["num_gpus"],
        "max_num_seqs": conf["max_num_seqs"],
        "responses": lengths.total,
        "counts": list(lengths.counts),
        "mean_output_tokens": row.avg_output_len,
        "median_output_tokens": estimate(lengths, "median_output_tokens"),
        "p90_output_tokens": estimate(lengths, "p90_output_tokens"),
    }


def estimate(lengths: Histogram, name: str) -> float:
    """The quantile QUANTILES[name] of a histogram, to DIGITS decimals."""
    return round(quantile(lengths, QUANTILES[name]), DIGITS)


def output_lengths(
    rows: KeyedRows, files: dict[str, ModelFile], docs: dict[str, Doc], work_id: str, date: str
) -> OutputLengthsDocument:
    """One LLM workload's output-lengths document: its models in model-list order, each
    configuration in its order."""
    keyed = by_row(rows, files)
    models: list[OutputLengthsModel] = []
    owners = {found.model_id: found for found in files.values() if found.lengths}
    for entry in docs[layout.model_list_rel(work_id)]["models"]:
        model = docs[layout.model_rel(entry["slug"], work_id)]
        if (found := owners.get(model["model_id"])) is None or found.lengths is None:
            continue
        confs = [
            configuration_lengths(c, *keyed[(c["row_id"], c["repeat"])])
            for c in model["configurations"]
        ]
        lengths = found.lengths
        models.append(
            {
                "slug": entry["slug"],
                "model_id": model["model_id"],
                "responses": lengths.total,
                "bins": list(lengths.bins),
                "counts": list(lengths.counts),
                "configurations": confs,
            }
        )
    return {
        "version": docs[layout.WORKLOAD_LIST]["version"],
        "data_version": date,
        "workload": work_id,
        "unit": "output tokens per response",
        "definition": OUTPUT_LENGTHS_DEFINITION,
        "quantile_rule": QUANTILE_RULE,
        "models": models,
    }


def build_output_lengths(
    keyed_by_task: dict[str, KeyedRows],
    files: dict[str, dict[str, ModelFile]],
    docs: dict[str, Doc],
    meta: Doc,
    date: str,
) -> dict[str, Doc]:
    """The output-lengths document of every LLM workload whose task has per-model files, by path."""
    found = {}
    for work in llm_workloads(meta):
        if own := files.get(work.task):
            doc = output_lengths(keyed_by_task[work.task], own, docs, work.id, date)
            found[layout.output_lengths_rel(work.id)] = dict(doc)
    return found


def with_response_quantiles(
    keyed_by_task: dict[str, KeyedRows], docs: dict[str, Doc], meta: Doc
) -> None:
    """Each LLM frontier entry gains its energy per response at the median and p90 output length
    (QUANTILE_KEYS)."""
    for work in llm_workloads(meta):
        keyed = keyed_by_task[work.task]
        lengths = docs.get(layout.output_lengths_rel(work.id), {"models": []})
        own = {
            (c["row_id"], c["repeat"]): c
            for model in lengths["models"]
            for c in model["configurations"]
        }
        for model in docs[layout.frontier_rel(work.id)]["models"]:
            for part in [*model["gpus"].values(), model["across_gpus"]]:
                for entry in [*part["frontier"], *(e for e in part["best_under"].values() if e)]:
                    key = (entry["row_id"], entry["repeat"])
                    per_token, conf = keyed[key].energy_per_token_joules, own.get(key)
                    entry |= {
                        name: None if conf is None else round(per_token * conf[q], 4)
                        for name, q in QUANTILE_KEYS.items()
                    }
