"""The flat tables (CSV) against the model documents; the root CSV read once a run, a row at a
time, into its stated energies per response (keyed by workload, row_id and repeat) and the rows
that break upstream's relation."""

import csv
import math
from collections.abc import Iterator
from typing import Any, NamedTuple

from builder import csvview
from builder.csvview import JOULES, WH, CsvKey, Energy, csv_key, lines, row_energy
from builder.errors import Problem
from builder.layout import CSV
from builder.validate.responses import response_fault
from builder.validate.tree import Tree

Line = tuple[int, dict[str, str]]  # a CSV row: the line it ends on, and its cells by column
Stated = tuple[int, CsvKey, Energy]  # a CSV row's line, key and energy per response, as it reads
Own = dict[tuple[str, int], float]  # one workload's joules_per_response by (row_id, repeat)
# 2 decimals, from the unrounded J, which the 4-decimal J column is within 5e-5 of
WH_SLACK = 0.005 + 1.4e-5


class RootCsv(NamedTuple):
    """What one pass over the root CSV finds: each readable row's energies, and the problems of
    the rows that break upstream's relation (none when the CSV cannot be read to its end)."""

    stated: list[Stated]
    faults: list[Problem]


def read_root_csv(tree: Tree) -> RootCsv:
    """The root CSV read once, a row at a time (validate's table check reports one it cannot
    read)."""
    found = RootCsv([], [])
    if CSV not in tree.raw:
        return found
    try:
        for line, row in rows(tree.raw[CSV]):
            if (energy := stated_energy(line, row)) is not None:
                found.stated.append(energy)
            if (fault := response_fault(tree.shown(CSV), line, row)) is not None:
                found.faults.append(fault)
    except (UnicodeDecodeError, csv.Error):
        found.faults.clear()
    return found


def rows(data: bytes) -> Iterator[Line]:
    """Each row of UTF-8 CSV bytes by its header, with the line it ends on, as it is read;
    UnicodeDecodeError or csv.Error where it cannot be read."""
    reader = csv.DictReader(lines(data))
    for row in reader:
        yield reader.line_num, row


def stated_energy(line: int, row: dict[str, str]) -> Stated | None:
    """A row's key and energies, when they read as finite numbers (check_csv reports the rest, in
    validate)."""
    try:
        energy, key = row_energy(row), csv_key(row)
    except (KeyError, TypeError, ValueError):
        return None
    return (line, key, energy) if all(map(math.isfinite, energy)) else None


def energies_by_workload(stated: list[Stated]) -> dict[str, Own]:
    """The stated joules_per_response by workload, then (row_id, repeat); the last row of a key
    wins."""
    found: dict[str, Own] = {}
    for _, (workload, row_id, repeat), (joules, _) in stated:
        found.setdefault(workload, {})[row_id, repeat] = joules
    return found


def check_csv(tree: Tree, rel: str, expected: bytes) -> list[Problem]:
    """A flat table is exactly the model documents' configurations (`expected`), in the builder's
    order."""
    if tree.raw[rel] == expected:
        return []
    want = expected.decode().split("\n")
    # a \r stays in the line it ends
    found = tree.raw[rel].decode("utf-8", errors="replace").split("\n")
    for line, (w, f) in enumerate(zip(want, found, strict=False), start=1):
        if w != f:
            copied = f"{w!r} (from the model documents)"
            return [
                Problem.mismatch(
                    tree.shown(rel), f"line {line}", "crossfile.csv-line", copied, repr(f)
                )
            ]
    at = min(len(want), len(found))
    what = (
        "a final newline and no more"
        if len(want) > len(found)
        else "nothing after the last line's newline"
    )
    lines = f"{what} ({len(want) - 1} lines)"
    return [
        Problem.mismatch(
            tree.shown(rel), f"line {at}", "crossfile.csv-end", lines, str(len(found) - 1)
        )
    ]


def check_root_csv(
    tree: Tree, ok: dict[str, Any], stated: list[Stated], *, csv_lines: bool = True
) -> list[Problem]:
    """The LLM workloads' flat table: (unless `csv_lines` is False) its lines those of the
    documents, in the workload list's order; each wh_per_thousand_responses its J / 3.6 (`stated`:
    its rows' energies, as stated_energy reads them)."""
    if CSV not in tree.raw:
        return []
    problems: list[Problem] = []
    if csv_lines:  # the J column is upstream's, which `builder drift` checks
        energies = {key: energy for _, key, energy in stated}
        problems = check_csv(tree, CSV, csvview.configurations_csv(ok, energies))
    for line, key, (joules, wh) in stated:
        if abs(wh - joules / 3.6) > WH_SLACK:
            conf = f"{key[1]} repeat {key[2]} of {key[0]}"
            want = f"{JOULES} / 3.6 = {round(joules / 3.6, 2)} ({conf})"
            problems.append(
                Problem.mismatch(
                    tree.shown(CSV),
                    f"line {line}, column {WH}",
                    "physics.wh-per-response",
                    want,
                    str(wh),
                )
            )
    return problems
