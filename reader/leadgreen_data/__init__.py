"""LeadGreen data: GPU energy of large language models per output token, and of diffusion models per
image or video, as of one data release.

The published files (JSON documents, the configurations CSVs, ``datapackage.json`` and the
JSON Schemas) are inside this package; the functions below read them. Standard library only.

Every function that takes a workload takes one (an id, or its upstream task name such as
"gpqa"), never None, and defaults to text conversation: numbers compare within one workload
only. `all_configurations()` gives every LLM workload's rows at once. The return types are in
``leadgreen_data.types``, generated from the package's schemas, so a type checker catches a
misspelt key.

>>> import leadgreen_data as lg
>>> lg.model("qwen-3-8b")["best"]["H100"]["wh_per_million_output_tokens"]  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import difflib
import json
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, cast, overload

from leadgreen_data import _csv
from leadgreen_data._release import DATA_VERSION, TAG, __version__
from leadgreen_data.types import (
    ConfigurationRow,
    FrontierDocument,
    GenerationFrontierDocument,
    GenerationModelListDocument,
    GenerationWorkload,
    ImageCsvRow,
    ImageIndexDocument,
    ImageModelDocument,
    ImageWorkload,
    IndexDocument,
    LLMWorkload,
    ModelDocument,
    ModelListDocument,
    OutputLengthsDocument,
    SchemaKind,
    VideoCsvRow,
    VideoIndexDocument,
    VideoModelDocument,
    VideoWorkload,
    Workload,
    WorkloadListWorkload,
)

__all__ = [
    "DATA_VERSION",
    "DEFAULT_WORKLOAD",
    "TAG",
    "__version__",
    "all_configurations",
    "citation",
    "configurations",
    "dictionary",
    "frontier",
    "index",
    "model",
    "models",
    "output_lengths",
    "path",
    "schema",
    "workloads",
]

DEFAULT_WORKLOAD: LLMWorkload = "text-conversation"
"""The workload whose documents are at the top of the data folder."""

_CSV = "data/configurations.csv"
_SCHEMA_SUFFIX = ".schema.json"
# a model slug or workload id: the builder's layout.SLUG_PATTERN
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _node(rel: str) -> Any:
    """The packaged file or folder at a /-separated path below the package."""
    node = resources.files(__name__)
    for part in rel.split("/"):
        node = node.joinpath(part)
    return node


def _json(rel: str) -> Any:
    return json.loads(_node(rel).read_bytes())


def _names(rel: str, suffix: str = "") -> list[str]:
    """Sorted slug-shaped names in a packaged folder (without the suffix), or [] when it is
    absent; never a dotfile."""
    folder = _node(rel)
    if not folder.is_dir():
        return []
    stems = (
        entry.name[: len(entry.name) - len(suffix)]
        for entry in folder.iterdir()
        if entry.name.endswith(suffix)
    )
    return sorted(stem for stem in stems if _SLUG.fullmatch(stem))


def workloads() -> list[WorkloadListWorkload]:
    """The workloads, in publishing order: the entries of ``workloads.json`` (id, name, task,
    description, counts and URLs)."""
    return list(_json("data/workloads.json")["workloads"])


def _workload_ids() -> list[str]:
    return [entry["id"] for entry in workloads()]


def _workload_id(workload: object) -> str:
    """The workload id for an id or an upstream task name (gpqa is problem-solving).

    Raises LookupError, suggesting workload ids, for anything else (None included).
    """
    entries = workloads()
    names = {entry["id"]: entry["id"] for entry in entries} | {
        entry["task"]: entry["id"] for entry in entries
    }
    if isinstance(workload, str) and workload in names:
        return names[workload]
    ids = ", ".join(entry["id"] for entry in entries)
    tasks = ", ".join(entry["task"] for entry in entries if entry["task"] not in names.values())
    if workload is None:
        hint = (
            " (name one: numbers compare within one workload; all_configurations() has every "
            "LLM workload's rows)"
        )
    else:
        guess = str(workload).strip().lower().replace("_", "-").replace(" ", "-")
        close = (
            [guess]
            if guess in names
            else difflib.get_close_matches(guess, list(names), n=2, cutoff=0.75)
        )
        hint = (
            f" (did you mean {' or '.join(dict.fromkeys(names[name] for name in close))}?)"
            if close
            else ""
        )
    raise LookupError(
        f"unknown workload {workload!r}{hint}; known workloads: {ids} (or their upstream tasks: "
        f"{tasks})"
    )


def _folder(workload: object) -> str:
    """The packaged folder holding a workload's documents."""
    found = _workload_id(workload)
    return "data" if found == DEFAULT_WORKLOAD else f"data/workloads/{found}"


