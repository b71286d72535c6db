"""What a model page shows, and the parts every page shares, as plain values for the templates
(pure)."""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from builder.csvview import JOULES, WH
from builder.site import provenance, targets, words
from builder.site.catalog import API_PREFIX, LLM, gpu_page, href
from builder.site.charts import AXES, TOKENS

GLOSSARY = "glossary/index.html"
MODELS_PAGE = "models/index.html"
GPUS_PAGE = "gpus/index.html"
WORKLOADS_PAGE = "workloads/index.html"
NAV = (
    ("Workloads", WORKLOADS_PAGE),
    ("Models", MODELS_PAGE),
    ("GPUs", GPUS_PAGE),
    ("Glossary", GLOSSARY),
)
HOME = [("Home", "index.html")]


@dataclass(frozen=True)
class Column:
    """A table column: the field, its heading, its unit, how to show it, and the full words of an
    abbreviation."""

    key: str
    label: str
    unit: str = ""
    kind: int | str | None = (
        None  # decimals; "sig" for 4 significant digits; "yes/no"; None for text
    )
    abbr: str = ""


ENERGY = Column(TOKENS.energy, "Energy", "Wh per million output tokens", 2)
MEDIAN = Column(TOKENS.latency, "Median ITL", "ms", 1, "inter-token latency")
MAX_SEQS = Column(TOKENS.batch, "Max sequences", "batch limit", 0)
GPU_POWER = Column("gpu_power_watts_total", "GPU power", "W, all GPUs", 0)
PRECISION, REPEAT = (
    Column("precision", "Precision", "weights"),
    Column("repeat", "Repeat", "run", 0),
)
PER_RESPONSE = Column(JOULES, "Energy per response", "J", "sig")
PER_THOUSAND = Column(WH, "Energy per 1,000 responses", "Wh", 2)
KEY_COLUMNS = (
    ENERGY,
    PER_RESPONSE,
    PER_THOUSAND,
    MEDIAN,
    MAX_SEQS,
    Column("tokens_per_second", "Output", "tokens per s", 1),
    GPU_POWER,
)
DETAIL_COLUMNS = (
    MAX_SEQS,
    Column("tensor_parallel", "TP", "GPUs", 0, "tensor parallelism: GPUs that split each layer"),
    Column(
        "data_parallel", "DP", "copies", 0, "data parallelism: copies of the model serving requests"
    ),
    Column(
        "expert_parallel", "EP", "GPUs", 0, "expert parallelism: GPUs the experts are spread over"
    ),
    PRECISION,
    Column("avg_requests_in_flight", "Requests in flight", "average", 1),
    Column("joules_per_output_token", "Energy", "J per output token", "sig"),
    Column("p90_itl_ms", "p90 ITL", "ms", 1, "90th percentile inter-token latency"),
    Column("p95_itl_ms", "p95 ITL", "ms", 1, "95th percentile inter-token latency"),
    Column("p99_itl_ms", "p99 ITL", "ms", 1, "99th percentile inter-token latency"),
    Column("avg_output_tokens", "Response length", "output tokens, average", 0),
    REPEAT,
)
LATENCY = Column(AXES["image"].latency, "Batch latency", "s", 3)  # a video's too
IMAGES, VIDEOS = (
    Column("batch_size", "Batch size", "images", 0),
    Column("batch_size", "Batch size", "videos", 0),
)
STEPS, RESOLUTION = (
    Column("inference_steps", "Steps", "denoising", 0),
    Column("resolution", "Resolution", "px"),
)
FRAMES, FPS = (
    Column("num_frames", "Frames", "per video", 0),
    Column("fps", "Frame rate", "per s", 0),
)
PER_VIDEO_SECOND = Column("wh_per_video_second", "Energy per second of video", "Wh", "sig")
GENERATION_KEY = {  # by workload kind: energy and latency first, then what makes outputs comparable
    "image": (
        Column(AXES["image"].energy, "Energy", "Wh per 1,000 images", 2),
        LATENCY,
        IMAGES,
        STEPS,
        RESOLUTION,
        Column("images_per_second", "Output", "images per s", "sig"),
        GPU_POWER,
    ),
    "video": (
        Column(AXES["video"].energy, "Energy", "Wh per video", 2),
        PER_VIDEO_SECOND,
        LATENCY,
        VIDEOS,
        STEPS,
        RESOLUTION,
        FRAMES,
        FPS,
        Column("videos_per_second", "Output", "videos per s", "sig"),
        GPU_POWER,
    ),
}
GENERATION_DETAIL = (
    Column(
        "ulysses_degree",
        "Ulysses",
        "GPUs",
        0,
        "Ulysses sequence parallelism: GPUs that split the attention heads",
    ),
    Column("ring_degree", "Ring", "GPUs", 0, "ring attention: GPUs that split the sequence"),
    PRECISION,
    Column("joules_per_image", "Energy", "J per image", "sig"),
    Column("joules_per_video", "Energy", "J per video", "sig"),
    Column("under_latency_limit", "Within the limit", "batch latency", "yes/no"),
    REPEAT,
)


