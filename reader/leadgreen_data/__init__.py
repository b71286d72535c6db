"""LeadGreen data: GPU energy per output token of large language models, as of one data release.

The published files (JSON documents, the configurations CSV, ``datapackage.json`` and the
JSON Schemas) are inside this package; the functions below read them. Standard library only.

>>> import leadgreen_data
>>> leadgreen_data.model("qwen-3-8b")["best"]["H100"]["wh_per_million_output_tokens"]  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import csv
import difflib
import io
import json
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from leadgreen_data._release import DATA_VERSION, TAG, __version__

__all__ = [
    "DATA_VERSION",
    "DEFAULT_WORKLOAD",
    "TAG",
    "__version__",
    "configurations",
    "frontier",
    "index",
    "model",
    "models",
    "path",
    "schema",
    "workloads",
]

DEFAULT_WORKLOAD = "text-conversation"
"""The workload whose documents are at the top of the data folder."""

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_CSV = "data/configurations.csv"
_SCHEMA_SUFFIX = ".schema.json"
_TRUE = ("true", "True", "TRUE", "1")  # the Table Schema defaults
_FALSE = ("false", "False", "FALSE", "0")


def _node(rel: str) -> Any:
    """The packaged file or folder at a /-separated path below the package."""
    node = resources.files(__name__)
    for part in rel.split("/"):
        node = node.joinpath(part)
    return node


def _json(rel: str) -> Any:
    return json.loads(_node(rel).read_bytes())


def _names(rel: str, suffix: str = "") -> list[str]:
    """Sorted names in a packaged folder (without the suffix), or [] when it is absent."""
    folder = _node(rel)
    if not folder.is_dir():
        return []
    found = (entry.name for entry in folder.iterdir())
    return sorted(name[: len(name) - len(suffix)] for name in found if name.endswith(suffix) and name != suffix)


def workloads() -> list[dict[str, Any]]:
    """The workloads, in publishing order: the entries of ``workloads.json`` (id, name, task,
    description, counts and URLs); a release without that file has text conversation alone."""
    if _node("data/workloads.json").is_file():
        return list(_json("data/workloads.json")["workloads"])
    return [{"id": DEFAULT_WORKLOAD}]


def _workload_ids() -> list[str]:
    return [entry["id"] for entry in workloads()]


def _folder(workload: str) -> str:
    """The packaged folder holding a workload's documents."""
    if workload == DEFAULT_WORKLOAD:
        return "data"
    known = _workload_ids()
    if not isinstance(workload, str) or not _SLUG.fullmatch(workload) or workload not in known:
        raise LookupError(f"unknown workload {workload!r}; known workloads: {', '.join(known)}")
    return f"data/workloads/{workload}"


def index(workload: str = DEFAULT_WORKLOAD) -> dict[str, Any]:
    """The index document: the best configuration of every model on every GPU, in energy order."""
    return _json(f"{_folder(workload)}/index.json")


def models(workload: str = DEFAULT_WORKLOAD) -> dict[str, Any]:
    """The model list document."""
    return _json(f"{_folder(workload)}/models.json")


def frontier(workload: str = DEFAULT_WORKLOAD) -> dict[str, Any]:
    """The energy-latency frontier document: per model and GPU type, the configurations no other beats
    on both energy and median inter-token latency, and the best under each latency target.

    Raises LookupError for an unknown workload, or a release that has no frontier for it.
    """
    rel = f"{_folder(workload)}/frontier.json"
    if not _node(rel).is_file():
        raise LookupError(f"no frontier for workload {workload} in this release (older releases have none)")
    return _json(rel)


def model(slug: str, workload: str = DEFAULT_WORKLOAD) -> dict[str, Any]:
    """One model's document: every measured configuration, and the best per GPU.

    Raises LookupError, naming the slug and suggesting close matches, for a model that is not there.
    """
    folder = f"{_folder(workload)}/models"
    known = _names(folder, ".json")
    if not isinstance(slug, str) or slug not in known:
        wanted = str(slug).lower()
        close = [name for name in known if wanted and wanted in name][:3] or difflib.get_close_matches(
            wanted, known, n=3
        )
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known models: {', '.join(known)}"
        raise LookupError(f"unknown model {slug!r} in workload {workload}{hint}")
    return _json(f"{folder}/{slug}.json")


def _table_schema(rel: str = _CSV) -> dict[str, Any]:
    """The Table Schema of a configurations CSV, from the packaged datapackage.json."""
    for resource in _json("datapackage.json").get("resources", []):
        if resource.get("path") == rel and isinstance(resource.get("schema"), dict):
            return resource["schema"]
    raise LookupError(f"datapackage.json describes no table at {rel}")


def _csv_of(workload: str | None) -> str:
    """The CSV holding a workload's configurations: its own (text to image and to video have one), or the
    shared one."""
    if workload is None or workload == DEFAULT_WORKLOAD:
        return _CSV
    own = f"{_folder(workload)}/configurations.csv"
    return own if _node(own).is_file() else _CSV


def _converter(field: dict[str, Any], missing: list[str]) -> Any:
    kind = field.get("type", "string")
    true = field.get("trueValues", _TRUE)
    false = field.get("falseValues", _FALSE)

    def convert(text: str) -> Any:
        if text in missing:
            return None
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
        if kind == "boolean":
            if text in true:
                return True
            if text in false:
                return False
            raise ValueError(f"{field.get('name')}: expected a boolean, found {text!r}")
        if kind in ("array", "object"):
            return json.loads(text)
        return text

    return convert


def configurations(workload: str | None = None) -> list[dict[str, Any]]:
    """Every row of the configurations CSV as a dict, values typed by the package's table schema.

    With a workload, only that workload's rows; a generation workload (text-to-image, text-to-video)
    has a CSV of its own, with its own columns (energy per image or per video).
    """
    if workload is not None:
        _folder(workload)  # refuses an unknown workload
    rel = _csv_of(workload)
    table = _table_schema(rel)
    missing = table.get("missingValues", [""])
    convert = {f["name"]: _converter(f, missing) for f in table.get("fields", [])}
    text = _node(rel).read_text(encoding="utf-8")
    rows = [
        {name: convert.get(name, str)(value) for name, value in row.items()}
        for row in csv.DictReader(io.StringIO(text, newline=""))
    ]
    if workload is None:
        return rows
    return [row for row in rows if row.get("workload", DEFAULT_WORKLOAD) == workload]


def schema(kind: str) -> dict[str, Any]:
    """A JSON Schema by kind: the file name's stem, such as "index", "model-list", "model" or "defs"."""
    known = _names("schemas", _SCHEMA_SUFFIX)
    if kind not in known:
        raise LookupError(f"unknown schema kind {kind!r}; known kinds: {', '.join(known)}")
    return _json(f"schemas/{kind}{_SCHEMA_SUFFIX}")


_extracted: list[Path] = []


def path() -> Path:
    """The folder holding data/, schemas/ and datapackage.json, for tools that read files.

    Its layout is that of the release archive, so datapackage.json's paths resolve from it.
    """
    root = resources.files(__name__)
    if isinstance(root, Path):
        return root
    if not _extracted:  # installed in a zip file: copy the files out once, removed at exit
        target = Path(tempfile.mkdtemp(prefix="leadgreen-data-"))
        atexit.register(shutil.rmtree, target, True)
        for rel in ("data", "schemas", "datapackage.json"):
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
