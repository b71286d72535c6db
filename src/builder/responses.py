"""Energy per response of each configuration, keyed by (workload, row_id, repeat) as the configurations CSV is."""

import csv
import io
import math
from collections.abc import Iterator

from builder.layout import row_id
from builder.metadata import workloads
from builder.slug import slugify
from builder.transform import numbered
from builder.upstream import Row

Key = tuple[str, str, int]  # (workload, row_id, repeat)
Energy = tuple[float, float]  # (joules_per_response, wh_per_thousand_responses)
JOULES, WH = "joules_per_response", "wh_per_thousand_responses"


def keyed_rows(rows: list[Row]) -> dict[tuple[str, int], Row]:
    """Each upstream row by its configuration's (row_id, repeat), numbered as its configuration is."""
    ids = numbered([{"row_id": row_id(slugify(r.nickname), r.gpu_model, r.num_gpus, r.max_num_seqs)} for r in rows])
    return {(conf["row_id"], conf["repeat"]): row for conf, row in zip(ids, rows, strict=True)}


def response_energies(rows_by_task: dict[str, list[Row]], meta: dict) -> dict[Key, Energy]:
    """Each configuration's energy per request: J to 4 decimals, and Wh per 1,000 responses (J / 3.6) to 2."""
    return {
        (work.id, *key): (round(row.energy_per_request_joules, 4), round(row.energy_per_request_joules / 3.6, 2))
        for work in workloads(meta)
        for key, row in keyed_rows(rows_by_task[work.task]).items()
    }


def stated_responses(data: bytes) -> Iterator[tuple[int, Key, Energy]]:
    """(line, key, energy) of each CSV row whose key and values read as finite numbers (check_csv reports the rest)."""
    try:
        reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""))
        for row in reader:
            try:
                energy = (float(row[JOULES]), float(row[WH]))
                key = (row["workload"], row["row_id"], int(row["repeat"]))
            except (KeyError, TypeError, ValueError):
                continue
            if all(map(math.isfinite, energy)):
                yield reader.line_num, key, energy
    except (UnicodeDecodeError, csv.Error):
        return
