"""Energy per response of each language-model configuration, as data/configurations.csv publishes
it (pure)."""

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from builder.csvview import JOULES, WH, CsvKey, Energy, csv_key, row_energy
from builder.errors import InputError


def read(raw: bytes, shown: str) -> dict[CsvKey, Energy]:
    """(workload, row_id, repeat) -> (J, Wh per 1,000) of every CSV row; a row without both
    numbers is an error."""
    found = {}
    for line, row in enumerate(csv.DictReader(io.StringIO(raw.decode("utf-8"))), start=2):
        try:
            found[csv_key(row)] = row_energy(row)
        except (KeyError, TypeError, ValueError) as exc:
            msg = (
                f"expected a workload, row_id, repeat, {JOULES} and {WH}, found "
                f"{type(exc).__name__}: {exc}"
            )
            raise InputError(f"{shown}: line {line}: {msg} (run builder validate)") from None
    return found


def add(configs: Iterable[dict[str, Any]], workload: str, found: Mapping[CsvKey, Energy]) -> None:
    """Each configuration (a dict of a model document or index row) given its energy per
    response, where published."""
    for conf in configs:
        energy = found.get((workload, str(conf.get("row_id")), int(conf.get("repeat", 1))))
        if energy is not None:
            conf[JOULES], conf[WH] = energy