@overload
def index(workload: LLMWorkload = ...) -> IndexDocument: ...
@overload
def index(workload: ImageWorkload) -> ImageIndexDocument: ...
@overload
def index(workload: VideoWorkload) -> VideoIndexDocument: ...
def index(
    workload: Workload = DEFAULT_WORKLOAD,
) -> IndexDocument | ImageIndexDocument | VideoIndexDocument:
    """The index document: the best configuration of every model on every GPU, in energy order."""
    return cast(IndexDocument, _json(f"{_folder(workload)}/index.json"))


@overload
def models(workload: LLMWorkload = ...) -> ModelListDocument: ...
@overload
def models(workload: GenerationWorkload) -> GenerationModelListDocument: ...
def models(
    workload: Workload = DEFAULT_WORKLOAD,
) -> ModelListDocument | GenerationModelListDocument:
    """The model list document."""
    return cast(ModelListDocument, _json(f"{_folder(workload)}/models.json"))


@overload
def frontier(workload: LLMWorkload = ...) -> FrontierDocument: ...
@overload
def frontier(workload: GenerationWorkload) -> GenerationFrontierDocument: ...
def frontier(
    workload: Workload = DEFAULT_WORKLOAD,
) -> FrontierDocument | GenerationFrontierDocument:
    """The energy-latency frontier document of a workload: per model, per GPU type and across them,
    the configurations no other beats on both energy and latency, and the best under each latency
    target (an LLM workload's entries with the energy of one response).

    Raises LookupError for an unknown workload, or one (of an older release) that has no frontier.
    """
    rel = f"{_folder(workload)}/frontier.json"
    if not _node(rel).is_file():
        raise LookupError(f"no frontier for workload {_workload_id(workload)} in this release")
    return cast(FrontierDocument, _json(rel))


def output_lengths(workload: Workload = DEFAULT_WORKLOAD) -> OutputLengthsDocument:
    """The output-length distributions of an LLM workload: per model and configuration, how many
    output tokens its responses had (upstream's binned histogram, the exact mean, the estimated
    median and 90th percentile).

    Raises LookupError for an unknown workload, or one (an image or video workload, or an older
    release) that has none.
    """
    rel = f"{_folder(workload)}/output-lengths.json"
    if not _node(rel).is_file():
        raise LookupError(
            f"no output lengths for workload {_workload_id(workload)} in this release"
        )
    return cast(OutputLengthsDocument, _json(rel))


@overload
def model(slug: str, workload: LLMWorkload = ...) -> ModelDocument: ...
@overload
def model(slug: str, workload: ImageWorkload) -> ImageModelDocument: ...
@overload
def model(slug: str, workload: VideoWorkload) -> VideoModelDocument: ...
def model(
    slug: str, workload: Workload = DEFAULT_WORKLOAD
) -> ModelDocument | ImageModelDocument | VideoModelDocument:
    """One model's document: every measured configuration, and the best per GPU.

    Raises LookupError for a name that is not a slug (lowercase letters and digits joined by single
    hyphens) or a model that is not there: it names the workloads where the model is, or else
    suggests close matches.
    """
    found = _workload_id(workload)
    folder = f"{_folder(found)}/models"
    known = _names(folder, ".json")
    if not isinstance(slug, str) or not _SLUG.fullmatch(slug):
        close = difflib.get_close_matches(
            str(slug).strip().lower().replace("_", "-").replace(" ", "-"), known, n=3
        )
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise LookupError(
            f"unknown model {slug!r} in workload {found}: expected a slug, lowercase letters and "
            f"digits "
            f"joined by single hyphens{hint}"
        )
    if slug not in known:
        elsewhere = [
            w
            for w in _workload_ids()
            if w != found and slug in _names(f"{_folder(w)}/models", ".json")
        ]
        if elsewhere:
            hint = f"; it is in {', '.join(elsewhere)}: model({slug!r}, workload={elsewhere[0]!r})"
        else:
            wanted = str(slug).lower()
            close = [name for name in known if wanted and wanted in name][
                :3
            ] or difflib.get_close_matches(wanted, known, n=3)
            hint = (
                f"; did you mean {', '.join(close)}?"
                if close
                else f"; known models: {', '.join(known)}"
            )
        raise LookupError(f"unknown model {slug!r} in workload {found}{hint}")
    return cast(ModelDocument, _json(f"{folder}/{slug}.json"))