def sized(configs: list[dict[str, Any]]) -> None:
    """Each generation configuration given its resolution in words (width by height), where it
    has both."""
    for conf in configs:
        if isinstance(conf.get("width"), int) and isinstance(conf.get("height"), int):
            conf[RESOLUTION.key] = f"{conf['width']} \N{MULTIPLICATION SIGN} {conf['height']}"


def mixed(sizes: Any, kind: str, per_second: bool = False) -> str:
    """A one-line warning when outputs differ in size (videos: resolution or frames; images:
    resolution or steps),
    naming each; "" when they do not. per_second: the table shows energy per second of video."""
    keys = (0, 1, 2) if kind == "video" else (0, 1, 4)
    shown = sorted(
        {tuple(size[i] for i in keys) for size in sizes if size[0] is not None},
        key=targets.size_order,
    )
    if len(shown) < 2:
        return ""
    if kind == "video":
        said = "; ".join(f"{w} \N{MULTIPLICATION SIGN} {h} px, {n} frames" for w, h, n in shown)
        across = "; energy per second of video compares across them" if per_second else ""
        return (
            f"These rows mix video sizes ({said}): energy per video compares only videos of "
            f"one size{across}."
        )
    said = "; ".join(f"{w} \N{MULTIPLICATION SIGN} {h} px, {n} steps" for w, h, n in shown)
    return (
        f"These rows mix image sizes or denoising steps ({said}): energy per image depends on both."
    )


def cell(value: Any, kind: int | str | None) -> str:
    if value is None:
        return "\N{EN DASH}"
    if kind == "yes/no":
        return "yes" if value else "no"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if kind == "sig":
            return words.significant(value)
        if isinstance(kind, int):
            return words.fixed(value, kind)
    return str(value)


def present(columns: tuple[Column, ...], rows: list[dict[str, Any]]) -> list[Column]:
    """The columns at least one row has a value for (energy per response only where the data has
    it)."""
    return [c for c in columns if any(c.key in row for row in rows)]


def table(columns: list[Column], rows: Iterable[dict[str, Any]], best: Any = ()) -> dict[str, Any]:
    """Configurations shown in columns, headed by their GPU setup; marked: the (row_id, repeat)
    of each of best."""
    return {
        "columns": columns,
        "rows": rows,
        "marked": {(c["row_id"], c.get("repeat")) for c in best if c},
    }


def frame(
    page: str, crumbs: list[tuple[str, str]], common: dict[str, Any], **values: Any
) -> dict[str, Any]:
    """What base.html needs, common and values; `href` links a site path from page, crumbs lead
    from Home to it."""
    link = common.get("link") or partial(href, page)
    return {
        **common,
        "page": page,
        "crumbs": crumbs,
        "nav": NAV,
        "glossary": GLOSSARY,
        "href": link,
        **values,
    }


