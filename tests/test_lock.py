"""upstream/lock.json: every field variant against the lock's schema and rules (unit), and each
class of bad lock once through `build`, `fetch` and `check-upstream`, refused before use and
changing nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from builder.errors import InputError, ProblemsError
from builder.fetch import Limits
from builder.pin import dump_lock, parse_lock
from hostile import assert_refused, run_cli, tree_digest

REPO = Path(__file__).resolve().parent.parent
LOCK = "upstream/lock.json"
GOOD = (REPO / LOCK).read_text()
SHA = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"
CAP = Limits().max_bytes
LK = f"{LOCK}: /tasks/lm-arena-chat/"
PATH = "/public/data/tasks/lm-arena-chat.json"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]

FILE = (
    "expected a plain file name inside the lock's folder other than lock.json (no '/', no "
    "'..', no leading dot)"
)
URL = "expected an http(s) URL with a host and no credentials"
COMMIT = "expected a 40-character lowercase hex commit sha, or null"
DATE = 'expected a date as a string "YYYY-MM-DD"'
SIZE = f"expected an integer from 0 to {CAP} bytes (fetch's cap)"

FIELDS = [
    ("file", "../../x", f'{LK}file: {FILE}, found "../../x"', "file-parent"),
    ("file", "/etc/passwd", f'{LK}file: {FILE}, found "/etc/passwd"', "file-absolute"),
    ("file", "sub/x.json", f"{LK}file: {FILE}", "file-subfolder"),
    ("file", ".hidden", f"{LK}file: {FILE}", "file-leading-dot"),
    ("file", "a..json", f"{LK}file: {FILE}", "file-dot-dot-inside"),
    ("file", "", f'{LK}file: {FILE}, found ""', "file-empty"),
    ("file", 3, f"{LK}file: {FILE}, found 3", "file-int"),
    ("file", "x.json\n", f"{LK}file: {FILE}", "file-trailing-newline"),
    ("file", "lock.json", f'{LK}file: {FILE}, found "lock.json"', "file-the-lock"),
    (
        "file",
        "gpqa.json",
        f"{LOCK}: /tasks: expected one file per task, found gpqa.json named by several tasks",
        "two-tasks-one-file",
    ),
    (
        "url",
        "ftp://example.org/x.json",
        f'{LK}url: {URL}, found "ftp://example.org/x.json"',
        "url-ftp",
    ),
    ("url", "http://user:pw@example.org/x", f"{LK}url: {URL}", "url-credentials"),
    ("url", "file:///etc/passwd", f"{LK}url: {URL}", "url-file"),
    ("url", "http:///x.json", f"{LK}url: {URL}", "url-no-host"),
    ("url", "http://[::1", f"{LK}url: {URL}", "url-malformed"),
    ("url", "http://example.org:99999/x", f"{LK}url: {URL}", "url-port-past-65535"),
    ("url", "https://example.org/a b", f"{LK}url: {URL}", "url-space"),
    ("commit", "abc", f'{LK}commit: {COMMIT}, found "abc"', "commit-short"),
    ("commit", SHA + "0", f"{LK}commit: {COMMIT}", "commit-41-hex"),
    ("commit", SHA.upper(), f"{LK}commit: {COMMIT}", "commit-uppercase"),
    ("commit", "-" + SHA[1:], f"{LK}commit: {COMMIT}", "commit-option-like"),
    ("commit", 7, f"{LK}commit: {COMMIT}, found 7", "commit-a-number"),
    (
        "sha256",
        "24e25d46",
        f'{LK}sha256: expected 64 lowercase hex characters, found "24e25d46"',
        "sha256-short",
    ),
    ("sha256", "z" * 64, f"{LK}sha256: expected 64 lowercase hex characters", "sha256-not-hex"),
    (
        "sha256",
        "24E25D46CDD6A9D9D58F8DE63928D6F42601F9966D22E4D7A478E5F11F89A7EC",
        f"{LK}sha256: expected 64 lowercase hex characters",
        "sha256-upper-case",
    ),
    ("size", -1, f"{LK}size: {SIZE}, found -1", "size-negative"),
    ("size", "286127", f'{LK}size: {SIZE}, found "286127"', "size-string"),
    ("size", True, f"{LK}size: {SIZE}, found true", "size-boolean"),
    ("size", 286127.0, f"{LK}size: {SIZE}, found 286127.0", "size-float"),
    ("size", CAP + 1, f"{LK}size: {SIZE}, found {CAP + 1}", "size-over-cap"),
    ("retrieved", "26/09/2026", f'{LK}retrieved: {DATE}, found "26/09/2026"', "retrieved-not-iso"),
    (
        "retrieved",
        "2026-02-30",
        f'{LK}retrieved: {DATE}, found "2026-02-30"',
        "retrieved-impossible",
    ),
    ("retrieved", 20260926, f"{LK}retrieved: {DATE}, found 20260926", "retrieved-int"),
]


def flat(text: str) -> str:
    """The lock as it was before there were several tasks: one entry at the top."""
    return json.dumps(json.loads(text)["tasks"]["lm-arena-chat"])


def renamed(task: str) -> Callable[[str], str]:
    return lambda text: text.replace('"lm-arena-chat": {', f'"{task}": {{', 1)


def model_entry_file(file: str) -> Callable[[str], str]:
    """The lock with its first per-model entry naming `file` for its snapshot."""

    def edit(text: str) -> str:
        lock = json.loads(text)
        lock["models"][next(iter(lock["models"]))]["file"] = file
        return json.dumps(lock, indent=2)

    return edit


FIRST_MODEL = next(iter(json.loads(GOOD)["models"]))
TEXT = [
    (
        model_entry_file("models/other.json"),
        f"{LOCK}: /models/{FIRST_MODEL}/file: expected models/{FIRST_MODEL}.json, found "
        '"models/other.json"',
        "model-entry-names-another-file",
    ),
    (
        lambda t: t.replace('"size"', '"size": 1, "size"', 1),
        f'{LOCK}: /tasks/lm-arena-chat: expected each key once, found "size" again',
        "duplicate-key",
    ),
    (
        lambda t: re.sub(r'"size": \d+', '"size": NaN', t, count=1),
        f"{LOCK}: /tasks/lm-arena-chat/size: expected a finite number, found NaN",
        "size-NaN",
    ),
    (
        lambda t: re.sub(r'"size": \d+', '"size": 1' + "0" * 5000, t, count=1),
        f"{LOCK}: /tasks/lm-arena-chat/size: expected an integer within +/-2^53",
        "size-5001-digits",
    ),
    (
        lambda t: t.replace('"retrieved"', '"extra": 1, "retrieved"', 1),
        f"{LOCK}: /tasks/lm-arena-chat: expected no properties beyond the schema's, found 'extra'",
        "unknown-key",
    ),
    (
        lambda t: t.replace('      "commit": "0cd52dab897c5d91a45f4d413038f3b8b4251b0f",\n', "", 1),
        f"{LOCK}: /tasks/lm-arena-chat: expected required property 'commit', found it missing",
        "key-missing",
    ),
    (
        lambda t: "[]",
        f'{LOCK}: /: expected {{"tasks": {{TASK: entry, ...}}}} with at least one task, found []',
        "not-an-object",
    ),
    (
        flat,
        f"{LOCK}: /: expected required property 'tasks', found it missing",
        "flat-single-task-lock",
    ),
    (
        lambda t: '{"tasks": {}}',
        f"{LOCK}: /tasks: expected at least one task, each named by a slug, found {{}}",
        "no-tasks",
    ),
    (
        renamed("../gpqa"),
        f"{LOCK}: /tasks: expected a slug: [a-z0-9] words joined by single '-', found \"../gpqa\"",
        "task-name-with-a-slash",
    ),
    (lambda t: t[:100], f"{LOCK}: line 5 column 14: expected valid JSON", "truncated"),
]


def set_field(key: str, value: Any) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lock = json.loads(text)
        lock["tasks"]["lm-arena-chat"][key] = value
        return json.dumps(lock, indent=2)

    return edit


def refusal(text: str) -> str:
    """Every line parse_lock refuses `text` with."""
    with pytest.raises((InputError, ProblemsError)) as caught:
        parse_lock(text.encode(), LOCK)
    return "\n".join([str(caught.value), *map(str, getattr(caught.value, "problems", []))])


@pytest.mark.parametrize(
    ("key", "value", "message"), [pytest.param(k, v, m, id=n) for k, v, m, n in FIELDS]
)
def test_bad_lock_field_is_refused(key: str, value: Any, message: str) -> None:
    assert message in refusal(set_field(key, value)(GOOD))


@pytest.mark.parametrize(("edit", "message"), [pytest.param(e, m, id=n) for e, m, n in TEXT])
def test_bad_lock_file_is_refused(edit: Callable[[str], str], message: str) -> None:
    assert message in refusal(edit(GOOD))


def test_a_refreshed_lock_is_checked_as_a_read_one() -> None:
    """fetch checks the lock it is about to write with parse_lock, as every later read will."""
    locks = parse_lock(GOOD.encode(), LOCK)
    assert parse_lock(dump_lock(locks), LOCK) == locks
    for field, value, message in (
        ("file", "lock.json", FIELDS[8][2]),
        ("url", "ftp://x", f"{LK}url: {URL}"),
    ):
        bad = {**locks, "lm-arena-chat": replace(locks["lm-arena-chat"], **{field: value})}
        assert message in refusal(dump_lock(bad).decode())


# Through the CLI: one case per class, the classes spread over the commands that read the lock.
BUILD, FETCH, CHECK = (
    ["build", "--date", "2026-12-01"],
    ["fetch", "--url", "SERVER", *FAST],
    ["check-upstream", "--url", "SERVER", *FAST],
)
CLASSES = [
    pytest.param(
        set_field("file", "../../x"),
        f'{LK}file: {FILE}, found "../../x"',
        FETCH,
        id="field-path-escape-fetch",
    ),
    pytest.param(TEXT[0][0], TEXT[0][1], BUILD, id="duplicate-key-build"),
    pytest.param(TEXT[1][0], TEXT[1][1], CHECK, id="non-finite-number-check-upstream"),
    pytest.param(TEXT[5][0], TEXT[5][1], FETCH, id="wrong-shape-fetch"),
    pytest.param(
        set_field("file", "gpqa.json"), FIELDS[9][2], BUILD, id="two-tasks-one-file-build"
    ),
]


@pytest.mark.parametrize(("edit", "message", "command"), CLASSES)
def test_bad_lock_is_refused_before_use_and_changes_nothing(
    reused_copy: Path, httpserver: HTTPServer, command: list[str], edit, message: str
) -> None:
    httpserver.expect_request(PATH).respond_with_data(
        (reused_copy / "upstream" / "lm-arena-chat.json").read_bytes()
    )
    lock = reused_copy / LOCK
    lock.write_text(edit(lock.read_text()))
    around = reused_copy.parent  # the copy and what is beside it
    before = tree_digest(around)
    outcome = run_cli(*[httpserver.url_for(PATH) if arg == "SERVER" else arg for arg in command])
    assert_refused(outcome, 1, (message,), before, tree_digest(around))
    assert len([line for line in outcome.output.splitlines() if LOCK in line]) == 1, outcome.output
    assert not (around / "x").exists()  # where `fetch` wrote before: upstream/../../x


def test_the_lock_pins_the_seven_task_files_in_workload_order() -> None:
    tasks = json.loads(GOOD)["tasks"]
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
        "lm-arena-chat": (
            "lm-arena-chat.json",
            "24e25d46cdd6a9d9d58f8de63928d6f42601f9966d22e4d7a478e5f11f89a7ec",
            286127,
        ),
        "gpqa": (
            "gpqa.json",
            "792582efd1473e9cbc41200deac4d420a106c9207c68928cc7e712e3b55132dc",
            161530,
        ),
        "sourcegraph-fim": (
            "sourcegraph-fim.json",
            "e74db077b9cdff916d9a60f482dc5cc1d0be220fc701c7ce0d6408c6c6cf7034",
            43583,
        ),
        "image-chat": (
            "image-chat.json",
            "aeccaca7330c06f6305a6b78a2b633a1f65513eb0fd2cc17d67bbcd6820336ce",
            151142,
        ),
        "video-chat": (
            "video-chat.json",
            "9932b4e57fb59e6a1e021f6f7e5def5c60682af6600eb70ebd0268bdaefaabb0",
            87322,
        ),
        "text-to-image": (
            "text-to-image.json",
            "0e893ef2590fb2750b40b215a122e7b85cb1d8c1b87af1e60e025a1f887940fa",
            401622,
        ),
        "text-to-video": (
            "text-to-video.json",
            "296807e77ac432a113c0f53d63a4d21fb45998b32633f6fc914dfb29f8c48eb1",
            249741,
        ),
    }
