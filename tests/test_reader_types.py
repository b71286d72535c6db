"""The reader's types: generated from the schemas, equal to the documents' keys, and enough for
`mypy --strict`.

reader/leadgreen_data/types/ is written by scripts/reader_types.py; the test fails when it
differs from a fresh generation (a schema, the CSV's columns or the workloads changed: run the
script). mypy runs on the reader as the wheel stages it, and on consumer code.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from builder.release.dist import staged_files
from builder.release.rules import Version
from helpers import REPO
from test_consumer_readme import all_examples

TYPES = REPO / "reader" / "leadgreen_data" / "types"
# Every name leadgreen_data.types had in the wheel of release v2026.11.29: each stays importable.
RELEASED = (
    "AcrossGpus",
    "Configuration",
    "ConfigurationRow",
    "FrontierDefinition",
    "FrontierDocument",
    "FrontierEntry",
    "FrontierModel",
    "GenerationAcrossGpus",
    "GenerationDefinition",
    "GenerationFrontierDocument",
    "GenerationFrontierModel",
    "GenerationGpuFrontier",
    "GenerationModelListDocument",
    "GenerationWorkload",
    "GpuFrontier",
    "ImageConfiguration",
    "ImageCsvRow",
    "ImageEntry",
    "ImageIndexDocument",
    "ImageIndexRow",
    "ImageModelDocument",
    "ImageWorkload",
    "IndexDocument",
    "IndexReferenceRow",
    "IndexRow",
    "LLMWorkload",
    "ModelDocument",
    "ModelEntry",
    "ModelListDocument",
    "ModelListModel",
    "OutputLengthsDocument",
    "OutputLengthsModel",
    "OutputLengthsModelConfiguration",
    "ReferenceRow",
    "SchemaKind",
    "Source",
    "TaskName",
    "UnitsDocument",
    "UnitsWorkload",
    "VideoConfiguration",
    "VideoCsvRow",
    "VideoEntry",
    "VideoIndexDocument",
    "VideoIndexRow",
    "VideoModelDocument",
    "VideoWorkload",
    "Workload",
    "WorkloadId",
    "WorkloadListDocument",
    "WorkloadListWorkload",
)


def _module(path: Path, name: str, package: bool = False) -> ModuleType:
    """A module, or a package (its __init__.py), loaded from its file under a name of its own."""
    folder = [str(path.parent)] if package else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=folder)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _generator() -> ModuleType:
    return _module(REPO / "scripts" / "reader_types.py", "reader_types")


def _types() -> ModuleType:
    """The reader's types package alone (the reader itself needs the wheel's _release.py)."""
    return _module(TYPES / "__init__.py", "leadgreen_types", package=True)


def test_the_committed_types_are_what_the_script_generates() -> None:
    committed = {p.relative_to(REPO).as_posix(): p.read_text() for p in TYPES.glob("*.py")}
    assert committed == _generator().generate(REPO)
    assert not (TYPES.parent / "types.py").exists()  # the one module the package replaced


def test_every_module_of_the_reader_is_under_400_lines() -> None:
    reader = TYPES.parent
    lengths = {
        p.relative_to(reader).as_posix(): len(p.read_text().splitlines())
        for p in reader.rglob("*.py")
    }
    assert len(lengths) >= 6, lengths  # __init__, __main__ and the types package's four
    assert max(lengths.values()) < 400, lengths


def test_every_name_the_released_types_had_is_importable() -> None:
    types = _types()
    assert [name for name in RELEASED if not hasattr(types, name)] == []
    assert len(RELEASED) == 50


def test_each_type_has_its_schema_objects_keys_with_those_of_its_base() -> None:
    """At runtime each TypedDict has the keys, annotations and required keys the generator read
    from the schemas, its base's included; a type made per generation kind extends the keys the
    kinds share, a CSV row its configuration."""
    shapes, types = _generator().typed_dicts(REPO), _types()
    for name, shape in shapes.items():
        kind = getattr(types, name)
        annotations = {k: v.__forward_arg__ for k, v in kind.__annotations__.items()}
        assert annotations == {k: ast.unparse(ast.parse(v)) for k, v in shape.fields.items()}, name
        assert kind.__required_keys__ == shape.required, name
    bases = {name: shape.base for name, shape in shapes.items() if shape.base}
    assert bases["ImageIndexRow"] == bases["VideoIndexRow"] == "GenerationIndexRow"
    assert bases["ImageModelDocument"] == bases["VideoModelDocument"] == "GenerationModelDocument"
    assert bases["ConfigurationRow"] == "Configuration"
    assert bases["AcrossGpus"] == "GpuFrontier"
    assert len(bases) == 19
    assert "WorkloadListWorkload" not in bases  # an optional key: it stands alone


def _keys(kind: Any) -> set[str]:
    return set(kind.__required_keys__) | set(kind.__optional_keys__)


def test_every_document_has_the_keys_of_its_type() -> None:
    """An llm workload's documents have the keys of IndexDocument, ModelListDocument, ModelDocument
    and FrontierDocument; an image or video workload's those of the Image* or Video* types (rows,
    configurations and CSV rows too) and of GenerationModelListDocument (and no frontier). A CSV's
    columns are its row type's keys, in the schema's order (at runtime a base's keys come first)."""
    types, shapes = _types(), _generator().typed_dicts(REPO)
    data = REPO / "data"
    workloads = json.loads((data / "workloads.json").read_bytes())
    kinds = {entry["id"]: entry["kind"] for entry in workloads["workloads"]}
    assert sorted(set(kinds.values())) == ["image", "llm", "video"]
    for workload, kind in kinds.items():
        folder = data if workload == "text-conversation" else data / "workloads" / workload
        prefix = {"llm": "", "image": "Image", "video": "Video"}[kind]
        index = json.loads((folder / "index.json").read_bytes())
        assert set(index) == _keys(getattr(types, prefix + "IndexDocument")), folder
        row = types.IndexRow if kind == "llm" else getattr(types, prefix + "IndexRow")
        assert all(set(r) == _keys(row) for r in index["rows"]), folder
        listing = "ModelListDocument" if kind == "llm" else "GenerationModelListDocument"
        assert set(json.loads((folder / "models.json").read_bytes())) == _keys(
            getattr(types, listing)
        ), folder
        paths = sorted((folder / "models").glob("*.json"))
        assert paths, folder
        configuration = (
            types.Configuration if kind == "llm" else getattr(types, prefix + "Configuration")
        )
        for path in paths:
            doc = json.loads(path.read_bytes())
            assert set(doc) == _keys(getattr(types, prefix + "ModelDocument")), path
            assert all(set(conf) == _keys(configuration) for conf in doc["configurations"]), path
            assert all(set(conf) == _keys(configuration) for conf in doc["best"].values()), path
        if kind != "llm":
            header = (folder / "configurations.csv").read_text().splitlines()[0].split(",")
            assert set(header) == _keys(getattr(types, prefix + "CsvRow")), folder
            assert header == list(shapes[prefix + "CsvRow"].fields), folder
        frontier = json.loads((folder / "frontier.json").read_bytes())
        named = "FrontierDocument" if kind == "llm" else "GenerationFrontierDocument"
        assert set(frontier) == _keys(getattr(types, named)), folder
        for model in frontier["models"]:
            for held in [*model["gpus"].values(), model["across_gpus"]]:
                entries = [*held["frontier"], *(e for e in held["best_under"].values() if e)]
                if kind == "llm":
                    assert all(set(e) == _keys(types.FrontierEntry) for e in entries), folder
                else:
                    own = _keys(types.ImageEntry if kind == "image" else types.VideoEntry)
                    assert all(set(e) == own for e in entries), folder
    assert set(workloads) == _keys(types.WorkloadListDocument)
    for entry in workloads["workloads"]:  # frontier_url, optional, is an llm workload's only
        expected = _keys(types.WorkloadListWorkload) - (
            set() if entry["kind"] == "llm" else {"frontier_url"}
        )
        assert set(entry) == expected, entry["id"]
    assert types.WorkloadListWorkload.__optional_keys__ == {"frontier_url"}
    header = (data / "configurations.csv").read_text().splitlines()[0].split(",")
    assert set(header) == _keys(types.ConfigurationRow)
    assert header == list(shapes["ConfigurationRow"].fields)


MISSPELT = """\
import leadgreen_data as lg

print(lg.model("qwen-3-8b")["bset"])
print(lg.index(workload="gpqa2")["rows"])
print(lg.configurations(None))
print(lg.configurations()[0]["wh_per_million_output_token"])
"""
GENERATION = """\
import leadgreen_data as lg

print(lg.index("text-to-image")["rows"][0]["wh_per_thousand_image"])
print(lg.index("text-to-video")["rows"][0]["wh_per_vid"])
print(lg.model("flux-1-dev", workload="text-to-image")["best"]["H100"]["joules_per_imag"])
print(lg.model("wan-2-1-14b", workload="text-to-video")["configurations"][0]["fpss"])
print(lg.configurations("text-to-image")[0]["batch_latency"])
print(lg.configurations("text-to-video")[0]["num_frame"])
print(lg.frontier("gpqa")["models"][0]["gpus"]["H100"]["best_undr"])
print(lg.index("text-to-image")["itl_deadline_ms"])
print(lg.index("text-to-image")["latency_limit_s"])
print(lg.index("text-to-video")["rows"][0]["wh_per_video"])
print(lg.configurations("text-to-image")[0]["wh_per_thousand_images"])
print(lg.frontier()["itl_targets_ms"])
"""


EVERY_NAME = f"""\
import leadgreen_data as lg
from leadgreen_data.types import {", ".join(RELEASED)}
from leadgreen_data.types import GenerationIndexRow


def latency(row: GenerationIndexRow) -> float:
    return row["batch_latency_s"]


print(latency(lg.index("text-to-image")["rows"][0]), latency(lg.index("text-to-video")["rows"][0]))
print([{", ".join(RELEASED)}])
"""


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader as the wheel holds it (with its generated _release.py), in a folder for
    MYPYPATH."""
    names = (
        "data",
        "schemas",
        "datapackage.json",
        "LICENSE",
        "DATA-LICENCE.md",
        "docs/data-dictionary.md",
    )
    files = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for name in names
        for p in ([REPO / name] if (REPO / name).is_file() else sorted((REPO / name).rglob("*")))
        if p.is_file()
    }
    reader = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for p in (REPO / "reader").rglob("*")
        if p.is_file()
    }
    root = tmp_path_factory.mktemp("staged")
    for rel, data in staged_files(files, reader, Version("2026-11-29")).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def mypy(staged: Path, code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "consumer.py").write_text(code)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            "/dev/null",
            "consumer.py",
        ],
        cwd=tmp_path,
        env={"MYPYPATH": str(staged), "PATH": ""},
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_mypy_strict_rejects_a_misspelt_key_and_workload(staged: Path, tmp_path: Path) -> None:
    run = mypy(staged, MISSPELT, tmp_path)
    assert run.returncode == 1
    assert 'consumer.py:3: error: TypedDict "ModelDocument" has no key "bset"' in run.stdout
    assert (
        'consumer.py:4: error: No overload variant of "index" matches argument type "str"'
        in run.stdout
    )
    assert (
        'consumer.py:5: error: No overload variant of "configurations" matches argument type "None"'
        in run.stdout
    )
    assert (
        'consumer.py:6: error: TypedDict "ConfigurationRow" has no key '
        '"wh_per_million_output_token"' in run.stdout
    )
    assert "Found 4 errors in 1 file" in run.stdout  # none in the reader itself


@pytest.mark.slow
def test_mypy_strict_types_a_generation_workload_by_its_own_documents(
    staged: Path, tmp_path: Path
) -> None:
    """A misspelt key in each typed part: index rows, configurations, best, CSV rows, the frontier;
    and an image workload's index has a batch-latency limit, not an inter-token deadline. The last
    two lines are right."""
    run = mypy(staged, GENERATION, tmp_path)
    for line, kind, key in [
        (3, "ImageIndexRow", "wh_per_thousand_image"),
        (4, "VideoIndexRow", "wh_per_vid"),
        (5, "ImageConfiguration", "joules_per_imag"),
        (6, "VideoConfiguration", "fpss"),
        (7, "ImageCsvRow", "batch_latency"),
        (8, "VideoCsvRow", "num_frame"),
        (9, "GpuFrontier", "best_undr"),
        (10, "ImageIndexDocument", "itl_deadline_ms"),
    ]:
        assert f'consumer.py:{line}: error: TypedDict "{kind}" has no key "{key}"' in run.stdout, (
            run.stdout
        )
    assert "Found 8 errors in 1 file" in run.stdout, run.stdout


@pytest.mark.slow
def test_mypy_strict_accepts_the_readmes_python(staged: Path, tmp_path: Path) -> None:
    """Every python block of both READMEs but the pandas one (pandas ships no types without
    pandas-stubs)."""
    blocks = [
        e.code for e in all_examples() if e.lang == "python" and "import pandas" not in e.code
    ]
    assert len(blocks) == 4
    for code in blocks:
        run = mypy(staged, code, tmp_path)
        assert run.returncode == 0, code + run.stdout
        assert "Success: no issues found in 1 source file" in run.stdout


@pytest.mark.slow
def test_mypy_strict_accepts_every_released_name_imported_from_the_types(
    staged: Path, tmp_path: Path
) -> None:
    """Each is re-exported explicitly; an image or video index row is a GenerationIndexRow."""
    run = mypy(staged, EVERY_NAME, tmp_path)
    assert run.returncode == 0, run.stdout
    assert "Success: no issues found in 1 source file" in run.stdout
