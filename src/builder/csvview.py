"""The flat configurations tables: every configuration of every model of a workload, one CSV row
each."""

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from builder.configurations import CONFIG_KEYS, KeyedRows, config_keys
from builder.fields import RESPONSE_ENERGY
from builder.layout import CSV, MODELS_DIR, WORKLOAD_LIST, place, workload_dir
from builder.metadata import llm_workloads

CsvKey = tuple[str, str, int]  # (workload, row_id, repeat)
Energy = tuple[float, float]  # (joules_per_response, wh_per_thousand_responses)
JOULES, WH = RESPONSE_ENERGY
MODEL_COLUMNS = ("workload", "slug", "name", "model_id")
MODEL_KEYS = ("params_b", "active_params_b", "architecture")  # the model document's, appended
# the root CSV's columns; energy per response comes from upstream rows
COLUMNS = (*MODEL_COLUMNS, *CONFIG_KEYS, JOULES, WH, *MODEL_KEYS)
# the cells the csv module would write otherwise (None as "", a bool as True): None as str(None)
# does, a bool in lower case; it writes every other cell as str(value)
SPELT = {True: "true", False: "false", None: "None"}


def write_csv(
    columns: tuple[str, ...],
    models: Sequence[tuple[Any, Any]],
    cells: Callable[[str, Any, Any], list[Any]],
) -> bytes:
    """UTF-8 CSV: a header, then per (workload, model document) a row per configuration (a bool
    as true or false)."""
    buf = io.BytesIO()
    text = io.TextIOWrapper(buf, encoding="utf-8", newline="")  # encoded as it is written
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for workload, model in models:
        for conf in model["configurations"]:
            row = [
                workload,
                model["slug"],
                model["name"],
                model["model_id"],
                *cells(workload, model, conf),
            ]
            writer.writerow(
                [SPELT[value] if value is None or type(value) is bool else value for value in row]
            )
    text.flush()
    return buf.getvalue()


def csv_rel(workload: str) -> str:
    """An image or video workload's own CSV, by path inside the data folder."""
    return workload_dir(workload) + CSV


def generation_csv(docs: dict[str, Any], workload: str, kind: str) -> bytes:
    """The flat table of one image or video workload: its models in slug order, their
    configurations in order."""
    keys, folder = config_keys(kind), f"{workload_dir(workload)}{MODELS_DIR}/"
    models = [(workload, doc) for rel, doc in docs.items() if rel.startswith(folder)]
    models.sort(key=lambda item: item[1]["slug"])
    values = itemgetter(*keys)  # a configuration's cells, in the columns' order
    return write_csv((*MODEL_COLUMNS, *keys), models, lambda _, model, conf: values(conf))


def configurations_csv(docs: dict[str, Any], responses: Mapping[CsvKey, Energy]) -> bytes:
    """CSV of the LLM model documents in `docs`: workloads as listed (others after, by id),
    models by slug."""
    rank = {
        entry["id"]: i
        for i, entry in enumerate(docs[WORKLOAD_LIST]["workloads"] if WORKLOAD_LIST in docs else [])
    }
    models = [
        (found.workload, doc)
        for rel, doc in docs.items()
        if (found := place(rel)) and found.kind == "model"
    ]
    models.sort(key=lambda item: (rank.get(item[0], len(rank)), item[0], item[1]["slug"]))

    config_values, model_values = itemgetter(*CONFIG_KEYS), itemgetter(*MODEL_KEYS)

    def cells(workload: str, model: dict[str, Any], conf: dict[str, Any]) -> list[Any]:
        energy = responses.get((workload, conf["row_id"], conf["repeat"]), ("", ""))
        return [*config_values(conf), *energy, *model_values(model)]

    return write_csv(COLUMNS, models, cells)


def response_energies(
    keyed_by_task: Mapping[str, KeyedRows], meta: dict[str, Any]
) -> dict[CsvKey, Energy]:
    """Each configuration's energy per request: J to 4 decimals, and Wh per 1,000 responses (J /
    3.6) to 2, both floats (an integral upstream J too), as a reader of the table reads them
    back."""
    return {
        (work.id, *key): (
            round(float(row.energy_per_request_joules), 4),
            round(row.energy_per_request_joules / 3.6, 2),
        )
        for work in llm_workloads(meta)
        for key, row in keyed_by_task[work.task].items()
    }


def csv_key(row: Mapping[str, str]) -> CsvKey:
    """A table row's key: its workload, row_id and repeat; KeyError, TypeError or ValueError
    where it has none."""
    return row["workload"], row["row_id"], int(row["repeat"])


def row_energy(row: Mapping[str, str]) -> Energy:
    """A root CSV row's energy per response (J, Wh per 1,000); KeyError, TypeError or ValueError
    where it has none."""
    return float(row[JOULES]), float(row[WH])


def lines(data: bytes) -> io.TextIOWrapper:
    """UTF-8 CSV bytes as text lines for a csv reader, decoded as they are read (never one copy)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="")
