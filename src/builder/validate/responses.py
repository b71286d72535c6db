"""Upstream's relations on what only the published files hold: the CSV's energy per response against
its energy per
token and average output length, and a model document's active parameters against its total."""

import math
from typing import Any

from builder.csvview import JOULES
from builder.errors import Problem, printable
from builder.relations import (
    PUBLISHED_ENERGY_PER_RESPONSE,
    PUBLISHED_ORDERS,
    PUBLISHED_TOLERANCE,
    broken,
    relation_faults,
)

RELATION = PUBLISHED_ENERGY_PER_RESPONSE


def response_fault(shown: str, line: int, row: dict[str, str]) -> Problem | None:
    """A CSV row (`shown`'s, ending on `line`) whose energy per response is not its energy per
    token x output length, as a problem."""
    names = (RELATION.target, *RELATION.inputs)
    values = {name: value for name in names if (value := _number(row.get(name))) is not None}
    if len(values) < len(names):
        # an empty or unreadable cell: validate's check of the table against the documents says so
        return None
    fault = broken(RELATION, values, PUBLISHED_TOLERANCE)
    if fault is None:
        return None
    conf = printable(f"{row.get('row_id')} repeat {row.get('repeat')} of {row.get('workload')}")
    within = f"within {PUBLISHED_TOLERANCE:.1%}"
    want = f"{fault.rule} = {fault.expected:.4f} ({within}; {conf})"
    at = f"line {line}, column {JOULES}"
    code = "physics.energy-per-response"
    return Problem.mismatch(shown, at, code, want, str(fault.found))


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
