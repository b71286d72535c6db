"""The five workloads: the v1 documents untouched, each new workload against values worked out by
hand.

Every literal below was computed from the upstream task files with jq and a throwaway script that
shares no code with the builder (lowest energy_per_token_joules per model and GPU among rows with
median_itl_ms <= 500, Wh = J x 10^6 / 3600 rounded to 2 decimals), not by running the builder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from builder.upstream_task import task_fault
from helpers import REPO
from hostile import assert_refused, run_cli, tree_digest
from published_before import LLM_DOCUMENTS_SHA256

DATA = REPO / "data"

# sha256 of the v1 text-conversation documents as committed on main before the new workloads.
V1_SHA256 = {
    rel: digest for rel, digest in LLM_DOCUMENTS_SHA256.items() if not rel.startswith("workloads/")
}

# Per new workload, from its task file: models, configurations, index rows (best entries); the first
# index row (model, gpu, num_gpus, Wh); one model's best per GPU (Wh, median ITL).
EXPECTED = {
    "problem-solving": {
        "task": "gpqa",
        "models": 12,
        "configurations": 187,
        "rows": 22,
        "first": ("GPT OSS 20B", "B200", 1, 7.9),
        "best": ("gpt-oss-120b", {"B200": (11.02, 175.4), "H100": (23.9, 122.6)}),
    },
    "code-completion": {
        "task": "sourcegraph-fim",
        "models": 3,
        "configurations": 50,
        "rows": 4,
        "first": ("Qwen 3 Coder 30B A3B", "B200", 1, 31.08),
        "best": ("qwen-3-coder-480b-a35b", {"B200": (344.44, 98.2)}),
    },
    "image-chat": {
        "task": "image-chat",
        "models": 11,
        "configurations": 173,
        "rows": 19,
        "first": ("Qwen 3 VL 30B A3B Instruct", "B200", 1, 29.2),
        "best": ("gemma-3-12b", {"B200": (34.16, 49.4), "H100": (56.07, 31.6)}),
    },
    "video-chat": {
        "task": "video-chat",
        "models": 6,
        "configurations": 100,
        "rows": 12,
        "first": ("Qwen 3 VL 8B Instruct", "H100", 1, 63.88),
        "best": ("qwen-3-vl-32b-instruct", {"B200": (73.74, 45.0), "H100": (135.73, 31.1)}),
    },
}


def load(rel: str) -> dict:
    return json.loads((DATA / rel).read_text())


def test_the_v1_text_conversation_documents_are_byte_for_byte_unchanged() -> None:
    found = {rel: hashlib.sha256((DATA / rel).read_bytes()).hexdigest() for rel in V1_SHA256}
    assert found == V1_SHA256
    assert sorted(p.relative_to(DATA).as_posix() for p in (DATA / "models").iterdir()) == sorted(
        rel for rel in V1_SHA256 if rel.startswith("models/")
    )


@pytest.mark.parametrize("workload", sorted(EXPECTED))
def test_each_new_workload_has_the_hand_computed_values(workload: str) -> None:
    want = EXPECTED[workload]
    index = load(f"workloads/{workload}/index.json")
    model_list = load(f"workloads/{workload}/models.json")
    models = sorted((DATA / "workloads" / workload / "models").glob("*.json"))
    assert len(models) == len(model_list["models"]) == want["models"]
    assert (
        sum(len(json.loads(p.read_text())["configurations"]) for p in models)
        == want["configurations"]
    )
    assert len(index["rows"]) == want["rows"]
    first = index["rows"][0]
    assert (
        first["model"],
        first["gpu"],
        first["num_gpus"],
        first["wh_per_million_output_tokens"],
    ) == want["first"]
    slug, best = want["best"]
    doc = load(f"workloads/{workload}/models/{slug}.json")
    assert {
        g: (c["wh_per_million_output_tokens"], c["median_itl_ms"]) for g, c in doc["best"].items()
    } == best
    assert index["workload"] == workload
    assert index["source"]["data_url"].endswith(f"/public/data/tasks/{want['task']}.json")


def test_the_new_workloads_hold_510_configurations_32_model_entries_and_57_best_rows() -> None:
    new = [w["id"] for w in load("workloads.json")["workloads"][1:] if w["kind"] == "llm"]
    assert new == ["problem-solving", "code-completion", "image-chat", "video-chat"]
    assert sum(len(load(f"workloads/{w}/models.json")["models"]) for w in new) == 32
    assert sum(len(load(f"workloads/{w}/index.json")["rows"]) for w in new) == 57
    csv = (DATA / "configurations.csv").read_text().splitlines()
    assert sum(1 for line in csv if not line.startswith("text-conversation,")) - 1 == 510
    assert len(csv) - 1 == 328 + 510


def test_gpqa_repeats_its_duplicate_run() -> None:
    """GPT OSS 20B ran twice on 1 H100 at 96 sequences: 0.08762510... J, then 0.09217403... J
    upstream."""
    confs = load("workloads/problem-solving/models/gpt-oss-20b.json")["configurations"]
    repeated = [
        (c["repeat"], c["joules_per_output_token"])
        for c in confs
        if c["row_id"] == "gpt-oss-20b/H100/1/96"
    ]
    assert repeated == [(1, 0.0876251), (2, 0.092174)]
    assert {c["precision"] for c in confs} == {"MXFP4"}


def test_the_workload_list_points_at_every_workload() -> None:
    doc = load("workloads.json")
    assert list(doc) == ["version", "updated", "data_version", "workloads"]
    table = [
        (w["id"], w["name"], w["task"], w["model_count"], w["configuration_count"])
        for w in doc["workloads"]
    ]
    assert table == [
        ("text-conversation", "Text Conversation", "lm-arena-chat", 18, 328),
        ("problem-solving", "Problem Solving", "gpqa", 12, 187),
        ("code-completion", "Code Completion", "sourcegraph-fim", 3, 50),
        ("image-chat", "Image Chat", "image-chat", 11, 173),
        ("video-chat", "Video Chat", "video-chat", 6, 100),
        ("text-to-image", "Text to Image", "text-to-image", 7, 638),
        ("text-to-video", "Text to Video", "text-to-video", 5, 382),
    ]
    first, image = doc["workloads"][0], doc["workloads"][3]
    assert (first["index_url"], first["models_url"]) == (
        "https://leadgreen.ai/api/v1/index.json",
        "https://leadgreen.ai/api/v1/models.json",
    )
    assert (image["index_url"], image["models_url"]) == (
        "https://leadgreen.ai/api/v1/workloads/image-chat/index.json",
        "https://leadgreen.ai/api/v1/workloads/image-chat/models.json",
    )


def test_workload_documents_differ_from_v1_only_where_the_issue_says() -> None:
    index = load("workloads/image-chat/index.json")
    assert index["source"]["workload"] == "Image Chat (image-chat)"
    assert index["source"]["configurations"].startswith("173 stable configurations")
    assert index["reference_row"] == {
        "model": "Qwen 3 VL 32B Instruct",
        "gpu": "H100",
        "num_gpus": 2,
    }
    v1 = load("index.json")
    for key in ("version", "unit", "itl_deadline_ms", "selection", "caveat", "boundary"):
        assert index[key] == v1[key], key
    assert {k for k in v1["source"] if v1["source"][k] != index["source"][k]} == {
        "data_url",
        "workload",
        "configurations",
    }
    entry = next(
        m for m in load("workloads/image-chat/models.json")["models"] if m["slug"] == "gemma-3-12b"
    )
    assert (
        entry["url"] == "https://leadgreen.ai/api/v1/workloads/image-chat/models/gemma-3-12b.json"
    )
    assert entry["page"] == "https://leadgreen.ai/workloads/image-chat/models/gemma-3-12b/"


def test_a_model_in_two_workloads_is_the_same_model_in_both() -> None:
    text, image = (
        load("models/gemma-3-12b.json"),
        load("workloads/image-chat/models/gemma-3-12b.json"),
    )
    keys = ("name", "model_id", "params_b", "active_params_b", "architecture")
    assert (
        [text[k] for k in keys]
        == [image[k] for k in keys]
        == [
            "Gemma 3 12B",
            "google/gemma-3-12b-it",
            12.0,
            12.0,
            "Dense Transformer",
        ]
    )


def test_tables_grow_with_workloads_never_with_models() -> None:
    descriptor = json.loads((REPO / "datapackage.json").read_text())
    tables = [r["name"] for r in descriptor["resources"] if r.get("type") == "table"]
    assert tables == [
        "configurations",
        "configurations-text-to-image",
        "configurations-text-to-video",
    ]
    assert [s["title"].split(": ")[-1] for s in descriptor["sources"]] == [
        "Text Conversation (lm-arena-chat)",
        "Problem Solving (gpqa)",
        "Code Completion (sourcegraph-fim)",
        "Image Chat (image-chat)",
        "Video Chat (video-chat)",
        "Text to Image (text-to-image)",
        "Text to Video (text-to-video)",
        "62 per-model files (<org>__<model>__<task>.json, output lengths)",
    ]


@pytest.mark.slow  # a whole build
def test_upstream_task_equals_file_replaces_that_task_only(repo_copy, tmp_path: Path) -> None:
    doc = json.loads((repo_copy / "upstream" / "video-chat.json").read_text())
    doc["configurations"] = [
        c for c in doc["configurations"] if c["model_id"] != "Qwen/Qwen3-Omni-30B-A3B-Instruct"
    ]
    smaller = tmp_path / "video.json"
    smaller.write_text(json.dumps(doc))
    out = repo_copy / "data"
    outcome = run_cli("build", "--upstream", f"video-chat={smaller}", "--date", "2026-12-01")
    assert outcome.exit_code == 0, outcome.output
    assert not (out / "workloads/video-chat/models/qwen-3-omni-30b-a3b-instruct.json").exists()
    assert (out / "workloads/image-chat/models/qwen-3-omni-30b-a3b-instruct.json").exists()
    assert json.loads((out / "workloads.json").read_text())["workloads"][4]["model_count"] == 5
    for rel in V1_SHA256:
        assert (out / rel).read_bytes() == (DATA / rel).read_bytes()
    source = json.loads((repo_copy / "datapackage.json").read_text())["sources"][4]
    assert (source["path"], source["version"]) == (str(smaller), "")


@pytest.mark.slow  # a whole build
def test_plain_upstream_file_is_the_text_conversation_task(repo_copy) -> None:
    """The pinned files given as --upstream FILE and TASK=FILE rebuild the committed data exactly
    (the descriptor's sources then name the files given instead of their upstream URLs)."""
    before = tree_digest(repo_copy / "data")
    both = run_cli(
        "build",
        "--upstream",
        "upstream/lm-arena-chat.json",
        "--upstream",
        "gpqa=upstream/gpqa.json",
    )
    assert both.exit_code == 0, both.output
    assert both.output.splitlines()[1:] == ["  changed: datapackage.json"]
    assert tree_digest(repo_copy / "data") == before
    sources = json.loads((repo_copy / "datapackage.json").read_text())["sources"]
    assert [s["path"] for s in sources[:2]] == ["upstream/lm-arena-chat.json", "upstream/gpqa.json"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--upstream", "text-to-audio=x.json"],
            "expected tasks among lm-arena-chat, gpqa, sourcegraph-fim, image-chat, video-chat, "
            "text-to-image, text-to-video, found text-to-audio",
            id="unknown-task",
        ),
        pytest.param(
            ["--upstream", "gpqa=a.json", "--upstream", "gpqa=b.json"],
            "expected each task once, found gpqa given twice",
            id="task-twice",
        ),
        pytest.param(
            ["--upstream", "a.json", "--upstream", "lm-arena-chat=b.json"],
            "expected each task once, found lm-arena-chat given twice",
            id="plain-and-named",
        ),
        pytest.param(
            ["--upstream", "gpqa="], "expected FILE or TASK=FILE, found 'gpqa='", id="no-file"
        ),
    ],
)
def test_upstream_option_misuse_is_a_usage_error(repo_copy, args: list[str], message: str) -> None:
    before = tree_digest(repo_copy)
    assert_refused(run_cli("build", *args), 2, message, before, tree_digest(repo_copy))


