"""`builder fetch` and `builder check-upstream` over the seven task files: every task, one task,
all or nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from helpers import TASKS, slow_after
from hostile import assert_refused, run_cli, tree_digest
from netfaults import closed_port_url

FAST = ["--timeout", "0.5", "--retries", "0", "--deadline", "20"]


def serve_pins(
    repo: Path, server: HTTPServer, changed: dict[str, bytes] | None = None
) -> dict[str, str]:
    """Serve each pinned task and per-model file (or its replacement) on the test server, and record
    those URLs in the lock."""
    lock_path = repo / "upstream" / "lock.json"
    lock = json.loads(lock_path.read_text())
    urls = {}
    for task in TASKS:
        path = f"/public/data/tasks/{task}.json"
        body = (changed or {}).get(task, (repo / "upstream" / f"{task}.json").read_bytes())
        server.expect_request(path).respond_with_data(body, content_type="application/json")
        urls[task] = lock["tasks"][task]["url"] = server.url_for(path)
    for name, entry in lock.get("models", {}).items():  # the per-model files, as pinned
        path = f"/public/data/{entry['file']}"
        body = (changed or {}).get(name, (repo / "upstream" / entry["file"]).read_bytes())
        server.expect_request(path).respond_with_data(body)
        entry["url"] = server.url_for(path)
    lock_path.write_text(json.dumps(lock, indent=2) + "\n")
    return urls


def scaled(repo: Path, task: str, factor: float) -> bytes:
    """A task's (or per-model file's, `models/<name>`) pinned file with every configuration's energy
    and power scaled (so energy stays power x latency)."""
    doc = json.loads((repo / "upstream" / f"{task}.json").read_bytes())
    for conf in doc["configurations"]:
        for key in (
            "energy_per_token_joules",
            "energy_per_request_joules",
            "energy_per_image_joules",
            "energy_per_video_joules",
        ):
            if key in conf:
                conf[key] *= factor
        conf["avg_power_watts"] *= factor
    return json.dumps(doc, indent=1).encode()


def lock_entries(repo: Path) -> dict[str, dict]:
    return json.loads((repo / "upstream" / "lock.json").read_text())["tasks"]


@pytest.mark.slow  # a whole fetch; test_fetch.py's retried fetch is the fetch smoke case
def test_fetch_without_options_fetches_every_task_from_its_recorded_url(
    repo_copy, httpserver: HTTPServer
) -> None:
    models = sorted(p.stem for p in (repo_copy / "upstream" / "models").glob("*.json"))
    bodies = {task: scaled(repo_copy, task, 1.1) for task in TASKS}
    bodies |= {name: scaled(repo_copy, f"models/{name}", 1.1) for name in models}
    urls = serve_pins(repo_copy, httpserver, bodies)
    outcome = run_cli("fetch", "--commit", "abababababababababababababababababababab", *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert sorted(request.path for request, _ in httpserver.log) == sorted(
        [f"/public/data/tasks/{t}.json" for t in TASKS]
        + [f"/public/data/models/{name}.json" for name in models]
    )
    assert f"pinned {len(models)} per-model files ({len(models)} moved)" in outcome.output
    for name in models:
        assert (repo_copy / "upstream" / "models" / f"{name}.json").read_bytes() == bodies[name]
    entries = lock_entries(repo_copy)
    assert list(entries) == list(TASKS)
    for task in TASKS:
        assert (repo_copy / "upstream" / f"{task}.json").read_bytes() == bodies[task]
        assert entries[task]["url"] == urls[task]
        assert entries[task]["commit"] == "abababababababababababababababababababab"
        assert entries[task]["size"] == len(bodies[task])
        assert f"pinned {task}: {len(bodies[task])} bytes" in outcome.output


@pytest.mark.slow  # a whole fetch; test_fetch.py's retried fetch is the fetch smoke case
def test_fetch_one_task_leaves_the_others_alone(repo_copy, httpserver: HTTPServer) -> None:
    serve_pins(repo_copy, httpserver)
    others = {t: (repo_copy / "upstream" / f"{t}.json").read_bytes() for t in TASKS if t != "gpqa"}
    before = lock_entries(repo_copy)
    # new bytes, the same content: its per-model files still agree (new numbers need them too)
    body = scaled(repo_copy, "gpqa", 1.0)
    httpserver.expect_request("/elsewhere/gpqa.json").respond_with_data(body)
    mirror = httpserver.url_for("/elsewhere/gpqa.json")
    outcome = run_cli("fetch", "--task", "gpqa", "--url", mirror, "--commit", "cd" * 20, *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert (repo_copy / "upstream" / "gpqa.json").read_bytes() == body
    after = lock_entries(repo_copy)
    assert (after["gpqa"]["url"], after["gpqa"]["mirror"]) == (before["gpqa"]["url"], mirror)
    assert {t: after[t] for t in others} == {t: before[t] for t in others}
    assert {t: (repo_copy / "upstream" / f"{t}.json").read_bytes() for t in others} == others


@pytest.mark.slow  # a whole fetch and build
def test_a_task_file_fetched_alone_keeps_its_per_model_files(
    repo_copy, httpserver: HTTPServer
) -> None:
    """The pinned gpqa.json re-serialised (same content, new bytes): its per-model files still
    agree with it, so they stay pinned and its output lengths stay published."""
    lengths = repo_copy / "data" / "workloads" / "problem-solving" / "output-lengths.json"
    published = lengths.read_bytes()
    body = json.dumps(json.loads((repo_copy / "upstream" / "gpqa.json").read_bytes()), indent=1)
    httpserver.expect_request("/gpqa2.json").respond_with_data(body)
    url = httpserver.url_for("/gpqa2.json")
    models = lock_models(repo_copy)
    outcome = run_cli("fetch", "--task", "gpqa", "--url", url, "--commit", "22" * 20, *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert "unpinned" not in outcome.output
    assert lock_models(repo_copy) == models
    assert run_cli("build").exit_code == 0
    assert lengths.read_bytes() == published


@pytest.mark.slow  # a whole fetch
def test_a_task_file_its_per_model_files_disagree_with_unpins_them(
    repo_copy, httpserver: HTTPServer
) -> None:
    """A task fetched alone whose output lengths moved: its per-model files no longer agree, so
    they are unpinned, said, and the other tasks' stay."""
    doc = json.loads((repo_copy / "upstream" / "gpqa.json").read_bytes())
    conf = doc["configurations"][0]
    conf["avg_output_len"] *= 1.5
    conf["energy_per_request_joules"] = conf["avg_output_len"] * conf["energy_per_token_joules"]
    httpserver.expect_request("/gpqa3.json").respond_with_data(json.dumps(doc))
    url = httpserver.url_for("/gpqa3.json")
    models = lock_models(repo_copy)
    outcome = run_cli("fetch", "--task", "gpqa", "--url", url, "--commit", "22" * 20, *FAST)
    assert outcome.exit_code == 0, outcome.output
    gpqa = [name for name in models if name.endswith("__gpqa")]
    said = f"unpinned {len(gpqa)} per-model files that disagree with the task file fetched"
    assert said in outcome.output
    assert lock_models(repo_copy) == {k: v for k, v in models.items() if k not in gpqa}


