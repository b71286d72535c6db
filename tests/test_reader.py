"""The `leadgreen_data` reader, installed from the release's wheel into a fresh virtual environment.

Module-scoped and slow (about 10 s: a venv, an offline pip install). Every call runs in that
environment, away from the repository (cwd is a scratch folder, python -I), and is compared with
the files at the tag.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from consumer_release import Built, built, fresh_venv, offline_pip_env
from test_reader_types import RELEASED

pytestmark = pytest.mark.slow

HEAVY = ("jsonschema", "frictionless", "httpx", "click", "referencing", "jsonschema_rs")
DEFAULT = "text-conversation"

PROBE = r"""
import json, sys
import leadgreen_data as lg
import leadgreen_data.__main__ as cli

out = {
    "file": lg.__file__, "version": lg.__version__, "tag": lg.TAG, "data_version": lg.DATA_VERSION,
    "path": str(lg.path()), "index": lg.index(), "models": lg.models(), "workloads": lg.workloads(),
    "schemas": {kind: lg.schema(kind) for kind in ("index", "model-list", "model", "defs")},
}
out["workload_ids"] = lg._workload_ids()
out["by_workload_docs"] = {
    w: {
        "index": lg.index(w),
        "models": lg.models(w),
        "model": {m["slug"]: lg.model(m["slug"], w) for m in lg.models(w)["models"]},
    }
    for w in out["workload_ids"]
}
out["kinds"] = {entry["id"]: entry["kind"] for entry in lg.workloads()}
out["frontiers"] = {}
for w in out["workload_ids"]:
    try:
        out["frontiers"][w] = lg.frontier(w)
    except LookupError as exc:
        out["frontiers"][w] = str(exc)
out["lengths"] = {}
for w in out["workload_ids"]:
    try:
        out["lengths"][w] = lg.output_lengths(w)
    except LookupError as exc:
        out["lengths"][w] = str(exc)
out["model"] = out["by_workload_docs"][lg.DEFAULT_WORKLOAD]["model"]
rows = lg.all_configurations()
out["configurations"] = rows
out["by_workload"] = len(lg.configurations(lg.DEFAULT_WORKLOAD))
out["types"] = {key: sorted({type(row[key]).__name__ for row in rows}) for key in rows[0]}
calls = {
    "model": lambda: lg.model("qwen-3-9b"),
    "model_path": lambda: lg.model("../index"),
    "workload": lambda: lg.index("image-generation"),
    "workload_path": lambda: lg.models("../data"),
    "configurations": lambda: lg.configurations("image-generation"),
    "frontier": lambda: lg.frontier("image-generation"),
    "schema": lambda: lg.schema("nope"),
    "elsewhere": lambda: lg.model("gpt-oss-20b"),
    "none": lambda: lg.index(None),
    "none_configurations": lambda: lg.configurations(None),
    "underscore": lambda: lg.models("image_chat"),
    "typo": lambda: lg.index("gqpa"),
}
out["errors"] = {}
for name, call in calls.items():
    try:
        call()
        out["errors"][name] = None
    except LookupError as exc:
        out["errors"][name] = str(exc)
out["summary"] = cli.summary()
out["aliases"] = {
    "gpqa": lg.index("gpqa") == lg.index("problem-solving"),
    "lm-arena-chat": lg.configurations("lm-arena-chat") == lg.configurations(),
    "sourcegraph-fim": lg.model("qwen-3-coder-30b-a3b", "sourcegraph-fim")
    == lg.model("qwen-3-coder-30b-a3b", "code-completion"),
}
out["heavy"] = sorted(name for name in sys.modules if name.split(".")[0] in HEAVY)
out["heavy_importable"] = []
import importlib.util
out["heavy_importable"] = [name for name in HEAVY if importlib.util.find_spec(name) is not None]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def release() -> Built:
    return built()


@pytest.fixture(scope="module")
def python(release: Built) -> Path:
    """A fresh venv with only the wheel installed, offline (by this pip, pointed at the venv's
    python)."""
    python = fresh_venv(release.root / "reader-venv", with_pip=False)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            str(release.wheel),
        ],
        env=offline_pip_env(),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return python