def test_a_task_missing_from_the_lock_is_refused(repo_copy) -> None:
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())
    del lock["tasks"]["sourcegraph-fim"]
    (repo_copy / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", "2026-12-01")
    assert_refused(
        outcome,
        1,
        "upstream/lock.json: expected an entry for task sourcegraph-fim, found none",
        before,
        tree_digest(repo_copy),
    )


@pytest.mark.slow  # whole builds and a diff; test_diff.py's text diff is the diff smoke case
def test_diff_and_large_change_guard_name_the_workload(repo_copy, tmp_path: Path) -> None:
    """GPT OSS 20B's energy x 1.5 in gpqa: the diff and the release guard name problem-solving's
    keys."""
    from builder.diff import diff_trees, load_docs, render_text
    from builder.release.rules import LARGE_CHANGE_PCT

    doc = json.loads((repo_copy / "upstream" / "gpqa.json").read_text())
    for conf in doc["configurations"]:
        if conf["model_id"] == "openai/gpt-oss-20b":
            conf["energy_per_token_joules"] *= 1.5
            conf["energy_per_request_joules"] *= 1.5
            conf["output_throughput_tokens_per_sec"] /= 1.5
    changed = tmp_path / "gpqa.json"
    changed.write_text(json.dumps(doc))
    assert run_cli("build", "--upstream", f"gpqa={changed}", "--date", "2026-12-01").exit_code == 0
    diff = diff_trees(load_docs(str(DATA)), load_docs(str(repo_copy / "data")))
    lines = render_text(diff).splitlines()
    assert (
        "best changed: problem-solving:gpt-oss-20b B200 joules_per_output_token: 0.0284465 -> "
        "0.0426698 (+50.0 %)" in lines
    )
    assert any(
        line.startswith("  ~ problem-solving:gpt-oss-20b/H100/1/96 #2 tokens_per_second: ")
        for line in lines
    )
    assert not any(
        line.startswith(("best changed: gpt-oss", "workloads added", "models ")) for line in lines
    )
    assert (
        "problem-solving:gpt-oss-20b B200 wh_per_million_output_tokens: 7.9 -> 11.85 (+50.0 %)"
        in diff.large_changes(LARGE_CHANGE_PCT)
    )


def test_the_changelog_says_when_a_precision_value_is_new(in_repo) -> None:
    """Against a tree without problem solving (as released before the workloads), MXFP4 is new."""
    from builder.diff import diff_trees, load_docs
    from builder.release.rules import Version, changelog_entry

    new = load_docs("data")
    old = {
        rel: doc for rel, doc in new.items() if not rel.startswith(("workloads/", "workloads.json"))
    }
    diff = diff_trees(old, new)
    assert diff.workloads.added == [
        "code-completion",
        "image-chat",
        "problem-solving",
        "text-to-image",
        "text-to-video",
        "video-chat",
    ]
    assert diff.precisions.added == ["MXFP4"]
    entry = changelog_entry(
        Version("2026-11-29"), "1", Version("2026-10-19"), diff, None, "upstream"
    )
    assert (
        "workloads added: code-completion, image-chat, problem-solving, text-to-image, "
        "text-to-video, video-chat" in entry
    )
    assert "precision values added: MXFP4" in entry
    assert "consumers who switch on precision should handle MXFP4." in entry


def test_a_generation_task_file_naming_another_task_is_refused(repo_copy, tmp_path: Path) -> None:
    """The image file relabelled as the video task: build names the file, the field, expected and
    found."""
    doc = json.loads((repo_copy / "upstream" / "text-to-image.json").read_text())
    image = tmp_path / "t2i.json"
    image.write_text(
        json.dumps({**doc, "task": "text-to-video", "task_display_name": "Text to Video"})
    )
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--upstream", f"text-to-image={image}")
    expected = (f'{image}: /task: expected the task file of text-to-image, found "text-to-video"',)
    assert_refused(outcome, 1, expected, before, tree_digest(repo_copy))


TASK = "text-to-image"
TASK_FIELDS = [
    pytest.param({}, [], id="neither-given"),
    pytest.param(
        {"task": "text-to-image", "task_display_name": "Text to Image"}, [], id="both-agree"
    ),
    pytest.param(
        {"task": "text-to-video"},
        ['x.json: /task: expected the task file of text-to-image, found "text-to-video"'],
        id="task-differs",
    ),
    pytest.param({"task_display_name": "Text to image"}, [], id="display-name-is-upstream's-own"),
    pytest.param(
        {"task": "text-to-image\u001b[31m"},
        [
            "x.json: /task: expected the task file of text-to-image, found "
            '"text-to-image\\u001b[31m"'
        ],
        id="task-with-escape-shown-escaped",
    ),
]


@pytest.mark.parametrize(("given", "expected"), TASK_FIELDS)
def test_task_fault_holds_a_generation_file_to_its_pinned_task(
    given: dict, expected: list[str]
) -> None:
    assert [
        str(problem) for problem in task_fault({"configurations": [], **given}, "x.json", TASK)
    ] == expected
