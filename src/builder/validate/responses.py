"""The configurations CSV's energy per response: the Wh column is the J column over 3.6.

The J column itself is upstream's (energy_per_request_joules), not derivable from the documents'
rounded fields; `builder drift` checks it against the pinned upstream.
"""

from __future__ import annotations

from builder.errors import Problem
from builder.layout import CSV
from builder.responses import JOULES, WH, stated_responses
from builder.validate.tree import Tree

WH_SLACK = 0.005 + 1.4e-5  # 2 decimals, from the unrounded J, which the 4-decimal J column is within 5e-5 of


def check_responses(tree: Tree) -> list[Problem]:
    """Each CSV row's wh_per_thousand_responses is its joules_per_response / 3.6, within rounding."""
    problems = []
    for line, key, (joules, wh) in stated_responses(tree.raw.get(CSV, b"")):
        if abs(wh - joules / 3.6) > WH_SLACK:
            shown = f"{key[1]} repeat {key[2]} of {key[0]}"
            msg = f"expected {JOULES} / 3.6 = {round(joules / 3.6, 2)} ({shown}), found {wh}"
            problems.append(Problem(tree.shown(CSV), f"line {line}, column {WH}", msg))
    return problems
