"""Hostile limits: sizes, cycles, caps, tracebacks and fetch answers that must end in one clear
line.

Every CLI case runs one command on one bad input and holds it to every promise (tests/hostile.py):
the exit code, a one-line message naming the file, row, option or variable, no traceback, and the
whole scratch folder hashed before and after identical. The size cases stay cheap: a cap lowered by
monkeypatch for the command, and the pure rule at the real cap.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import builder.fetch
import builder.files
import builder.upstream_task
import builder.validate.crossfile
import builder.validate.run
from builder import jsonschemas
from builder.cli import UNEXPECTED, run
from builder.errors import InputError, UpstreamError
from builder.jsonschemas import MAX_RESOLVED_NODES, lookup, resolved
from builder.layout import MAX_CONFIGURATIONS_PER_TASK, MAX_GPUS_PER_TASK, MAX_MODELS_PER_TASK
from builder.upstream_task import check_caps
from builder.validate import crossfile
from consumer_release import CONSUMER_FILES, GIT_IDENTITY, git
from helpers import REPO, copy_package, forget_schemas, slow_after
from hostile import Outcome, assert_refused, run_cli, tree_digest
from rules import rule_problems

LLM_PATH = "/public/data/tasks/lm-arena-chat.json"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]
SHA = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"


def one_line(outcome: Outcome) -> str:
    """The one error line of a refused command (problem lines above it name the places)."""
    errors = [line for line in outcome.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, outcome.output
    return errors[0]


def refused(root: Path, args: list[str], code: int, names: str | tuple[str, ...]) -> Outcome:
    before = tree_digest(root)
    outcome = run_cli(*args)
    assert_refused(outcome, code, names, before, tree_digest(root))
    one_line(outcome)
    return outcome


@pytest.fixture
def fresh_schemas() -> Iterator[None]:
    """The schema caches emptied before and after a case that edits schemas/ of its repo copy."""
    forget_schemas()
    yield
    forget_schemas()


@pytest.fixture
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder.fetch, "sleep", lambda _seconds: None)


# ---------------------------------------------------------------------------------------------
# 1. The descriptor check is linear in resources: many appended resources, each reported once.

MANY = 300  # enough to show one finding per resource; 10,000 are timed in benchmarks/HISTORY.md


def appended(make: Callable[[int], dict[str, Any]]) -> Callable[[dict[str, Any]], None]:
    def edit(desc: dict[str, Any]) -> None:
        desc["resources"] += [make(i) for i in range(MANY)]

    return edit


DESCRIPTORS = [
    pytest.param(
        appended(lambda i: {"name": f"extra-{i}", "path": f"https://evil.example/{i}.csv"}),
        f"/resources/{{last}}: expected only the resources the builder writes, found one named "
        f'"extra-{MANY - 1}"',
        id="url-paths",
    ),
    pytest.param(
        appended(
            lambda i: {
                "name": f"extra-{i}",
                "path": "data/index.json",
                "schema": "https://evil.example/s.json",
            }
        ),
        "/resources/{last}: expected only the resources the builder writes",
        id="remote-schemas",
    ),
    pytest.param(
        appended(lambda i: {"name": "index-document", "path": "data/index.json"}),
        "expected each resource once",
        id="one-name-again",
    ),
]


def edit_descriptor(root: Path, edit: Callable[[dict[str, Any]], None]) -> int:
    """Apply `edit` to root's datapackage.json; return the index of the last resource it appends."""
    path = root / "datapackage.json"
    desc = json.loads(path.read_bytes())
    last = len(desc["resources"]) + MANY - 1
    edit(desc)
    path.write_text(json.dumps(desc, indent=2))
    return last


@pytest.mark.parametrize(("edit", "named"), DESCRIPTORS)
def test_many_appended_resources_are_each_reported_by_rule(
    reused_copy: Path, edit, named: str
) -> None:
    """validate's checks (tests/rules.py) on the edited descriptor, one line a problem."""
    last = edit_descriptor(reused_copy, edit)
    found = rule_problems(reused_copy / "data")
    assert any(
        line.startswith("datapackage.json") and named.format(last=last) in line for line in found
    ), found[-3:]
    assert sum(line.count("datapackage.json: /resources/") for line in found) >= MANY


# A whole validate each: the first in the fast tier, the others slow (every one runs by rule above).
@pytest.mark.parametrize(("edit", "named"), slow_after(DESCRIPTORS))
def test_many_appended_resources_are_each_reported(repo_copy: Path, edit, named: str) -> None:
    last = edit_descriptor(repo_copy, edit)
    outcome = refused(repo_copy, ["validate"], 1, ("datapackage.json", named.format(last=last)))
    assert outcome.output.count("datapackage.json: /resources/") >= MANY