def probe(python: Path, cwd: Path, *prefix: str, **env: str) -> dict[str, Any]:
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    run = subprocess.run(
        [str(python), *prefix, "-c", code], cwd=cwd, capture_output=True, text=True, env=env or None
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def seen(python: Path, release: Built) -> dict[str, Any]:
    away = release.root / "elsewhere"
    away.mkdir(exist_ok=True)
    return probe(python, away, "-I")


def repo_json(release: Built, rel: str) -> Any:
    return json.loads((release.repo / rel).read_bytes())


def test_the_reader_is_the_installed_one_with_the_release_version(
    seen: dict, python: Path, release: Built
) -> None:
    venv = python.parent.parent
    assert Path(seen["file"]).is_relative_to(venv)
    assert Path(seen["path"]) == Path(seen["file"]).parent
    assert (Path(seen["path"]) / "datapackage.json").is_file()
    assert seen["version"] == release.version
    assert seen["tag"] == release.tag
    docs = [
        repo_json(release, p.relative_to(release.repo).as_posix())
        for p in (release.repo / "data").rglob("*.json")
    ]
    assert seen["data_version"] == max(d["data_version"] for d in docs if "data_version" in d)


def test_documents_equal_the_files_at_the_tag(seen: dict, release: Built) -> None:
    assert seen["index"] == repo_json(release, "data/index.json")
    assert seen["models"] == repo_json(release, "data/models.json")
    slugs = sorted(p.stem for p in (release.repo / "data" / "models").glob("*.json"))
    assert sorted(seen["model"]) == slugs
    for slug in slugs:
        assert seen["model"][slug] == repo_json(release, f"data/models/{slug}.json"), slug
    for kind in ("index", "model-list", "model", "defs"):
        assert seen["schemas"][kind] == repo_json(release, f"schemas/{kind}.schema.json")


def test_every_workloads_documents_equal_the_files_at_the_tag(seen: dict, release: Built) -> None:
    """text-conversation at the top of data/, any other workload in data/workloads/<id>/."""
    for workload, docs in seen["by_workload_docs"].items():
        folder = "data" if workload == DEFAULT else f"data/workloads/{workload}"
        assert docs["index"] == repo_json(release, f"{folder}/index.json"), workload
        assert docs["models"] == repo_json(release, f"{folder}/models.json"), workload
        for slug, doc in docs["model"].items():
            assert doc == repo_json(release, f"{folder}/models/{slug}.json"), (workload, slug)


def test_frontier_is_the_file_at_the_tag_for_every_workload(seen: dict, release: Built) -> None:
    """Every workload's frontier.json, an image or video workload's too."""
    generation = {"text-to-image": "image", "text-to-video": "video"}
    assert seen["kinds"] == {w: generation.get(w, "llm") for w in KNOWN_IN_ORDER}
    for workload in seen["kinds"]:
        folder = "data" if workload == DEFAULT else f"data/workloads/{workload}"
        assert seen["frontiers"][workload] == repo_json(release, f"{folder}/frontier.json"), (
            workload
        )


def test_output_lengths_are_the_file_at_the_tag_for_an_llm_workload_and_a_lookup_error_otherwise(
    seen: dict, release: Built
) -> None:
    """An llm workload's output-lengths.json; an image or video workload has none, and
    output_lengths() says so."""
    for workload, kind in seen["kinds"].items():
        folder = "data" if workload == DEFAULT else f"data/workloads/{workload}"
        if kind == "llm":
            assert seen["lengths"][workload] == repo_json(
                release, f"{folder}/output-lengths.json"
            ), workload
        else:
            assert not (release.repo / folder / "output-lengths.json").exists(), workload
            assert (
                seen["lengths"][workload]
                == f"no output lengths for workload {workload} in this release"
            )


def test_workloads_are_the_entries_of_the_workload_list(seen: dict, release: Built) -> None:
    assert (
        seen["workloads"]
        == json.loads((release.repo / "data" / "workloads.json").read_bytes())["workloads"]
    )


def test_unknown_model_names_it_and_suggests_close_matches(seen: dict) -> None:
    message = seen["errors"]["model"]
    assert message.startswith(
        "unknown model 'qwen-3-9b' in workload text-conversation; did you mean "
    )
    assert "qwen-3-8b" in message.split("did you mean ")[1]
    assert seen["errors"]["model_path"].startswith(
        "unknown model '../index' in workload text-conversation"
    )


KNOWN = (
    "text-conversation, problem-solving, code-completion, image-chat, video-chat, "
    "text-to-image, text-to-video"
)


TASKS = " (or their upstream tasks: lm-arena-chat, gpqa, sourcegraph-fim)"


def test_unknown_workload_names_it_and_lists_the_known_ones(seen: dict) -> None:
    assert (
        seen["errors"]["workload"]
        == "unknown workload 'image-generation'; known workloads: " + KNOWN + TASKS
    )
    assert (
        seen["errors"]["workload_path"]
        == "unknown workload '../data'; known workloads: " + KNOWN + TASKS
    )
    assert seen["errors"]["configurations"] == seen["errors"]["workload"]
    assert seen["errors"]["frontier"] == seen["errors"]["workload"]


def test_a_misspelt_workload_gets_the_workload_id_suggested(seen: dict) -> None:
    assert seen["errors"]["underscore"] == (
        "unknown workload 'image_chat' (did you mean image-chat?); known workloads: "
        + KNOWN
        + TASKS
    )
    assert seen["errors"]["typo"].startswith(
        "unknown workload 'gqpa' (did you mean problem-solving?); "
    )


def test_upstream_task_names_are_aliases_of_their_workloads(seen: dict) -> None:
    assert seen["aliases"] == {"gpqa": True, "lm-arena-chat": True, "sourcegraph-fim": True}


def test_none_is_no_workload_anywhere(seen: dict) -> None:
    """None means the same everywhere: no workload; every function refuses it and says what to do
    instead."""
    expected = (
        "unknown workload None (name one: numbers compare within one workload; "
        "all_configurations() has every LLM workload's rows); known workloads: " + KNOWN + TASKS
    )
    assert seen["errors"]["none"] == seen["errors"]["none_configurations"] == expected


def test_a_model_of_another_workload_is_found_there(seen: dict) -> None:
    assert seen["errors"]["elsewhere"] == (
        "unknown model 'gpt-oss-20b' in workload text-conversation; it is in problem-solving: "
        "model('gpt-oss-20b', workload='problem-solving')"
    )


def test_unknown_schema_kind_lists_the_kinds(seen: dict) -> None:
    assert (
        seen["errors"]["schema"]
        == "unknown schema kind 'nope'; known kinds: datapackage, defs, frontier, "
        "generation-configuration, "
        "generation-defs, generation-frontier, generation-index, generation-model, "
        "generation-model-list, index, "
        "model, model-list, output-lengths, units, workload-list"
    )


def test_configurations_are_typed_by_the_packages_table_schema(seen: dict, release: Built) -> None:
    descriptor = repo_json(release, "datapackage.json")
    table = next(r for r in descriptor["resources"] if r["path"] == "data/configurations.csv")
    python_type = {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}
    expected = {f["name"]: [python_type[f["type"]]] for f in table["schema"]["fields"]}
    assert seen["types"] == expected
    with (release.repo / "data" / "configurations.csv").open(newline="") as handle:
        assert len(seen["configurations"]) == sum(1 for _ in csv.DictReader(handle))
    assert seen["by_workload"] == sum(
        row.get("workload", DEFAULT) == DEFAULT for row in seen["configurations"]
    )


def test_configurations_equal_the_model_documents(seen: dict) -> None:
    """Each CSV row, typed, equals the configuration of the same key in its model's document."""
    by_key = {}
    for workload, docs in seen["by_workload_docs"].items():
        for slug, doc in docs["model"].items():
            for conf in doc["configurations"]:
                by_key[(workload, slug, conf["row_id"], conf["repeat"])] = conf
    for row in seen["configurations"]:
        conf = by_key[(row.get("workload", DEFAULT), row["slug"], row["row_id"], row["repeat"])]
        for key, value in row.items():
            if key in conf:
                assert value == conf[key], (row["row_id"], key)
                assert type(value) is type(conf[key]), (row["row_id"], key)


def test_no_heavy_module_is_imported_even_where_installed(
    python: Path, release: Built, tmp_path: Path
) -> None:
    """In the builder's own environment, where jsonschema, frictionless, httpx and click are
    importable."""
    target = tmp_path / "site"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(release.wheel),
        ],
        env=offline_pip_env(),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    seen = probe(Path(sys.executable), tmp_path, **offline_pip_env(), PYTHONPATH=str(target))
    assert Path(seen["file"]).is_relative_to(target)
    assert set(seen["heavy_importable"]) >= {"jsonschema", "frictionless", "httpx", "click"}
    assert seen["heavy"] == []


