"""Upstream's relations on what only the published files hold: the CSV's energy per response against
its energy per
token and average output length, and a model document's active parameters against its total."""

import csv
import math
from collections.abc import Iterator
from typing import Any

from builder.csvview import JOULES, lines
from builder.errors import Problem, printable
from builder.layout import CSV
from builder.relations import (
    PUBLISHED_ENERGY_PER_RESPONSE,
    PUBLISHED_ORDERS,
    PUBLISHED_TOLERANCE,
    broken,
    relation_faults,
)
from builder.validate.tree import Tree

RELATION = PUBLISHED_ENERGY_PER_RESPONSE


def check_responses(tree: Tree) -> list[Problem]:
    """One problem per CSV row whose energy per response is not its energy per token x output
    length."""
    if CSV not in tree.raw:
        return []
    try:
        return list(_faults(tree))
    except (UnicodeDecodeError, csv.Error):
        return []  # the table check reports a table it cannot read


def _faults(tree: Tree) -> Iterator[Problem]:
    """check_responses's problems, the CSV read a row at a time."""
    reader = csv.DictReader(lines(tree.raw[CSV]))
    for row in reader:
        line = reader.line_num
        names = (RELATION.target, *RELATION.inputs)
        values = {name: value for name in names if (value := _number(row.get(name))) is not None}
        if len(values) < len(names):
            # an empty or unreadable cell: the table check against the model documents reports it
            continue
        fault = broken(RELATION, values, PUBLISHED_TOLERANCE)
        if fault is not None:
            conf = printable(
                f"{row.get('row_id')} repeat {row.get('repeat')} of {row.get('workload')}"
            )
            within = f"within {PUBLISHED_TOLERANCE:.1%}"
            want = f"{fault.rule} = {fault.expected:.4f} ({within}; {conf})"
            at = f"line {line}, column {JOULES}"
            code = "physics.energy-per-response"
            yield Problem.mismatch(tree.shown(CSV), at, code, want, str(fault.found))


def check_parameters(shown: str, doc: dict[str, Any]) -> list[Problem]:
    """A model document (that passed its schema) whose active parameters pass its total."""
    return [
        Problem.of(shown, f"/{f.field}", "physics.active-parameters", f.message)
        for f in relation_faults(doc, (), PUBLISHED_ORDERS)
    ]


def _number(cell: str | None) -> float | None:
    """A cell as a finite number, or None."""
    if cell is None:
        return None
    try:
        value = float(cell)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
