"""upstream/lock.json: one entry per task, each checked (keys, types, a plain file name); a bad lock stops the build."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from hostile import assert_refused, run_cli, tree_digest

LOCK = "upstream/lock.json"


def entry(task: str, **values: Any) -> Callable[[dict], None]:
    return lambda lock: lock["tasks"][task].update(values)


def drop_key(task: str, key: str) -> Callable[[dict], None]:
    return lambda lock: lock["tasks"][task].pop(key)


def flat(lock: dict) -> None:
    """The lock as it was before there were several tasks: one entry at the top."""
    only = lock.pop("tasks")["lm-arena-chat"]
    lock.update(only)


CASES = [
    ("flat-single-task-lock", flat, 'expected {"tasks": {TASK: entry, ...}} with at least one task'),
    ("no-tasks", lambda lock: lock.update(tasks={}), 'expected {"tasks": {TASK: entry, ...}} with at least one task'),
    ("key-missing", drop_key("gpqa", "commit"), "/tasks/gpqa: expected exactly the keys"),
    ("extra-key", entry("image-chat", note="x"), "/tasks/image-chat: expected exactly the keys"),
    ("file-outside", entry("gpqa", file="../metadata.toml"), "/tasks/gpqa: file: expected a plain file name inside the lock's folder"),
    ("file-hidden", entry("gpqa", file=".gpqa.json"), "file: expected a plain file name inside the lock's folder"),
    ("file-is-the-lock", entry("gpqa", file="lock.json"), "file: expected a plain file name inside the lock's folder"),
    ("file-not-a-string", entry("gpqa", file=7), "file: expected a plain file name inside the lock's folder"),
    ("two-tasks-one-file", entry("gpqa", file="video-chat.json"), "expected one file per task, found video-chat.json named by several tasks"),
    ("url-not-http", entry("video-chat", url="file:///etc/passwd"), "/tasks/video-chat: url: expected an http(s) URL with a host and no credentials"),
    ("commit-a-number", entry("gpqa", commit=7), "commit: expected a 40-character lowercase hex commit sha, or null, found 7"),
    ("sha256-upper-case", entry("gpqa", sha256="792582EFD1473E9CBC41200DEAC4D420A106C9207C68928CC7E712E3B55132DC"), "sha256: expected 64 lowercase hex characters"),
    ("size-negative", entry("gpqa", size=-1), "size: expected an integer from 0 to"),
    ("size-boolean", entry("gpqa", size=True), "size: expected an integer from 0 to"),
    ("size-a-string", entry("gpqa", size="161530"), "size: expected an integer from 0 to"),
    ("impossible-date", entry("gpqa", retrieved="2026-02-30"), 'retrieved: expected a date as a string "YYYY-MM-DD", found \'2026-02-30\''),
    ("task-name-with-a-slash", lambda lock: lock["tasks"].update({"../gpqa": lock["tasks"].pop("gpqa")}), "expected task names of [a-z0-9] and single '-'"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "expected"), [pytest.param(c, e, id=n) for n, c, e in CASES])
def test_bad_lock_is_refused_and_changes_nothing(repo_copy, change, expected) -> None:
    lock = json.loads((repo_copy / LOCK).read_text())
    change(lock)
    (repo_copy / LOCK).write_text(json.dumps(lock, indent=2) + "\n")
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", "2031-01-01")
    assert_refused(outcome, 1, (LOCK, expected), before, tree_digest(repo_copy))


def test_duplicate_key_in_the_lock_is_refused(repo_copy) -> None:
    text = (repo_copy / LOCK).read_text().replace('"size": 161530,', '"size": 161530,\n      "size": 1,', 1)
    (repo_copy / LOCK).write_text(text)
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", "2031-01-01")
    assert_refused(
        outcome, 1, (LOCK, "expected each key once, found 'size' more than once"), before, tree_digest(repo_copy)
    )


def test_the_lock_pins_the_seven_task_files_in_workload_order(in_repo) -> None:
    tasks = json.loads((in_repo / LOCK).read_text())["tasks"]
    assert list(tasks) == [
        "lm-arena-chat",
        "gpqa",
        "sourcegraph-fim",
        "image-chat",
        "video-chat",
        "text-to-image",
        "text-to-video",
    ]
    assert {t: (e["file"], e["sha256"], e["size"]) for t, e in tasks.items()} == {
        "lm-arena-chat": ("lm-arena-chat.json", "24e25d46cdd6a9d9d58f8de63928d6f42601f9966d22e4d7a478e5f11f89a7ec", 286127),
        "gpqa": ("gpqa.json", "792582efd1473e9cbc41200deac4d420a106c9207c68928cc7e712e3b55132dc", 161530),
        "sourcegraph-fim": ("sourcegraph-fim.json", "e74db077b9cdff916d9a60f482dc5cc1d0be220fc701c7ce0d6408c6c6cf7034", 43583),
        "image-chat": ("image-chat.json", "aeccaca7330c06f6305a6b78a2b633a1f65513eb0fd2cc17d67bbcd6820336ce", 151142),
        "video-chat": ("video-chat.json", "9932b4e57fb59e6a1e021f6f7e5def5c60682af6600eb70ebd0268bdaefaabb0", 87322),
        "text-to-image": ("text-to-image.json", "0e893ef2590fb2750b40b215a122e7b85cb1d8c1b87af1e60e025a1f887940fa", 401622),
        "text-to-video": ("text-to-video.json", "296807e77ac432a113c0f53d63a4d21fb45998b32633f6fc914dfb29f8c48eb1", 249741),
    }  # fmt: skip