# ---------------------------------------------------------------------------------------------
# 2. Schemas with cycles, $refs to nowhere and $refs that explode: one line from validate, build,
# schema-diff.


def defs_with(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / "schemas" / "defs.schema.json"
        schema = json.loads(path.read_bytes())
        edit(schema["$defs"])
        path.write_text(json.dumps(schema, indent=2))

    return apply


def self_through_properties(defs: dict[str, Any]) -> None:
    defs["configuration"]["properties"]["next"] = {"$ref": "#/$defs/configuration"}


def self_through_items(defs: dict[str, Any]) -> None:
    defs["configuration"]["properties"]["alike"] = {
        "type": "array",
        "items": {"$ref": "#/$defs/configuration"},
    }


def two_in_a_loop(defs: dict[str, Any]) -> None:
    defs["ping"] = {"properties": {"pong": {"$ref": "#/$defs/pong"}}}
    defs["pong"] = {"items": {"$ref": "#/$defs/ping"}}
    defs["configuration"]["properties"]["ping"] = {"$ref": "#/$defs/ping"}


def doubling(defs: dict[str, Any]) -> None:
    """40 definitions, each naming the next twice: 2^40 places once expanded, no cycle."""
    for i in range(40):
        defs[f"d{i}"] = {
            "properties": {"p": {"$ref": f"#/$defs/d{i + 1}"}, "q": {"$ref": f"#/$defs/d{i + 1}"}}
        }
    defs["d40"] = {"type": "string"}
    defs["configuration"]["properties"]["next"] = {"$ref": "#/$defs/d0"}


def nowhere(defs: dict[str, Any]) -> None:
    defs["configuration"]["properties"]["gpu"] = {"$ref": "#/$defs/no-such-definition"}


CYCLE = "expected $refs that end, found a cycle through"
# The commands run with the cap lowered (small_node_cap) to 8 times today's largest schema (640
# nodes): a schema that explodes is walked that far, not 100,000 nodes, each time it is resolved.
# The rule at its real cap: test_resolved_is_bounded_at_any_depth_and_width.
SMALL_NODES = 5_000
EXPLODES = f"expected $refs that expand to at most {SMALL_NODES:,} nodes, found more"


@pytest.fixture
def small_node_cap(fresh_schemas: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh_schemas, with the node cap lowered to SMALL_NODES."""
    monkeypatch.setattr(jsonschemas, "MAX_RESOLVED_NODES", SMALL_NODES)


SCHEMAS = [
    pytest.param(
        self_through_properties,
        ["validate"],
        ("schemas/", CYCLE, "#/$defs/configuration"),
        id="self-properties-validate",
    ),
    pytest.param(
        self_through_items,
        ["build"],
        ("defs.schema.json", CYCLE, "#/$defs/configuration"),
        id="self-items-build",
    ),
    pytest.param(
        two_in_a_loop,
        ["schema-diff", "{before}", "schemas"],
        ("model.schema.json", CYCLE),
        id="two-in-a-loop-schema-diff",
    ),
    pytest.param(doubling, ["validate"], ("defs.schema.json", EXPLODES), id="doubling-validate"),
    pytest.param(doubling, ["build"], ("defs.schema.json", EXPLODES), id="doubling-build"),
    pytest.param(
        doubling,
        ["schema-diff", "{before}", "schemas"],
        ("model.schema.json", EXPLODES),
        id="doubling-schema-diff",
    ),
    pytest.param(
        nowhere,
        ["build"],
        ("defs.schema.json", "expected every $ref to resolve", "#/$defs/no-such-definition"),
        id="nowhere-build",
    ),
    pytest.param(
        nowhere,
        ["schema-diff", "{before}", "schemas"],
        ("model.schema.json", "#/$defs/no-such-definition"),
        id="nowhere-schema-diff",
    ),
]


# One case per schema fault and per command in the fast tier, the other pairs slow
# (test_resolved_is_bounded_at_any_depth_and_width is the rule's own case).
FAST_SCHEMAS = ("self-properties-validate", "doubling-build", "nowhere-schema-diff")


@pytest.mark.parametrize(
    ("edit", "args", "names"),
    [
        p if p.id in FAST_SCHEMAS else pytest.param(*p.values, id=p.id, marks=pytest.mark.slow)
        for p in SCHEMAS
    ],
)
def test_a_schema_that_loops_or_explodes_is_one_line(
    repo_copy: Path,
    tmp_path: Path,
    small_node_cap: None,
    edit,
    args: list[str],
    names: tuple[str, ...],
) -> None:
    before = tmp_path / "before"
    (before / "schemas").mkdir(parents=True)
    for path in (repo_copy / "schemas").glob("*.schema.json"):
        (before / "schemas" / path.name).write_bytes(path.read_bytes())
    defs_with(edit)(repo_copy)
    refused(tmp_path, [arg.format(before=before) for arg in args], 1, names)


def in_model_schema(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """`edit` on $defs of schemas/model.schema.json holding one empty configuration, which each
    configuration is."""

    def apply(root: Path) -> None:
        path = root / "schemas" / "model.schema.json"
        schema = json.loads(path.read_bytes())
        schema["$defs"] = {"configuration": {"properties": {}}}
        edit(schema["$defs"])
        schema["properties"]["configurations"]["items"] = {"$ref": "#/$defs/configuration"}
        path.write_text(json.dumps(schema, indent=2))

    return apply


MODEL_SELF, MODEL_DOUBLING = in_model_schema(self_through_properties), in_model_schema(doubling)
MODEL_ID = '"https://leadgreen.ai/schemas/v1/model.schema.json"'
MODEL_CYCLE = f'{CYCLE} "#/$defs/configuration"'
DOCUMENTS_DIFF = ["schema-diff", "--documents", "{before}", "."]
MODEL_SCHEMAS = [
    pytest.param(
        MODEL_SELF, ["validate"], f"schemas/model.schema.json: /: {MODEL_CYCLE}", id="self-validate"
    ),
    pytest.param(
        MODEL_DOUBLING, ["build"], f"schemas/model.schema.json: /: {EXPLODES}", id="doubling-build"
    ),
    pytest.param(
        MODEL_SELF,
        DOCUMENTS_DIFF,
        f"error: model.schema.json: {MODEL_ID}: {MODEL_CYCLE}",
        id="self-documents",
    ),
    pytest.param(
        MODEL_SELF, ["build"], f"schemas/model.schema.json: /: {MODEL_CYCLE}", id="self-build"
    ),
    pytest.param(
        MODEL_DOUBLING,
        ["validate"],
        f"schemas/model.schema.json: /: {EXPLODES}",
        id="doubling-validate",
    ),
    pytest.param(
        MODEL_DOUBLING,
        DOCUMENTS_DIFF,
        f"error: model.schema.json: {MODEL_ID}: {EXPLODES}",
        id="doubling-documents",
    ),
]


@pytest.mark.parametrize(("edit", "args", "line"), slow_after(MODEL_SCHEMAS, fast=3))
def test_a_document_schema_that_loops_or_explodes_is_one_clean_line(
    repo_copy: Path,
    tmp_path: Path,
    small_node_cap: None,
    edit,
    args: list[str],
    line: str,
) -> None:
    """The schema file and place once, the fault as resolved() words it: no class name, no quotes
    escaped twice."""
    before = tmp_path / "before"
    before.mkdir()
    if "{before}" in args:  # the old side of schema-diff --documents
        for name in ("data", "schemas"):
            shutil.copytree(repo_copy / name, before / name)
    edit(repo_copy)
    outcome = refused(tmp_path, [arg.format(before=before) for arg in args], 1, "model.schema.json")
    assert line in outcome.output.splitlines(), outcome.output


def test_an_input_schema_with_a_cycle_is_one_line(
    repo_copy: Path, tmp_path: Path, fresh_schemas: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    for path in jsonschemas.INPUT_SCHEMAS.glob("*.json"):
        (folder / path.name).write_bytes(path.read_bytes())
    task = json.loads((folder / "upstream-task.schema.json").read_bytes())
    task["$defs"]["loop"] = {"$ref": "#/$defs/loop"}
    task["properties"]["configurations"] = {"$ref": "#/$defs/loop"}
    (folder / "upstream-task.schema.json").write_text(json.dumps(task))
    monkeypatch.setattr(jsonschemas, "INPUT_SCHEMAS", folder)
    refused(tmp_path, ["build"], 1, ("upstream-task.schema.json", CYCLE, "#/$defs/loop"))


@pytest.mark.slow
def test_a_ref_to_nowhere_is_one_line_at_200_documents_and_more(
    tmp_path: Path, fresh_schemas: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20: with 200 documents or more a $ref to nowhere was a
    referencing.exceptions.Unresolvable traceback."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    from bench import workspace

    work = workspace(4, tmp_path)  # today's upstream four times over under new model names
    # a process of its own: no schema cached here
    built = run_cli("build", subprocess_=True, cwd=work)
    assert built.exit_code == 0, built.output
    assert len(list((work / "data").rglob("*.json"))) >= 200
    path = work / "schemas" / "model.schema.json"
    schema = json.loads(path.read_bytes())
    schema["properties"]["configurations"]["items"] = {"$ref": "#/$defs/no-such-definition"}
    path.write_text(json.dumps(schema, indent=2))
    monkeypatch.chdir(work)
    outcome = refused(work, ["validate"], 1, "error: data: 1 problem(s)")
    line = (
        "schemas/model.schema.json: /: expected every $ref to resolve, found "
        '"#/$defs/no-such-definition"'
    )
    assert line in outcome.output.splitlines(), outcome.output


LOOKED_UP = {
    "https://x/a.json": {
        "$defs": {
            **{"a~b": {"const": 1}, "c/d": [{"const": 10}, {"const": 20}], "e%f": True},
            **{"s": "text", "n": 5, "in": {"$id": "in.json"}},
        }
    },
    "urn:x:b": {"$defs": {"n": {}}},
}


@pytest.mark.parametrize(
    ("base", "ref", "found"),
    [
        ("https://x/a.json", "#/$defs/a~0b", ({"const": 1}, "https://x/a.json")),
        ("https://x/a.json", "#/$defs/c~1d/1", ({"const": 20}, "https://x/a.json")),
        ("https://x/a.json", "#/$defs/e%25f", (True, "https://x/a.json")),
        ("https://x/b.json", "a.json#/$defs/a~0b", ({"const": 1}, "https://x/a.json")),
        ("urn:x:b", "#/$defs/n", ({}, "urn:x:b")),
        ("urn:x:b", "#", (LOOKED_UP["urn:x:b"], "urn:x:b")),
    ],
)
def test_a_ref_names_a_schema_by_its_id_then_a_pointer(base: str, ref: str, found: Any) -> None:
    assert lookup(LOOKED_UP, base, ref) == found


@pytest.mark.parametrize(
    "ref",
    [
        *("#/$defs/c~1d/5", "#/$defs/c~1d/-1", "#/$defs/c~1d/x", "#/$defs/s/0", "#/$defs/zz"),
        *("#anchor", "http://[bad", "nope.json", "https://example.org/x.json", 5, None),
        # %2F separates tokens (jsonschema decodes first), indexes are canonical, no inner $id
        *("#/$defs/c%2Fd/1", "#/$defs/c~1d/01", "#/$defs/c~1d/\u0661", "#/$defs/in"),
        # no schema: neither an object nor a boolean
        *("#/$defs/s", "#/$defs/n", "#/$defs/c~1d"),
    ],
)
def test_a_ref_to_nothing_is_a_lookup_error(ref: Any) -> None:
    with pytest.raises(LookupError):
        lookup(LOOKED_UP, "https://x/a.json", ref)


def test_resolved_is_bounded_at_any_depth_and_width() -> None:
    def check(schema: dict[str, Any]) -> str:
        schema = {"$id": "urn:test", **schema}
        with pytest.raises(InputError) as caught:
            resolved(schema, {"urn:test": schema})
        return str(caught.value)

    assert CYCLE in check({"$ref": "#"})
    assert CYCLE in check({"properties": {"a": {"$ref": "#"}}})
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5000):
        # deeper than the recursion limit: built in memory, never parsed from JSON
        deep = {"items": deep}
    assert "nested" in check(deep)
    wide = {
        "$defs": {"leaf": {"type": "string"}},
        "properties": {str(i): {"$ref": "#/$defs/leaf"} for i in range(MAX_RESOLVED_NODES)},
    }
    assert f"expected $refs that expand to at most {MAX_RESOLVED_NODES:,} nodes" in check(wide)


# ---------------------------------------------------------------------------------------------
# 3. Caps on models, configurations and GPU types per task: build and fetch refuse past them.


def llm_upstream(models: int, per_model: int = 1, gpus: int = 0) -> bytes:
    """The pinned lm-arena-chat rows, each model's first row repeated under `models` model names (on
    `gpus` GPU types, one a model in turn, when given)."""
    doc = json.loads(
        (Path(__file__).resolve().parent.parent / "upstream" / "lm-arena-chat.json").read_bytes()
    )
    first = doc["configurations"][0]
    confs = []
    for m in range(models):
        for s in range(per_model):
            confs.append(
                {
                    **first,
                    "nickname": f"Cap Model {m}",
                    "model_id": f"cap-org/Cap-Model-{m}",
                    "max_num_seqs": 64 * (s + 1),
                    **({"gpu_model": f"GPU{m % gpus}"} if gpus else {}),
                }
            )
    return json.dumps({**doc, "configurations": confs}).encode()


def image_upstream(copies: int) -> bytes:
    doc = json.loads(
        (Path(__file__).resolve().parent.parent / "upstream" / "text-to-image.json").read_bytes()
    )
    return json.dumps({**doc, "configurations": doc["configurations"] * copies}).encode()


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder.upstream_task, "MAX_MODELS_PER_TASK", 20)
    monkeypatch.setattr(builder.upstream_task, "MAX_CONFIGURATIONS_PER_TASK", 700)
    monkeypatch.setattr(builder.upstream_task, "MAX_GPUS_PER_TASK", 3)


CAPS = [
    pytest.param(
        "build",
        "lm-arena-chat",
        llm_upstream(21),
        "expected at most 20 models (model_id) in a task, found 21",
        id="build-models",
    ),
    pytest.param(
        "build",
        "lm-arena-chat",
        llm_upstream(10, per_model=71),
        "expected at most 700 configurations in a task, found 710",
        id="build-configurations",
    ),
    pytest.param(
        "build",
        "text-to-image",
        image_upstream(2),
        "expected at most 700 configurations in a task, found 1,276",
        id="build-image-configurations",
    ),
    pytest.param(
        "build",
        "lm-arena-chat",
        llm_upstream(8, gpus=4),
        "expected at most 3 GPU types (gpu_model) in a task, found 4",
        id="build-gpus",
    ),
    pytest.param(
        "fetch",
        "lm-arena-chat",
        llm_upstream(25),
        "expected at most 20 models (model_id) in a task, found 25",
        id="fetch-models",
    ),
]


@pytest.mark.parametrize(("command", "task", "body", "message"), CAPS)
def test_a_task_past_a_cap_is_refused_by_check_caps(
    small_caps: None, command: str, task: str, body: bytes, message: str
) -> None:
    with pytest.raises(UpstreamError) as caught:
        check_caps(json.loads(body), f"{task}.json")
    assert [str(p) for p in caught.value.problems] == [f"{task}.json: /configurations: {message}"]


# A whole command each: one per command in the fast tier, the other variants slow (every one runs by
# rule above).
FAST_CAPS = ("build-models", "fetch-models")


@pytest.mark.parametrize(
    ("command", "task", "body", "message"),
    [
        p if p.id in FAST_CAPS else pytest.param(*p.values, id=p.id, marks=pytest.mark.slow)
        for p in CAPS
    ],
)
def test_a_task_past_a_cap_is_refused(
    repo_copy: Path,
    tmp_path: Path,
    httpserver: HTTPServer,
    small_caps: None,
    no_pause: None,
    command: str,
    task: str,
    body: bytes,
    message: str,
) -> None:
    if command == "build":
        given = tmp_path / f"{task}.json"
        given.write_bytes(body)
        args = ["build", "--upstream", f"{task}={given}"]
        named: tuple[str, ...] = (str(given), message)
    else:
        httpserver.expect_request(LLM_PATH).respond_with_data(body, content_type="application/json")
        args = ["fetch", "--url", httpserver.url_for(LLM_PATH), "--commit", SHA, *FAST]
        named = (httpserver.url_for(LLM_PATH), message)
    refused(tmp_path, args, 1, named)


def test_build_refuses_a_file_past_the_size_validate_reads(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within the caps on a task a frontier or the CSV of all language models can still pass the
    file cap."""
    for module in (builder.files, builder.validate.run):
        # the CSV of all language models is 207 KiB
        monkeypatch.setattr(module, "MAX_FILE_BYTES", 128 * 1024)
    message = "data/configurations.csv: /: expected a file of at most 0.125 MiB, found 212445 bytes"
    refused(repo_copy, ["build"], 1, message)


def test_validate_refuses_a_workload_past_a_cap(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the package measures B200 and H100
    monkeypatch.setattr(builder.validate.crossfile, "MAX_GPUS_PER_TASK", 1)
    message = "data/models.json: /models: expected at most 1 GPU types in a workload, found 2"
    refused(repo_copy, ["validate"], 1, message)


def test_validate_holds_each_workload_to_the_caps_of_a_task() -> None:
    def models(confs: int, gpus: int) -> dict[str, Any]:
        return {
            "models/a.json": {"configurations": [{"gpu": f"G{i % gpus}"} for i in range(confs)]}
        }

    assert (
        crossfile.check_workload_caps(
            "m.json", MAX_MODELS_PER_TASK, models(MAX_CONFIGURATIONS_PER_TASK, 32)
        )
        == []
    )
    found = crossfile.check_workload_caps(
        "m.json", MAX_MODELS_PER_TASK + 1, models(MAX_CONFIGURATIONS_PER_TASK + 1, 33)
    )
    assert [str(p) for p in found] == [
        "m.json: /models: expected at most 2,000 models in a workload, found 2,001",
        "m.json: /models: expected at most 100,000 configurations in a workload, found 100,001",
        "m.json: /models: expected at most 32 GPU types in a workload, found 33",
    ]


def test_the_caps_hold_at_their_real_values() -> None:
    def doc(confs: int, models: int, gpus: int = 1) -> dict[str, Any]:
        return {
            "configurations": [
                {"model_id": f"org/m{i % models}", "gpu_model": f"G{i % gpus}"}
                for i in range(confs)
            ]
        }

    # at the caps
    check_caps(doc(MAX_CONFIGURATIONS_PER_TASK, MAX_MODELS_PER_TASK, MAX_GPUS_PER_TASK), "x.json")
    with pytest.raises(UpstreamError) as caught:
        check_caps(doc(MAX_CONFIGURATIONS_PER_TASK + 1, 1), "x.json")
    assert [str(p) for p in caught.value.problems] == [
        "x.json: /configurations: expected at most 100,000 configurations in a task, found 100,001"
    ]
    with pytest.raises(UpstreamError) as caught:
        check_caps(doc(MAX_MODELS_PER_TASK + 1, MAX_MODELS_PER_TASK + 1), "x.json")
    assert [str(p) for p in caught.value.problems] == [
        "x.json: /configurations: expected at most 2,000 models (model_id) in a task, found 2,001"
    ]
    with pytest.raises(UpstreamError) as caught:
        check_caps(doc(MAX_GPUS_PER_TASK + 1, 1, MAX_GPUS_PER_TASK + 1), "x.json")
    assert [str(p) for p in caught.value.problems] == [
        "x.json: /configurations: expected at most 32 GPU types (gpu_model) in a task, found 33"
    ]
    at_cap = doc(MAX_GPUS_PER_TASK, 1, MAX_GPUS_PER_TASK)["configurations"]
    # a case fault
    check_caps({"configurations": [*at_cap, {"model_id": "org/m0", "gpu_model": "g0"}]}, "x.json")
    check_caps({"configurations": "not a list"}, "x.json")  # left to the schema
    check_caps([], "x.json")


# ---------------------------------------------------------------------------------------------
# 4. No library exception reaches the user as a traceback: `builder` itself (cli.run), in process.


class PanicLike(BaseException):
    """What pyo3's PanicException is: a BaseException that no `except Exception` catches."""


def raising(exc: BaseException) -> Callable[..., Any]:
    def boom(*_args: Any, **_kwargs: Any) -> Any:
        raise exc

    return boom


UNEXPECTED_CASES = [
    pytest.param(
        "builder.build.build",
        ["build"],
        PanicLike("rpds panicked\x1b[31m"),
        "error: unexpected PanicLike in test_hostile_limits.py:",
        "rpds panicked\\x1b[31m; please report it",
        id="base-exception-build",
    ),
    pytest.param(
        "builder.validate.committed.validate_committed",
        ["validate"],
        RecursionError("maximum recursion depth exceeded"),
        "error: unexpected RecursionError in test_hostile_limits.py:",
        "maximum recursion depth exceeded; please report it",
        id="recursion-validate",
    ),
    pytest.param(
        "builder.release.compat.schema_changes",
        ["schema-diff", "schemas", "schemas"],
        KeyError("line\nfake: /: all good"),
        "error: unexpected KeyError in test_hostile_limits.py:",
        "'line\\nfake: /: all good'; please report it",
        id="keyerror-newline-schema-diff",
    ),
]


@pytest.mark.parametrize(("target", "args", "exc", "start", "end"), UNEXPECTED_CASES)
def test_an_unknown_exception_is_one_escaped_line(
    repo_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
    args: list[str],
    exc: BaseException,
    start: str,
    end: str,
) -> None:
    monkeypatch.setattr(target, raising(exc))
    monkeypatch.setattr(sys, "argv", ["builder", *args])
    before = tree_digest(tmp_path)
    with pytest.raises(SystemExit) as ended:
        run()
    out, err = capsys.readouterr()
    assert ended.value.code == UNEXPECTED == 70
    assert (out + err).count("\n") == 1, err
    assert "\x1b" not in err, err
    assert "Traceback" not in err, err
    assert err.startswith(start), err
    assert err.endswith(f"{end}\n"), err
    assert tree_digest(tmp_path) == before


def test_ctrl_c_still_ends_as_ctrl_c(repo_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("builder.build.build", raising(KeyboardInterrupt()))
    monkeypatch.setattr(sys, "argv", ["builder", "build"])
    with pytest.raises(SystemExit) as ended:  # click's own handling of Ctrl-C: "Aborted!", exit 1
        run()
    assert ended.value.code == 1


# ---------------------------------------------------------------------------------------------
# 5. fetch pins only what build accepts: the relations of a row (builder.relations) refuse it before
# anything is pinned.


def llm_with(edit: Callable[[dict[str, Any]], None]) -> bytes:
    doc = json.loads(
        (Path(__file__).resolve().parent.parent / "upstream" / "lm-arena-chat.json").read_bytes()
    )
    edit(doc["configurations"][0])
    return json.dumps(doc, indent=1).encode()


def p90_below_median(conf: dict[str, Any]) -> None:
    conf["p90_itl_ms"] = conf["median_itl_ms"] / 2


def p99_below_p95(conf: dict[str, Any]) -> None:
    conf["p99_itl_ms"] = conf["p95_itl_ms"] / 2


def more_in_flight_than_seqs(conf: dict[str, Any]) -> None:
    conf["avg_batch_size"] = conf["max_num_seqs"] + 1.5


ROW0 = (
    "/configurations/0/{} (Qwen/Qwen3-14B, B200, 1 GPU(s), max_num_seqs 8): expected at most {} = "
)
PHYSICS = [
    pytest.param(
        p90_below_median, ROW0.format("median_itl_ms", "p90_itl_ms"), id="p90-below-median"
    ),
    pytest.param(p99_below_p95, ROW0.format("p95_itl_ms", "p99_itl_ms"), id="p99-below-p95"),
    pytest.param(
        more_in_flight_than_seqs,
        ROW0.format("avg_batch_size", "max_num_seqs") + "8, found 9.5",
        id="seqs",
    ),
]


@pytest.mark.parametrize(("edit", "message"), slow_after(PHYSICS))  # each a fetch
def test_fetch_refuses_what_build_would_refuse(
    repo_copy: Path, tmp_path: Path, httpserver: HTTPServer, no_pause: None, edit, message: str
) -> None:
    httpserver.expect_request(LLM_PATH).respond_with_data(
        llm_with(edit), content_type="application/json"
    )
    url = httpserver.url_for(LLM_PATH)
    args = ["fetch", "--url", url, "--commit", SHA, *FAST]
    outcome = refused(
        tmp_path, args, 1, (f"{url}: {message}", "1 problem(s) in upstream; nothing was written")
    )
    assert str(tmp_path) not in outcome.output.replace(str(repo_copy), "")  # no scratch path shown


# ---------------------------------------------------------------------------------------------
# 6. A TMPDIR that cannot hold the scratch copy is one line naming TMPDIR.


def tmpdir_a_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = tmp_path / "plain-file"
    plain.write_text("not a folder\n")
    # what TMPDIR says, once gettempdir() has read it
    monkeypatch.setattr(tempfile, "tempdir", str(plain))


def mkdtemp_fails(code: int) -> Callable[[pytest.MonkeyPatch, Path], None]:
    def apply(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        def refuse(*_args: Any, **_kwargs: Any) -> str:
            raise OSError(code, os.strerror(code), str(tmp_path / "tmpdir"))

        monkeypatch.setattr(tempfile, "mkdtemp", refuse)

    return apply


def full_when_copying(monkeypatch: pytest.MonkeyPatch, _tmp_path: Path) -> None:
    """ENOSPC for any write below TMPDIR (the scratch copy), as a full file system answers."""
    real = pathlib.Path.write_bytes

    def write_bytes(self: Path, data: bytes) -> int:
        if str(self).startswith(tempfile.gettempdir()) and "builder-" in str(self):
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)


def full_without_a_name(monkeypatch: pytest.MonkeyPatch, _tmp_path: Path) -> None:
    """ENOSPC as a real full file system raises it from a write: with no file name attached."""
    real = pathlib.Path.write_bytes

    def write_bytes(self: Path, data: bytes) -> int:
        if str(self).startswith(tempfile.gettempdir()) and "builder-" in str(self):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)


TMPDIRS = [
    pytest.param(tmpdir_a_file, ["drift"], "Not a directory", id="a-file-drift"),
    pytest.param(
        mkdtemp_fails(errno.EACCES), ["drift"], "Permission denied", id="unwritable-drift"
    ),
    pytest.param(
        mkdtemp_fails(errno.EROFS), ["drift"], "Read-only file system", id="read-only-drift"
    ),
    pytest.param(full_when_copying, ["drift"], "No space left on device", id="full-drift"),
    pytest.param(
        full_without_a_name, ["drift"], "No space left on device", id="full-drift-no-file-name"
    ),
]


@pytest.mark.parametrize(("make_bad", "args", "reason"), TMPDIRS)
def test_a_tmpdir_that_cannot_hold_the_copy_is_refused_by_scratch_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_bad, args: list[str], reason: str
) -> None:
    """What decides for drift: the scratch folder, made and written as its copy is."""
    from builder.errors import OutputError
    from builder.scratch import scratch_folder

    make_bad(monkeypatch, tmp_path)
    with pytest.raises(OutputError) as caught, scratch_folder(f"builder-{args[0]}-") as folder:
        (folder / "copy.json").write_bytes(b"{}")
    message = str(caught.value)
    for name in ("TMPDIR (", "expected a writable folder with free space", reason, "set TMPDIR"):
        assert name in message, message
    assert "\n" not in message


@pytest.mark.parametrize(("make_bad", "args", "reason"), TMPDIRS)
def test_a_tmpdir_that_cannot_hold_the_copy_is_one_line(
    repo_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_bad,
    args: list[str],
    reason: str,
) -> None:
    make_bad(monkeypatch, tmp_path)
    before = tree_digest(tmp_path)
    outcome = run_cli(*args)
    assert_refused(
        outcome,
        1,
        ("error: TMPDIR (", "expected a writable folder with free space", reason, "set TMPDIR"),
        before,
        tree_digest(tmp_path),
    )
    one_line(outcome)


@pytest.fixture(scope="module")
def committed_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package committed in a new git repository, never released: made once, copied per
    release case."""
    root = copy_package(tmp_path_factory.mktemp("committed") / "pkg")
    for name in ("LICENSE", "DATA-LICENCE.md", ".gitignore", "reader", *CONSUMER_FILES):
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, root / name)
    git(root, "init", "--quiet", "--initial-branch", "main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "data")
    return root


RELEASE_TMPDIRS = [
    pytest.param(tmpdir_a_file, "Not a directory", id="a-file-release"),
    pytest.param(mkdtemp_fails(errno.EACCES), "Permission denied", id="unwritable-release"),
    pytest.param(full_when_copying, "No space left on device", id="full-release"),
]


# A git repository and a release each: the first in the fast tier, the others slow (each fault runs
# through scratch_folder, and through drift, above).
@pytest.mark.parametrize(("make_bad", "reason"), slow_after(RELEASE_TMPDIRS))
def test_a_tmpdir_that_cannot_hold_the_release_copy_is_one_line(
    committed_package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_bad, reason: str
) -> None:
    """release copies the committed data to TMPDIR to check it: refused before it commits or tags
    anything."""
    root = shutil.copytree(committed_package, tmp_path / "pkg", symlinks=True)
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(root)
    make_bad(monkeypatch, tmp_path)
    before = tree_digest(root)  # of .git, the refs, HEAD and config (git status rewrites the index)
    outcome = run_cli("release")
    assert_refused(
        outcome,
        1,
        ("error: TMPDIR (", "expected a writable folder with free space", reason, "set TMPDIR"),
        before,
        tree_digest(root),
    )
    one_line(outcome)
    assert git(root, "status", "--porcelain") == ""


def test_fetch_checks_its_files_without_a_scratch_copy(
    repo_copy: Path,
    tmp_path: Path,
    httpserver: HTTPServer,
    no_pause: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """fetch checks the downloaded bytes in memory: a TMPDIR that is a plain file does not stop
    it."""
    httpserver.expect_request(LLM_PATH).respond_with_data(
        llm_with(lambda _conf: None), content_type="application/json"
    )
    tmpdir_a_file(monkeypatch, tmp_path)
    outcome = run_cli("fetch", "--url", httpserver.url_for(LLM_PATH), "--commit", SHA, *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert "pinned lm-arena-chat" in outcome.output


# ---------------------------------------------------------------------------------------------
# 7. A snapshot that is not the one its lock names: the message names the repair.

REPAIR = "run `builder fetch` to refetch the pin, or `git checkout upstream/` to restore it"


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-2] ^= 1
    path.write_bytes(bytes(data))


def the_next_snapshot(path: Path) -> None:
    """What a fetch stopped between its two renames leaves: the new snapshot, the old lock."""
    path.write_bytes(
        llm_with(lambda conf: conf.update(avg_power_watts=conf["avg_power_watts"] + 1))
    )


def appended_byte(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b" ")


MISMATCHES = [
    pytest.param(flip_a_byte, ["build"], "sha256 expected", id="flipped-byte-build"),
    pytest.param(the_next_snapshot, ["drift"], "sha256 expected", id="killed-fetch-drift"),
    pytest.param(appended_byte, ["build"], "sha256 expected", id="appended-byte-build"),
]


@pytest.mark.parametrize(("edit", "args", "found"), MISMATCHES)
def test_a_snapshot_unlike_its_lock_names_the_repair(
    repo_copy: Path, tmp_path: Path, edit, args: list[str], found: str
) -> None:
    edit(repo_copy / "upstream" / "lm-arena-chat.json")
    refused(
        tmp_path,
        args,
        1,
        ("upstream/lm-arena-chat.json: ", found, "(from upstream/lock.json)", REPAIR),
    )
