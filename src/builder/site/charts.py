"""SVG charts drawn by matplotlib (SVG backend, no pyplot), byte for byte the same for the same
data."""

import io
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from builder.csvview import JOULES
from builder.fields import LATENCY_FIELD, MEASURE_KEYS
from builder.site import quiet, words

# Okabe-Ito hues darkened where needed: each at least 3:1 against white (WCAG 1.4.11); markers
# differ too.
COLOURS = ("#0072B2", "#B85400", "#007A5A", "#A3407A", "#6B4C9A", "#806600", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINESTYLES = ("-", "--", ":", "-.")
STYLE: dict[str, Any] = {
    # clip-path and marker ids from a fixed salt, not a random one
    "svg.hashsalt": "leadgreen-site",
    "svg.fonttype": "none",  # text stays text: searchable, readable by screen readers, escaped
    "svg.id": "chart",
    "text.usetex": False,
    "text.parse_math": False,  # a $ in a model name is a dollar, never TeX
    "font.size": 12,  # large for the figure: charts shrink to fit narrow windows
    "axes.titlesize": 13,
    "legend.fontsize": 11,
}
NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


@dataclass(frozen=True)
class Chart:
    svg: bytes
    title: str
    alt: str


# the dot chart's rows at most: its memory and height stay flat however many models there are
DOT_ROWS = 40


def _rank(gpu: str, gpu_order: list[str]) -> int:
    """A GPU type's place in gpu_order (an unknown one last): its colour and line style on every
    chart."""
    return gpu_order.index(gpu) if gpu in gpu_order else len(gpu_order)


def look(i: int) -> tuple[str, str]:
    """The colour and marker of a chart's i-th GPU setup: no two setups of a chart share both (up
    to 49)."""
    return COLOURS[i % len(COLOURS)], MARKERS[(i + i // len(COLOURS)) % len(MARKERS)]


def _log_axis(axis: Any, subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> None:
    """Ticks at subs times each power of ten, labelled plainly; no minor ticks (they cost most of
    the time)."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    axis.set_minor_locator(NullLocator())


def _chart(fig: Figure, title: str, alt: str) -> Chart:
    """The figure as SVG, cropped to its drawing, with <title> and <desc> as the first children
    of <svg>."""
    title = " ".join(title.split())
    buf = io.BytesIO()
    with quiet.glyphs_unsaid():
        fig.savefig(buf, format="svg", metadata=NO_METADATA, bbox_inches="tight", pad_inches=0.12)
    text = buf.getvalue().decode("utf-8")
    at = text.index(">", text.index("<svg")) + 1
    label = f"\n <title>{escape(title)}</title>\n <desc>{escape(alt)}</desc>"
    return Chart((text[:at] + label + text[at:]).encode("utf-8"), title, alt)


@dataclass(frozen=True)
class ChartAxes:
    """What a model's chart plots: energy per output (vertical) against latency, a line in batch
    order."""

    energy: str  # the field of energy per output
    latency: str  # the field of latency
    latency_words: str  # the latency and its unit, in words
    batch: str  # the field the line follows, smallest first


# the latency's words and the batch field, by workload kind
AXIS_WORDS = {
    "llm": ("median inter-token latency (ms)", "max_num_seqs"),
    "image": ("batch latency (s)", "batch_size"),
    "video": ("batch latency (s)", "batch_size"),
}
AXES = {  # by workload kind: its headline energy against its latency
    kind: ChartAxes(MEASURE_KEYS[kind][1], LATENCY_FIELD[kind], *AXIS_WORDS[kind])
    for kind in AXIS_WORDS
}
TOKENS = AXES["llm"]
Series = tuple[str, int, list[dict[str, Any]], list[dict[str, Any]]]


def series(
    configs: list[dict[str, Any]], gpu_order: list[str], axes: ChartAxes = TOKENS
) -> list[Series]:
    """(GPU type, GPU count, line, dots) in GPU order: the line joins each batch's lowest energy
    (first on a tie)."""
    keys = sorted(
        {(c["gpu"], c["num_gpus"]) for c in configs}, key=lambda k: (_rank(k[0], gpu_order), k)
    )
    found = []
    for gpu, n in keys:
        line: dict[Any, dict[str, Any]] = {}
        rest = []
        for conf in (c for c in configs if (c["gpu"], c["num_gpus"]) == (gpu, n)):
            held = line.get(conf[axes.batch])
            if held is None or conf[axes.energy] < held[axes.energy]:
                line[conf[axes.batch]] = conf
                held, conf = conf, held
            if conf is not None:
                rest.append(conf)
        found.append((gpu, n, [line[b] for b in sorted(line)], rest))
    return found


def energy_latency(
    doc: dict[str, Any],
    gpu_order: list[str],
    axes: ChartAxes = TOKENS,
    marks: tuple[tuple[float, str], ...] = (),
) -> Chart:
    """Energy per output against latency: a line per GPU setup, in batch order (see series); marks:
    a dashed vertical
    line at each (latency, words), for the latency targets or the latency limit."""
    unit, configs = doc["unit"], doc["configurations"]
    title = f"{doc['name']}: energy against latency"
    groups = series(configs, gpu_order, axes)
    labels = [words.setup(n, gpu) for gpu, n, _, _ in groups]
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        fig = Figure(figsize=(4.4, 4.0))  # small, so its text stays legible when a phone shrinks it
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        for i, ((gpu, _, line, rest), label) in enumerate(zip(groups, labels, strict=True)):
            (colour, marker), style = look(i), LINESTYLES[_rank(gpu, gpu_order) % len(LINESTYLES)]
            xs, ys = [c[axes.latency] for c in line], [c[axes.energy] for c in line]
            ax.plot(
                xs,
                ys,
                color=colour,
                linestyle=style,
                linewidth=1.4,
                marker=marker,
                markersize=6,
                markerfacecolor="white",
                markeredgewidth=1.5,
                label=label,
            )
            if rest:
                xs, ys = [c[axes.latency] for c in rest], [c[axes.energy] for c in rest]
                ax.plot(
                    xs,
                    ys,
                    color=colour,
                    linestyle="",
                    marker=marker,
                    markersize=4,
                    markerfacecolor="white",
                    markeredgewidth=1.0,
                    label="_",
                )
        ax.set(xscale="log", yscale="log")
        # matplotlib's wrapping measures a title holding $ as math text, whatever text.parse_math
        # says
        ax.set_title(title, loc="left", wrap="$" not in title)
        ax.set_xlabel(axes.latency_words.replace(")", ", log scale)"))
        ax.set_ylabel(f"{unit} (log scale)")
        latencies, energies = [c[axes.latency] for c in configs], [c[axes.energy] for c in configs]
        lines = [x for x, _ in marks]
        # every point and mark, a margin
        ax.set_xlim(min(latencies + lines) / 1.25, max(latencies + lines) * 1.25)
        for x, said in marks:
            ax.axvline(x, color="#555555", linestyle=(0, (4, 3)), linewidth=1.0, zorder=1)
            ax.text(
                x,
                0.98,
                f" {said}",
                transform=ax.get_xaxis_transform(),
                rotation=90,
                ha="right",
                va="top",
                fontsize=11,
                color="#333333",
            )
        low, high = min(energies) / 1.25, max(energies) * 1.25
        ax.set_ylim(low, high)
        _log_axis(ax.xaxis)
        # 2+ labels
        _log_axis(
            ax.yaxis, (1.0, 1.5, 2.0, 3.0, 5.0, 7.0) if high < 4 * low else (1.0, 2.0, 3.0, 5.0)
        )
        ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
        ncol = min(len(groups), 3)
        ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.18),
            ncol=ncol,
            frameon=False,
            title="GPU setup",
        )
        alt = (
            f"Dot chart, logarithmic axes: {unit} (vertical) against {axes.latency_words} "
            f"(horizontal) for "
            f"{len(configs)} configurations of {doc['name']}, one line per GPU setup "
            f"({', '.join(labels)}) "
            "joining its lowest-energy configuration at each batch size, smallest batch first. "
            + "".join(f"A dashed vertical line marks {said}. " for _, said in marks)
            + "The table below lists every point."
        )
        return _chart(fig, title, alt)


def energy_by_model(
    doc: dict[str, Any],
    gpu_order: list[str],
    label: str,
    energy: str = TOKENS.energy,
) -> Chart:
    """A dot per index row (the first DOT_ROWS) on a log axis, labelled above; energy: the rows'
    field of energy (a row's energy per response, where it has one, is added to its label)."""
    rows, unit, total = doc["rows"][:DOT_ROWS], doc["unit"], len(doc["rows"])
    title = f"{label}: lowest energy per model and GPU setup"
    height = 1.0 + 0.62 * len(rows)
    setups = sorted({(_rank(r["gpu"], gpu_order), r["gpu"], r["num_gpus"]) for r in rows})
    looks = {(gpu, n): look(i) for i, (_, gpu, n) in enumerate(setups)}
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        fig = Figure(figsize=(4.4, height))
        FigureCanvasSVG(fig)
        fig.subplots_adjust(left=0.02, right=0.98, top=1 - 0.35 / height, bottom=0.65 / height)
        ax = fig.add_subplot()
        values = [r[energy] for r in rows]
        low, high = min(values) / 1.5, max(values) * 1.25
        seen = set()
        for y, (row, value) in enumerate(zip(rows, values, strict=True)):
            (colour, marker), key = (
                looks[row["gpu"], row["num_gpus"]],
                words.setup(row["num_gpus"], row["gpu"]),
            )
            ax.hlines(y, low, value, color="#c9d3cd", linewidth=1, zorder=1)
            ax.plot(
                [value],
                [y],
                linestyle="",
                marker=marker,
                color=colour,
                markersize=7,
                label=key if key not in seen else "_",
                zorder=3,
            )
            said = f"{key}: {words.fixed(value, 2)}"
            if JOULES in row:
                said += f" ({words.significant(row[JOULES])} J per response)"
            ax.text(
                low * 1.03,
                y - 0.16,
                f"{row['model']}\n{said}",
                fontsize=11,
                va="bottom",
                linespacing=1.15,
            )
            seen.add(key)
        ax.set_yticks([])
        ax.set_ylim(len(rows) - 0.5, -0.95)  # the first label sits above the first row
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
        ax.set_xlim(low, high)
        ax.set_xlabel(f"{unit} (log scale, lower is better)")
        ax.set_title(title, loc="left", fontsize=12, wrap="$" not in title)
        ax.grid(True, axis="x", which="major", color="#e4e9e6", linewidth=0.6)
        ax.set_axisbelow(True)
        pairs = sorted(zip(*ax.get_legend_handles_labels(), strict=True), key=lambda pair: pair[1])
        below = -0.75 / (height * (1 - 1.0 / height))  # under the axis label, in axes fractions
        ax.legend(
            [h for h, _ in pairs],
            [n for _, n in pairs],
            loc="upper center",
            ncol=3,
            bbox_to_anchor=(0.5, below),
            frameon=False,
            title="GPU setup",
        )
        ends = [
            f"{r['model']} on {words.gpus(r['num_gpus'], r['gpu'])} at {words.fixed(r[energy], 2)}"
            for r in rows
        ]
        counted = f"{len(rows)} model and GPU pairs" + (
            f" (the lowest of {total:,})" if total > len(rows) else ""
        )
        alt = (
            f"Dot chart, logarithmic scale, of {unit} for the lowest-energy configuration of "
            f"{counted}, lowest first: "
            f"from {ends[0]} to {ends[-1]}. "
            + (
                "The table below lists every dot."
                if total == len(rows)
                else f"The table below lists all {total:,}."
            )
        )
        return _chart(fig, title, alt)
