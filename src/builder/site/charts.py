"""SVG charts drawn by matplotlib (SVG backend, no pyplot), byte for byte the same for the same data.

Imported only by the site command: matplotlib costs a second of import time.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from builder.site import words

# Okabe-Ito: told apart with the common colour-vision deficiencies; markers differ as well.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
DEADLINE_COLOUR = "#B22222"
STYLE = {
    "svg.hashsalt": "leadgreen-site",  # clip-path and marker ids from a fixed salt, not a random one
    "svg.fonttype": "none",  # text stays text: searchable, readable by screen readers, escaped
    "svg.id": "chart",
    "font.size": 11,  # large for the figure: charts shrink to fit narrow windows
    "axes.titlesize": 12,
    "legend.fontsize": 10,
}
NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


@dataclass(frozen=True)
class Chart:
    svg: bytes
    title: str
    alt: str


def _style(gpu: str, gpu_order: list[str]) -> tuple[str, str]:
    """A GPU's colour and marker, the same on every chart (gpu_order: every GPU of the package, sorted)."""
    i = gpu_order.index(gpu)
    return COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]


def _plain(value: float, _pos: int) -> str:
    return f"{value:g}"


def _log_axis(axis: Any, subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> None:
    """Ticks at subs times each power of ten, labelled plainly; no minor ticks (they cost most of the time)."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_locator(NullLocator())


def _chart(fig: Figure, title: str, alt: str) -> Chart:
    """The figure as SVG, with <title> and <desc> as the first children of <svg>."""
    title = " ".join(title.split())
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata=NO_METADATA)
    text = buf.getvalue().decode("utf-8")
    at = text.index(">", text.index("<svg")) + 1
    label = f"\n <title>{escape(title)}</title>\n <desc>{escape(alt)}</desc>"
    return Chart((text[:at] + label + text[at:]).encode("utf-8"), title, alt)


def energy_latency(doc: dict[str, Any], gpu_order: list[str]) -> Chart:
    """Energy per output token against median inter-token latency, one series per GPU, best marked."""
    unit, deadline, configs = doc["unit"], doc["itl_deadline_ms"], doc["configurations"]
    title = f"{doc['name']}:\nenergy per output token against latency"
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(7.2, 4.6))
        FigureCanvasSVG(fig)
        fig.subplots_adjust(left=0.1, right=0.72, bottom=0.12, top=0.88)  # fixed: a layout engine triples the time
        ax = fig.add_subplot()
        for gpu in doc["gpus"]:
            colour, marker = _style(gpu, gpu_order)
            points = [(c["median_itl_ms"], c["wh_per_million_output_tokens"]) for c in configs if c["gpu"] == gpu]
            ax.scatter(*zip(*points, strict=True), s=26, color=colour, marker=marker, alpha=0.8, label=gpu)
        for gpu, best in doc["best"].items():
            colour, _ = _style(gpu, gpu_order)
            xy = (best["median_itl_ms"], best["wh_per_million_output_tokens"])
            ax.scatter(*xy, s=240, marker="*", color=colour, edgecolors="black", linewidths=0.8, zorder=5)
            ax.annotate(f"best on {gpu}", xy, xytext=(8, 6), textcoords="offset points", fontsize=10)
        ax.axvline(deadline, color=DEADLINE_COLOUR, linestyle="--", linewidth=1.2)
        ax.set(xscale="log", yscale="log")
        fig.suptitle(title, x=0.41)
        ax.set_xlabel("median inter-token latency (ms, log scale)")
        ax.set_ylabel(f"{unit} (log scale)")
        lows = min(c["median_itl_ms"] for c in configs)
        ax.set_xlim(lows / 1.6, max(deadline, max(c["median_itl_ms"] for c in configs)) * 1.6)
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis, (1.0, 2.0, 3.0, 5.0))  # energy often spans less than a decade
        ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
        handles, _ = ax.get_legend_handles_labels()
        handles += [
            Line2D([], [], marker="*", color="#777777", markeredgecolor="black", linestyle="", markersize=12),
            Line2D([], [], color=DEADLINE_COLOUR, linestyle="--"),
        ]
        labels = [*doc["gpus"], "best per GPU", f"deadline, {deadline:g} ms"]
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)  # beside the points
        return _chart(fig, title, words.latency_chart_alt(doc))


def energy_by_model(doc: dict[str, Any], gpu_order: list[str], label: str) -> Chart:
    """Bars of energy per output token of each index row, lowest first."""
    rows, unit = doc["rows"], doc["unit"]
    title = f"{unit},\nbest configuration per model and GPU (workload {label})"
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(7.5, 1.4 + 0.26 * len(rows)), layout="constrained")
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        ys = range(len(rows))
        values = [r["wh_per_million_output_tokens"] for r in rows]
        colours = [_style(r["gpu"], gpu_order)[0] for r in rows]
        ax.barh(ys, values, color=colours, height=0.7)
        for y, value in zip(ys, values, strict=True):
            ax.annotate(words.fixed(value, 2), (value, y), xytext=(3, 0), textcoords="offset points", va="center")
        ax.set_yticks(list(ys), [f"{r['model']} ({r['num_gpus']}\N{MULTIPLICATION SIGN} {r['gpu']})" for r in rows])
        ax.invert_yaxis()
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
        ax.set_xlim(min(values) / 1.5, max(values) * 2.2)
        ax.set_xlabel(f"{unit} (log scale; lower is better)")
        fig.suptitle(title)
        ax.grid(True, axis="x", which="major", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        gpus = sorted({r["gpu"] for r in rows}, key=gpu_order.index)
        handles = [Line2D([], [], color=_style(g, gpu_order)[0], linewidth=6) for g in gpus]
        ax.legend(handles, gpus, loc="upper right", framealpha=0.9)  # bars are shortest at the top
        return _chart(fig, title, words.bars_chart_alt(rows, unit))