def _table_schema(rel: str = _CSV) -> dict[str, Any]:
    """The Table Schema of a configurations CSV, from the packaged datapackage.json."""
    for resource in _json("datapackage.json").get("resources", []):
        if resource.get("path") == rel and isinstance(resource.get("schema"), dict):
            return cast("dict[str, Any]", resource["schema"])
    raise LookupError(f"datapackage.json describes no table at {rel}")


def _rows(rel: str) -> list[dict[str, Any]]:
    """The rows of a CSV of the package, each value converted as its table schema says."""
    return _csv.rows(_node(rel).read_text(encoding="utf-8"), _table_schema(rel))


def all_configurations() -> list[ConfigurationRow]:
    """Every row of the shared configurations CSV (every LLM workload's), as a dict typed by the
    package's table schema.

    Rows of different workloads do not compare: select one (its `workload` column) before ranking.
    The image and video workloads have CSVs of their own: `configurations("text-to-image")`.
    """
    return cast("list[ConfigurationRow]", _rows(_CSV))


@overload
def configurations(workload: LLMWorkload = ...) -> list[ConfigurationRow]: ...
@overload
def configurations(workload: ImageWorkload) -> list[ImageCsvRow]: ...
@overload
def configurations(workload: VideoWorkload) -> list[VideoCsvRow]: ...
def configurations(
    workload: Workload = DEFAULT_WORKLOAD,
) -> list[ConfigurationRow] | list[ImageCsvRow] | list[VideoCsvRow]:
    """One workload's configurations, as dicts typed by the package's table schema.

    An image or video workload (text-to-image, text-to-video) has a CSV of its own, whose columns
    are its own (energy per image or per video): see its table schema in datapackage.json.
    """
    found = _workload_id(workload)
    own = f"{_folder(found)}/configurations.csv"
    if found != DEFAULT_WORKLOAD and _node(own).is_file():
        return cast("list[ImageCsvRow]", _rows(own))  # or VideoCsvRow: the overloads say which
    return [row for row in all_configurations() if row["workload"] == found]


def schema(kind: SchemaKind) -> dict[str, Any]:
    """A JSON Schema by kind: the file name's stem, such as "index", "model-list", "model" or
    "defs"."""
    known = _names("schemas", _SCHEMA_SUFFIX)
    if kind not in known:
        raise LookupError(f"unknown schema kind {kind!r}; known kinds: {', '.join(known)}")
    return cast("dict[str, Any]", _json(f"schemas/{kind}{_SCHEMA_SUFFIX}"))


def citation() -> str:
    """The release's CITATION.cff: this package at this version, and the papers to cite with it."""
    node = _node("CITATION.cff")
    if not node.is_file():
        raise LookupError("this release has no CITATION.cff")
    return str(node.read_text(encoding="utf-8"))


def dictionary() -> str:
    """The data dictionary (docs/data-dictionary.md): every field's meaning, unit and derivation,
    as Markdown."""
    node = _node("docs/data-dictionary.md")
    if not node.is_file():
        raise LookupError("this release has no data dictionary")
    return str(node.read_text(encoding="utf-8"))


_extracted: list[Path] = []
_FILES = (
    "data",
    "schemas",
    "datapackage.json",
    "docs",
    "README.md",
    "croissant.json",
    "CITATION.cff",
)


def path() -> Path:
    """The folder holding data/, schemas/, datapackage.json, croissant.json, README.md and
    docs/data-dictionary.md, for tools that read files.

    Its layout is that of the release archive, so datapackage.json's and croissant.json's paths
    resolve from it.
    """
    root = resources.files(__name__)
    if isinstance(root, Path):
        return root
    if not _extracted:  # installed in a zip file: copy the files out once, removed at exit
        target = Path(tempfile.mkdtemp(prefix="leadgreen-data-"))
        atexit.register(shutil.rmtree, target, True)
        for rel in _FILES:
            _copy(_node(rel), target / rel)
        _extracted.append(target)
    return _extracted[0]


def _copy(node: Any, target: Path) -> None:
    if node.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        for child in node.iterdir():
            _copy(child, target / child.name)
    elif node.is_file():
        target.write_bytes(node.read_bytes())
