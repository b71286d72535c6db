"""Charts never interpret text: a model name is drawn as written, never as TeX or math text."""

from __future__ import annotations

import json
from xml.sax.saxutils import escape

import pytest

from helpers import REPO

pytest.importorskip("matplotlib")

from builder.site import charts  # after the skip: matplotlib is the site extra

# a RecursionError in the math-text parser, were it parsed
NESTED = "$" + "{" * 40 + "x" + "}" * 40 + "$"


def test_the_chart_style_turns_math_text_and_tex_off() -> None:
    assert charts.STYLE["text.parse_math"] is False
    assert charts.STYLE["text.usetex"] is False


@pytest.mark.parametrize(
    "name", [NESTED, "$\\frac{a}{b}$ 7B", "a $ b $ c"], ids=["nested-braces", "frac", "dollars"]
)
def test_a_name_with_dollars_is_drawn_as_plain_text(name: str) -> None:
    doc = json.loads(next((REPO / "data" / "models").glob("*.json")).read_bytes())
    doc["name"] = name
    chart = charts.energy_latency(doc, sorted({c["gpu"] for c in doc["configurations"]}))
    assert chart.title == f"{name}: energy against latency"
    assert escape(name) in chart.svg.decode()