def lock_models(repo: Path) -> dict[str, dict]:
    return json.loads((repo / "upstream" / "lock.json").read_text())["models"]


# a whole fetch; test_fetch.py's retried fetch also pins the text conversation task
@pytest.mark.slow
def test_fetch_with_url_alone_means_the_text_conversation_task(
    repo_copy, httpserver: HTTPServer
) -> None:
    body = scaled(repo_copy, "lm-arena-chat", 1.05)
    httpserver.expect_request("/x.json").respond_with_data(body)
    outcome = run_cli("fetch", "--url", httpserver.url_for("/x.json"), "--commit", "cd" * 20, *FAST)
    assert outcome.exit_code == 0, outcome.output
    assert (repo_copy / "upstream" / "lm-arena-chat.json").read_bytes() == body


# each a fetch of every task
@pytest.mark.parametrize("task", slow_after([pytest.param(t, id=t) for t in TASKS]))
def test_one_bad_task_file_refuses_the_whole_refresh(
    repo_copy, httpserver: HTTPServer, task: str
) -> None:
    doc = json.loads((repo_copy / "upstream" / f"{task}.json").read_bytes())
    doc["configurations"][2]["avg_power_watts"] = float("nan")
    bodies = {t: scaled(repo_copy, t, 1.1) for t in TASKS} | {task: json.dumps(doc).encode()}
    urls = serve_pins(repo_copy, httpserver, bodies)
    before = tree_digest(repo_copy)
    outcome = run_cli("fetch", *FAST)
    assert_refused(
        outcome,
        1,
        (f"{urls[task]}: /configurations/2/avg_power_watts", "nothing was written"),
        before,
        tree_digest(repo_copy),
    )