def source_view(source: dict[str, Any], workload: Any = None) -> dict[str, Any]:
    """The provenance of one workload's figures: upstream, task, file, commit, licence, citation."""
    keys = (
        "name",
        "publisher",
        "version",
        "workload",
        "method",
        "licence",
        "cite",
        "url",
        "data_url",
        "cite_url",
    )
    view: dict[str, Any] = {key: str(source.get(key, "")) for key in keys}
    view["method"] = words.plain(view["method"])
    # a link only where it is https; otherwise the text alone
    for key in (
        "url",
        "data_url",
        "cite_url",
    ):
        view[f"{key}_href"] = view[key] if view[key].startswith("https://") else None
    view["file"] = view["data_url"].rsplit("/", 1)[-1]
    view["commit"] = getattr(workload, "commit", "")
    # the file as it was pinned, never the branch it moved on from
    if view["data_url_href"] and view["commit"]:
        view["data_url_href"] = provenance.pinned(view["data_url"], view["commit"])
    view["workload_name"] = getattr(workload, "name", view["workload"])
    view["licence_evidence"] = [str(item) for item in source.get("licence_evidence", [])]
    return view


def model_view(
    doc: dict[str, Any], links: dict[str, str], chart: dict[str, Any] | None, common: dict[str, Any]
) -> dict[str, Any]:
    """A model's page. links: site paths of page, doc, schema; common: workload, others, under
    (LLM)."""
    work, configs, best = common["workload"], doc["configurations"], doc["best"]
    key = present(KEY_COLUMNS if work.kind == LLM else GENERATION_KEY[work.kind], configs)
    detail = present(DETAIL_COLUMNS if work.kind == LLM else GENERATION_DETAIL, configs)
    source = source_view(
        doc["source"] if isinstance(doc.get("source"), dict) else work.source, work
    )
    view = frame(
        links["page"], [*HOME, (work.name, work.page)], common, doc=doc, links=links, chart=chart
    )
    view |= {
        "source": source,
        "key": table(key, configs, best.values()),
        "detail": table(detail, configs),
    }
    if work.kind != LLM:
        chosen = [best[gpu] for gpu in doc["gpus"] if best.get(gpu)]
        sizes, sizes_best = map(targets.size_of, configs), map(targets.size_of, chosen)
        per_second = PER_VIDEO_SECOND in key
        warn = {
            "mixed": mixed(sizes, work.kind, per_second),
            "mixed_best": mixed(sizes_best, work.kind, per_second),
        }
        return {**view, "best": table(key, chosen), **warn}
    return {
        **view,
        "parameters": words.parameters(doc["params_b"], doc["active_params_b"]),
        "targets": common.get("under") or targets.best_under(doc, None),
        "doc_version": doc.get("data_version", doc["updated"]),
        "frontier_path": API_PREFIX + (work.frontier_rel or ""),
        "response_caption": response_words(best, doc["gpus"]),
        "control": control(
            links["page"],
            list(doc["gpus"]),
            [(doc["slug"], doc["name"], links["page"], [targets.point(c) for c in configs])],
        ),
    }


def response_words(best: dict[str, Any], gpus: list[str]) -> str:
    """A sentence giving the energy per response of each GPU type's lowest-energy configuration,
    or nothing."""
    found = [(gpu, conf) for gpu in gpus if (conf := best.get(gpu)) and PER_RESPONSE.key in conf]
    said = [
        f"{gpu} {words.significant(c[PER_RESPONSE.key])} J ({words.fixed(c[PER_THOUSAND.key], 2)} "
        f"Wh per 1,000)"
        for gpu, c in found
    ]
    return (
        f" Per response, the lowest-energy configuration of each GPU type uses {'; '.join(said)}."
        if said
        else ""
    )


def control(
    page: str, gpus: list[str], models: list[tuple[str, str, str, list[list[Any]]]]
) -> dict[str, Any]:
    """What the latency control on page reads: each GPU type's page, and each model's slug, name,
    page and configurations (targets.POINT), links relative to page."""
    return {
        "fields": targets.POINT,
        "gpus": {gpu: href(page, gpu_page(gpu)) for gpu in gpus},
        "models": [[slug, name, href(page, path), points] for slug, name, path, points in models],
    }
