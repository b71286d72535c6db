"""Energy per response of each configuration, keyed by (workload, row_id, repeat) as the configurations CSV is."""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Iterable, Iterator

from builder.layout import row_id
from builder.metadata import workloads
from builder.slug import slugify
from builder.upstream import Row

Key = tuple[str, str, int]  # (workload, row_id, repeat)
Energy = tuple[float, float]  # (joules_per_response, wh_per_thousand_responses)
JOULES, WH = "joules_per_response", "wh_per_thousand_responses"


def keyed_rows(rows: Iterable[Row]) -> dict[tuple[str, int], Row]:
    """Each upstream row by its configuration's (row_id, repeat): repeat counts its row_id in upstream order."""
    seen: Counter[str] = Counter()
    found = {}
    for row in rows:
        rid = row_id(slugify(row.nickname), row.gpu_model, row.num_gpus, row.max_num_seqs)
        seen[rid] += 1
        found[(rid, seen[rid])] = row
    return found


def response_energy(joules: float) -> Energy:
    """Upstream's energy per request in J (4 decimals) and as Wh per 1,000 responses (J / 3.6, 2 decimals)."""
    return round(joules, 4), round(joules / 3.6, 2)


def response_energies(rows_by_task: dict[str, list[Row]], meta: dict) -> dict[Key, Energy]:
    """Every configuration's energy per response, over every workload."""
    return {
        (work.id, *key): response_energy(row.energy_per_request_joules)
        for work in workloads(meta)
        for key, row in keyed_rows(rows_by_task[work.task]).items()
    }


def stated_responses(data: bytes) -> Iterator[tuple[int, Key, Energy]]:
    """(line, key, energy) of each CSV row whose key and both values read as finite numbers; any other
    row is left out, and so differs from what the documents give (check_csv reports it)."""
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
