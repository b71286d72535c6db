"""The relations upstream's numbers obey, pure: checked on upstream rows and again on the
published files."""

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from builder.errors import Said

Values = Mapping[str, float]  # a row's numbers by field name


@dataclass(frozen=True)
class Relation:
    """A value that others determine: `target` = `compute(*inputs)`, written `formula` in
    messages."""

    target: str
    inputs: tuple[str, ...]
    formula: str
    compute: Callable[..., float]

    def renamed(self, names: Mapping[str, str]) -> "Relation":
        """The same relation over other field names (those `names` maps; the rest kept)."""
        inputs = tuple(names.get(field, field) for field in self.inputs)
        formula = self.formula
        for old in sorted(names, key=len, reverse=True):
            formula = formula.replace(old, names[old])
        return Relation(names.get(self.target, self.target), inputs, formula, self.compute)


@dataclass(frozen=True)
class Order:
    """Two values of a row where `low` never exceeds `high`."""

    low: str
    high: str


@dataclass(frozen=True)
class Fault:
    """One broken relation of one row: the field, the rule, what it should be and what it is."""

    field: str
    rule: str
    expected: float
    found: float

    @property
    def message(self) -> Said:
        return Said(f"{self.rule} = {self.expected!r}", repr(self.found))


def _product(a: float, b: float) -> float:
    return a * b


def _energy_per_item(power: float, latency: float, batch: float) -> float:
    return power * latency / batch


ENERGY_PER_REQUEST = Relation(
    "energy_per_request_joules",
    ("energy_per_token_joules", "avg_output_len"),
    "energy_per_token_joules x avg_output_len",
    _product,
)
ENERGY_PER_TOKEN = Relation(
    "energy_per_token_joules",
    ("avg_power_watts", "output_throughput_tokens_per_sec"),
    "avg_power_watts / output_throughput_tokens_per_sec",
    operator.truediv,
)
LLM_RELATIONS = (ENERGY_PER_REQUEST, ENERGY_PER_TOKEN)  # upstream's field names
LLM_ORDERS = (
    Order("median_itl_ms", "p90_itl_ms"),
    Order("p90_itl_ms", "p95_itl_ms"),
    Order("p95_itl_ms", "p99_itl_ms"),
    Order("avg_batch_size", "max_num_seqs"),
    Order("activated_params_billions", "total_params_billions"),
)
ENERGY_PER_ITEM = (
    Relation(  # an image or video row's neutral names: energy_joules is per image or per video
        "energy_joules",
        ("avg_power_watts", "batch_latency_s", "batch_size"),
        "avg_power_watts x batch_latency_s / batch_size",
        _energy_per_item,
    )
)
ITEMS_PER_SECOND = Relation(
    "throughput_per_sec",
    ("batch_size", "batch_latency_s"),
    "batch_size / batch_latency_s",
    operator.truediv,
)
GENERATION_RELATIONS = (ENERGY_PER_ITEM, ITEMS_PER_SECOND)
GENERATION_ORDERS = (Order("activated_params_billions", "total_params_billions"),)
UPSTREAM_TOLERANCE = (
    1e-9  # relative; upstream agrees to float precision (at most 2.5e-16 in the pinned files)
)

# The published CSV's energy per response against its energy per token and average output length:
# both are
# rounded (7 decimals, whole tokens), which moves the product by up to 0.21 % in the pinned data.
RESPONSE_NAMES = {
    "energy_per_request_joules": "joules_per_response",
    "energy_per_token_joules": "joules_per_output_token",
    "avg_output_len": "avg_output_tokens",
}
PUBLISHED_ENERGY_PER_RESPONSE = ENERGY_PER_REQUEST.renamed(RESPONSE_NAMES)
PUBLISHED_ORDERS = (Order("active_params_b", "params_b"),)  # a model document's, of either kind
PUBLISHED_TOLERANCE = (
    0.005  # relative: 2.4 times the largest rounding error, and it refuses a value 1.01 times off
)


def broken(relation: Relation, values: Values, tolerance: float) -> Fault | None:
    """The fault when `values` break `relation` by more than `tolerance` (relative), else None;
    NaN breaks it."""
    try:
        expected = relation.compute(*(values[name] for name in relation.inputs))
    except (ZeroDivisionError, OverflowError):
        expected = math.nan
    found = values[relation.target]
    if math.isclose(found, expected, rel_tol=tolerance):
        return None
    return Fault(relation.target, relation.formula, expected, found)


def relation_faults(
    values: Values, relations: tuple[Relation, ...], orders: tuple[Order, ...] = ()
) -> list[Fault]:
    """Every relation and order `values` break, in the order given (relations within
    UPSTREAM_TOLERANCE)."""
    found = [fault for rel in relations if (fault := broken(rel, values, UPSTREAM_TOLERANCE))]
    for order in orders:
        low, high = values[order.low], values[order.high]
        if not low <= high:
            found.append(Fault(order.low, f"at most {order.high}", high, low))
    return found