# each a fetch of every task
@pytest.mark.parametrize("task", slow_after([pytest.param(t, id=t) for t in TASKS]))
def test_one_unreachable_task_refuses_the_whole_refresh(
    repo_copy, httpserver: HTTPServer, task: str
) -> None:
    serve_pins(repo_copy, httpserver, {t: scaled(repo_copy, t, 1.1) for t in TASKS})
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())
    lock["tasks"][task]["url"] = closed_port_url()
    (repo_copy / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    before = tree_digest(repo_copy)
    outcome = run_cli("fetch", *FAST)
    assert_refused(outcome, 3, "ConnectError", before, tree_digest(repo_copy))


@pytest.mark.slow  # a whole fetch; test_workloads_corpus.py's by-rule cases word the disagreement
def test_a_fetched_model_that_disagrees_with_another_task_is_refused(
    repo_copy, httpserver: HTTPServer
) -> None:
    doc = json.loads((repo_copy / "upstream" / "gpqa.json").read_bytes())
    for conf in doc["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-14B":
            conf["total_params_billions"] = 14.8
    httpserver.expect_request("/gpqa.json").respond_with_data(json.dumps(doc))
    url = httpserver.url_for("/gpqa.json")
    before = tree_digest(repo_copy)
    outcome = run_cli("fetch", "--task", "gpqa", "--url", url, *FAST)
    expected = (
        f"{url}: model Qwen/Qwen3-14B: expected one total_params_billions per model "
        "(14.0 in upstream/lm-arena-chat.json), found 14.8"
    )
    assert_refused(outcome, 1, expected, before, tree_digest(repo_copy))


@pytest.mark.slow  # a whole fetch of a refused upstream
def test_a_task_file_of_another_task_is_refused(repo_copy, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/gpqa.json").respond_with_data(
        (repo_copy / "upstream" / "video-chat.json").read_bytes()
    )
    url = httpserver.url_for("/gpqa.json")
    before = tree_digest(repo_copy)
    outcome = run_cli("fetch", "--task", "gpqa", "--url", url, *FAST)
    assert_refused(
        outcome,
        1,
        f'{url}: /task: expected the task file of gpqa, found "video-chat"',
        before,
        tree_digest(repo_copy),
    )


def test_unknown_task_is_a_usage_error(repo_copy) -> None:
    before = tree_digest(repo_copy)
    for command in ("fetch", "check-upstream"):
        outcome = run_cli(command, "--task", "text-to-audio", *FAST)
        assert_refused(
            outcome,
            2,
            "expected one of lm-arena-chat, gpqa, sourcegraph-fim, image-chat, video-chat, "
            "text-to-image, "
            "text-to-video",
            before,
            tree_digest(repo_copy),
        )


def test_check_upstream_reports_every_task(repo_copy, httpserver: HTTPServer) -> None:
    serve_pins(repo_copy, httpserver, {"image-chat": scaled(repo_copy, "image-chat", 1.2)})
    before = tree_digest(repo_copy)
    moved = run_cli("check-upstream", *FAST)
    assert moved.exit_code == 4, moved.output
    states = sorted(line.split(": ")[:2] for line in moved.output.splitlines())
    models = [["unchanged", p.stem] for p in (repo_copy / "upstream" / "models").glob("*.json")]
    assert states == sorted(
        [["moved", "image-chat"]] + [["unchanged", t] for t in TASKS if t != "image-chat"] + models
    )
    one = run_cli("check-upstream", "--task", "gpqa", *FAST)
    assert (one.exit_code, one.output.split(": ")[:2]) == (0, ["unchanged", "gpqa"])
    assert tree_digest(repo_copy) == before


def test_check_upstream_exits_3_when_any_task_is_unreachable(
    repo_copy, httpserver: HTTPServer
) -> None:
    serve_pins(repo_copy, httpserver, {"image-chat": scaled(repo_copy, "image-chat", 1.2)})
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())
    lock["tasks"]["video-chat"]["url"] = closed_port_url()
    (repo_copy / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    outcome = run_cli("check-upstream", *FAST)
    assert outcome.exit_code == 3, outcome.output
    assert "unreachable: video-chat: " in outcome.output
    assert "moved: image-chat: " in outcome.output
    assert "unchanged: gpqa: " in outcome.output
