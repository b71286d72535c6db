"""The curated metadata of the image and video workloads: [[workload]] tables of kind "image" or "video"."""

from dataclasses import dataclass
from typing import Any

from builder.metadata import Workload

UNIT_OF_KIND = {"image": "Wh per 1,000 images", "video": "Wh per video"}
LATENCY_METRIC = "batch_latency_s"  # what the limit of a generation workload applies to


@dataclass(frozen=True)
class GenerationWorkload(Workload):
    """One image or video generation workload: a workload with its unit and latency rule."""

    unit: str
    latency_limit_s: float
    latency_limit_source: str
    method: str
    selection: str
    used_for: str


def generation_workloads(meta: dict[str, Any]) -> list[GenerationWorkload]:
    """The image and video workloads of checked metadata, in publishing order (after the LLM workloads)."""
    return [GenerationWorkload(**table) for table in meta["workload"] if table["kind"] != "llm"]