def test_no_heavy_module_in_the_fresh_venv(seen: dict) -> None:
    assert seen["heavy"] == []


def test_every_released_type_imports_from_the_installed_wheel(python: Path, release: Built) -> None:
    """Each name leadgreen_data.types had in v2026.11.29, from the types package the wheel ships."""
    code = f"from leadgreen_data.types import {', '.join(RELEASED)}; import leadgreen_data.types"
    code += "; print(leadgreen_data.types.__file__)"
    run = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("site-packages/leadgreen_data/types/__init__.py")


def test_python_m_prints_version_source_and_counts(python: Path, release: Built) -> None:
    run = subprocess.run(
        [str(python), "-I", "-m", "leadgreen_data"],
        cwd=release.root,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    index = repo_json(release, "data/index.json")
    models = repo_json(release, "data/models.json")
    with (release.repo / "data" / "configurations.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    lines = run.stdout.splitlines()
    assert (
        lines[0] == f"leadgreen-data {release.version} (tag {release.tag}), data version "
        f"{release.data_version}"
    )
    assert lines[1] == f"source: {index['source']['name']} ({index['source']['url']})"
    assert lines[2].startswith("files: ")
    assert lines[2].endswith("site-packages/leadgreen_data")
    assert lines[3] == (
        f"workload {DEFAULT}: {len(models['models'])} models, {len(index['rows'])} index rows, "
        f"{sum(1 for row in rows if row.get('workload', DEFAULT) == DEFAULT)} configurations, in "
        f"{index['unit']}"
    )


@pytest.mark.parametrize(
    ("args", "first", "last"),
    [
        pytest.param(
            ["--help"],
            "usage: python -m leadgreen_data [-h] [--workload ID] [--json]",
            "Exits 0",
            id="help",
        ),
        pytest.param(
            ["--workload", "gpqa"],
            "leadgreen-data ",
            "workload problem-solving: 12 models, 22 index rows",
            id="one",
        ),
    ],
)
def test_python_m_options(
    python: Path, release: Built, args: list[str], first: str, last: str
) -> None:
    run = subprocess.run(
        [str(python), "-I", "-m", "leadgreen_data", *args], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(first)
    assert lines[-1].startswith(last)


def test_python_m_json_and_a_wrong_workload(python: Path, release: Built) -> None:
    run = subprocess.run(
        [str(python), "-I", "-m", "leadgreen_data", "--json"], capture_output=True, text=True
    )
    found = json.loads(run.stdout)
    assert (found["version"], found["tag"]) == (release.version, release.tag)
    assert [w["id"] for w in found["workloads"]] == KNOWN_IN_ORDER
    expected = {
        "id": "problem-solving",
        "unit": "Wh per million output tokens",
        "models": 12,
        "index_rows": 22,
    }
    assert found["workloads"][1] == expected | {"configurations": 187}
    wrong = subprocess.run(
        [str(python), "-I", "-m", "leadgreen_data", "--workload", "x"], capture_output=True
    )
    wrong_text = wrong.stderr.decode()
    assert wrong.returncode == 2
    assert "python -m leadgreen_data: error: unknown workload 'x'; known workloads: " in wrong_text


def test_every_workload_is_read_from_its_folder(tmp_path: Path) -> None:
    """Each workload's index, model list, configurations and summary line, against
    workloads.json."""
    from builder.release.dist import staged_files
    from builder.release.rules import Version
    from helpers import REPO

    files = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for name in (
            "data",
            "schemas",
            "datapackage.json",
            "LICENSE",
            "DATA-LICENCE.md",
            "docs/data-dictionary.md",
        )
        for p in ([REPO / name] if (REPO / name).is_file() else sorted((REPO / name).rglob("*")))
        if p.is_file()
    }
    reader = {
        p.relative_to(REPO).as_posix(): p.read_bytes()
        for p in (REPO / "reader").rglob("*")
        if p.is_file()
    }
    for rel, data in staged_files(files, reader, Version("2026-11-29")).items():
        (tmp_path / "site" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "site" / rel).write_bytes(data)
    code = f"""
import json, sys
sys.path.insert(0, {str(tmp_path / "site")!r})
import leadgreen_data as lg, leadgreen_data.__main__ as cli
ids = [w["id"] for w in lg.workloads()]
print(json.dumps({{
    "ids": ids,
    "index": {{w: lg.index(w)["workload"] for w in ids}},
    "models": {{w: len(lg.models(w)["models"]) for w in ids}},
    "rows": {{w: len(lg.configurations(w)) for w in ids}},
    "all_rows": len(lg.all_configurations()),
    "summary": cli.summary(),
    "one": {{w: cli.summary(w).splitlines()[-1] for w in ids}},
    "one_json": {{w: cli.facts(w)["workloads"][0]["unit"] for w in ids}},
    "dictionary": lg.dictionary().splitlines()[0],
}}))
"""
    run = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    listed = json.loads(files["data/workloads.json"])["workloads"]
    assert seen["ids"] == [w["id"] for w in listed] == KNOWN_IN_ORDER
    assert seen["index"] == {w: w for w in KNOWN_IN_ORDER}
    assert seen["models"] == {w["id"]: w["model_count"] for w in listed}
    assert seen["rows"] == {w["id"]: w["configuration_count"] for w in listed}
    assert seen["all_rows"] == 838  # 328 text conversation + 510 in the four others
    for w in listed:  # each workload's own unit, never text conversation's
        assert f"workload {w['id']}: {w['model_count']} models" in seen["summary"]
        assert seen["one"][w["id"]].endswith(f", in {w['unit']}")
        assert seen["one_json"][w["id"]] == w["unit"]
    # literal: the case issue 38 found
    assert seen["one_json"]["text-to-image"] == "Wh per 1,000 images"
    assert seen["dictionary"] == (REPO / "docs" / "data-dictionary.md").read_text().splitlines()[0]


KNOWN_IN_ORDER = KNOWN.split(", ")
