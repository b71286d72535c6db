"""Pure: one checked upstream row -> its published configuration (an LLM's, an image's or a
video's), and the repeat numbers that tell a model's equal configurations apart."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from builder import layout
from builder.fields import LATENCY_FIELD, MEASURE_KEYS, PER_SECOND
from builder.layout import GENERATION_ORDER
from builder.names import slugify
from builder.strictjson import Doc
from builder.upstream import PRECISIONS, GenRow, Row

if TYPE_CHECKING:  # the reader's types: for mypy only, the reader is not installed beside builder
    from leadgreen_data.types import Configuration, ImageConfiguration, VideoConfiguration

    AnyConfiguration = Configuration | ImageConfiguration | VideoConfiguration
    Precision = Literal["BF16", "FP8", "MXFP4"]

# a configuration of any kind: an LLM's, an image's or a video's
C = TypeVar("C", bound="AnyConfiguration")

# an LLM configuration's keys, in the document's order
CONFIG_KEYS: tuple[str, ...] = (
    "gpu",
    "num_gpus",
    "tensor_parallel",
    "data_parallel",
    "expert_parallel",
    "precision",
    "max_num_seqs",
    "avg_requests_in_flight",
    "wh_per_million_output_tokens",
    "joules_per_output_token",
    "median_itl_ms",
    "p90_itl_ms",
    "p99_itl_ms",
    "tokens_per_second",
    "gpu_power_watts_total",
    "avg_output_tokens",
    "under_itl_deadline",
    "avg_running_batch",
    "p95_itl_ms",
    "row_id",
    "repeat",
)
SETUP_KEYS = (*GENERATION_ORDER, "inference_steps", "precision")
MEDIA_KEYS = {"image": ("width", "height"), "video": ("width", "height", "num_frames", "fps")}
WH_PER_JOULE = {"image": 1000 / 3600, "video": 1 / 3600}  # Wh per 1,000 images, or per video


def llm_configuration(row: Row, slug: str, deadline_ms: float) -> Configuration:
    """One upstream row as a published configuration, CONFIG_KEYS in order, repeat 1 until
    numbered."""
    return {
        "gpu": row.gpu_model,
        "num_gpus": row.num_gpus,
        "tensor_parallel": row.tensor_parallel,
        "data_parallel": row.data_parallel,
        "expert_parallel": row.expert_parallel,
        "precision": precision(row),
        "max_num_seqs": row.max_num_seqs,
        "avg_requests_in_flight": round(row.avg_batch_size, 1),
        "wh_per_million_output_tokens": round(row.energy_per_token_joules * 1e6 / 3600, 2),
        "joules_per_output_token": round(row.energy_per_token_joules, 7),
        "median_itl_ms": round(row.median_itl_ms, 1),
        "p90_itl_ms": round(row.p90_itl_ms, 1),
        "p99_itl_ms": round(row.p99_itl_ms, 1),
        "tokens_per_second": round(row.output_throughput_tokens_per_sec, 1),
        "gpu_power_watts_total": round(row.avg_power_watts),
        "avg_output_tokens": round(row.avg_output_len),
        "under_itl_deadline": row.median_itl_ms <= deadline_ms,
        "avg_running_batch": round(row.avg_batch_size, 1),
        "p95_itl_ms": round(row.p95_itl_ms, 1),
        "row_id": layout.row_id(slug, row.gpu_model, row.num_gpus, row.max_num_seqs),
        "repeat": 1,
    }


def precision(row: Row | GenRow) -> Precision:
    """A row's weight precision as published (upstream.py accepts only PRECISIONS' keys)."""
    return cast("Precision", PRECISIONS[row.weight_precision])


def numbered(confs: list[C]) -> list[C]:
    """Each configuration with its repeat number (see repeats)."""
    for conf, repeat in zip(confs, repeats([conf["row_id"] for conf in confs]), strict=True):
        conf["repeat"] = repeat
    return confs


def repeats(row_ids: list[str]) -> list[int]:
    """The repeat number of each row_id: how many times it has come so far (in upstream order)."""
    seen: dict[str, int] = defaultdict(int)
    found = []
    for row_id in row_ids:
        seen[row_id] += 1
        found.append(seen[row_id])
    return found


# what keyed_rows returns: each upstream row by its configuration's (row_id, repeat), in order
KeyedRows = dict[tuple[str, int], Any]


def keyed_rows(rows: list[Any]) -> KeyedRows:
    """Each upstream row (LLM, image or video) by its configuration's (row_id, repeat), numbered
    as it is."""
    ids = [layout.row_id(slugify(r.nickname), r.gpu_model, *numbers_of(r)) for r in rows]
    return dict(zip(zip(ids, repeats(ids), strict=True), rows, strict=True))


def numbers_of(row: Row | GenRow) -> tuple[int, ...]:
    """The numbers of a row's id after its GPU: an LLM row's GPU count and max_num_seqs, an image or
    video row's GPU count, batch size and parallel degrees."""
    if isinstance(row, GenRow):
        return row.num_gpus, row.batch_size, row.ulysses_degree, row.ring_degree
    return row.num_gpus, row.max_num_seqs


def config_keys(kind: str) -> tuple[str, ...]:
    """An image or video configuration's keys, in order (its CSV's columns after the model's)."""
    joules, wh, throughput = MEASURE_KEYS[kind]
    tail = (
        joules,
        wh,
        LATENCY_FIELD[kind],
        throughput,
        "gpu_power_watts_total",
        "under_latency_limit",
    )
    return (*SETUP_KEYS, *MEDIA_KEYS[kind], *tail, "row_id", "repeat", *PER_SECOND[kind])


def sig4(value: float) -> float:
    """A value rounded to 4 significant digits."""
    return float(f"{value:.4g}")


def generation_configuration(
    row: GenRow, slug: str, limit_s: float, kind: str
) -> ImageConfiguration | VideoConfiguration:
    """One image or video upstream row as a published configuration, config_keys(kind) in order,
    repeat 1 until numbered (its kind's keys are MEASURE_KEYS' and MEDIA_KEYS', not literal)."""
    joules, wh, throughput = MEASURE_KEYS[kind]
    parallel = numbers_of(row)
    conf: Doc = {"gpu": row.gpu_model, **dict(zip(SETUP_KEYS[1:5], parallel, strict=True))}
    conf |= {"inference_steps": row.inference_steps, "precision": precision(row)}
    conf |= {key: getattr(row, key) for key in MEDIA_KEYS[kind]}
    conf |= {
        joules: round(row.energy_joules, 4),
        wh: round(row.energy_joules * WH_PER_JOULE[kind], 2),
    }
    # Wh per second of video: Wh per video over its length, num_frames / fps seconds
    if kind == "video":
        conf["wh_per_video_second"] = round(row.energy_joules / 3600 / video_seconds(row), 4)
    conf |= {
        "batch_latency_s": round(row.batch_latency_s, 3),
        throughput: sig4(row.throughput_per_sec),
        "gpu_power_watts_total": round(row.avg_power_watts),
        "under_latency_limit": row.batch_latency_s <= limit_s,
        "row_id": layout.row_id(slug, row.gpu_model, *parallel),
        "repeat": 1,
    }
    return cast("ImageConfiguration | VideoConfiguration", conf)


def video_seconds(row: GenRow) -> float:
    """A video's length in seconds: num_frames / fps (both present and positive in a checked
    video row)."""
    if row.num_frames is None or row.fps is None:  # upstream.py requires both of every video row
        raise ValueError("a video row without num_frames or fps")
    return row.num_frames / row.fps
