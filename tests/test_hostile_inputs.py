# message)
"""Trust at the edges: hostile upstream files, metadata, lock fields, options, git refs and HTTP
peers.

Every case runs one command on one bad input and holds it to every promise (tests/hostile.py):
the exit code (2 usage error, 1 refused input, 3 unreachable), a message naming the file, row,
key or option, no traceback, and the whole scratch folder (the repo copy and the bad inputs
beside it) hashed before and after identical, with nothing left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from builder.diff import diff_trees, load_docs
from builder.errors import BuilderError, FetchError, InputError, ProblemsError, UpstreamError
from builder.fetch import Limits, download
from builder.metadata import load_metadata
from builder.upstream import parse_upstream
from factory import row, upstream
from helpers import REPO, slow_after
from hostile import assert_refused, run_cli, tree_digest

PATH = "/public/data/tasks/lm-arena-chat.json"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]
ID = "(test-org/Test-Model-7B, H100, 1 GPU(s), max_num_seqs 64)"
SHA = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"
METADATA_TEXT = (Path(__file__).resolve().parent.parent / "metadata.toml").read_text()
CAP = Limits().max_bytes
MAX_MEASURE = 1e12  # the input schema's cap on every measure


def refused(root: Path, args: list[str], code: int, names: str | tuple[str, ...]) -> str:
    """Run the command; it must be refused as promised and leave everything below root as it was."""
    before = tree_digest(root)
    outcome = run_cli(*args)
    assert_refused(outcome, code, names, before, tree_digest(root))
    return outcome.output


# ---------------------------------------------------------------------------------------------
# 1. Upstream numbers JSON or Python cannot carry, and keys given twice: `build --upstream` and
# `fetch`


def text_with(field: str, literal: str, **overrides: object) -> bytes:
    """One valid upstream row whose `field` is written as `literal`, verbatim (NaN, 1e999,
    10**5000...)."""
    doc = json.dumps(upstream([row(**{field: "@VALUE@"}, **overrides)]))
    return doc.replace('"@VALUE@"', literal).encode()


def duplicate_in_row() -> bytes:
    text = json.dumps(upstream([row()]))
    twice = '"energy_per_token_joules": 0.2, "energy_per_token_joules": 9e9'
    return text.replace('"energy_per_token_joules": 0.2', twice).encode()


def duplicate_top_level() -> bytes:
    text = json.dumps(upstream([row()]))
    return text.replace('{"task"', '{"configurations": [], "task"', 1).encode()


BIG = 2**53 + 1
FINITE = "expected a finite number, found"
WITHIN = "expected an integer within +/-2^53, found"
UPSTREAM = [
    pytest.param(
        text_with("energy_per_token_joules", "1e999"),
        ("/configurations/0/energy_per_token_joules", f"{FINITE} 1e999"),
        id="energy-1e999",
    ),
    pytest.param(
        text_with("energy_per_token_joules", "-1e999"),
        ("/configurations/0/energy_per_token_joules", f"{FINITE} -1e999"),
        id="energy-minus-1e999",
    ),
    pytest.param(
        text_with("median_itl_ms", "NaN"),
        ("/configurations/0/median_itl_ms", f"{FINITE} NaN"),
        id="median-itl-NaN",
    ),
    pytest.param(
        text_with("p99_itl_ms", "Infinity"),
        ("/configurations/0/p99_itl_ms", f"{FINITE} Infinity"),
        id="p99-itl-Infinity",
    ),
    pytest.param(
        text_with("avg_power_watts", "-Infinity"),
        ("/configurations/0/avg_power_watts", f"{FINITE} -Infinity"),
        id="power-minus-Infinity",
    ),
    pytest.param(
        text_with("num_gpus", str(BIG), tensor_parallel=BIG),
        ("/configurations/0/num_gpus", f"{WITHIN} {BIG}"),
        id="num-gpus-2^53+1",
    ),
    pytest.param(
        text_with("max_num_seqs", "1" + "0" * 5000),
        (
            "/configurations/0/max_num_seqs",
            f"{WITHIN} 10000000000000000000...0000000000 (5001 characters)",
        ),
        id="max-num-seqs-10^5000",
    ),
    pytest.param(
        text_with("avg_output_len", "1" + "0" * 30),
        ("/configurations/0/avg_output_len", f"{WITHIN} 1{'0' * 30}"),
        id="output-len-10^30",
    ),
    pytest.param(
        text_with(
            "energy_per_token_joules",
            "1e306",
            avg_power_watts=1e306,
            output_throughput_tokens_per_sec=1.0,
        ),
        (
            f"/configurations/0/energy_per_token_joules {ID}",
            "expected a finite number > 0 and <= 1e12, found 1e+306",
        ),
        id="energy-1e306-wh-overflows",
    ),
    pytest.param(
        duplicate_in_row(),
        ("/configurations/0", 'expected each key once, found "energy_per_token_joules" again'),
        id="duplicate-key-in-row",
    ),
    pytest.param(
        duplicate_top_level(),
        ('/: expected each key once, found "configurations" again',),
        id="duplicate-key-top-level",
    ),
    pytest.param(
        text_with("energy_per_request_joules", "NaN"),
        ("/configurations/0/energy_per_request_joules", f"{FINITE} NaN"),
        id="energy-per-request-NaN",
    ),
    pytest.param(
        json.dumps(upstream([row()]) | {"count": 2**60}).encode(),
        ("/count", f"{WITHIN} {2**60}"),
        id="top-level-int-2^60",
    ),
    pytest.param(
        text_with("nickname", '"Test @FF@ Model"').replace(b"@FF@", b"\xff"),
        ("byte 108", "expected UTF-8 JSON, found undecodable bytes (invalid start byte)"),
        id="invalid-utf8",
    ),
]
UPSTREAM_CLASSES = (
    "energy-1e999",
    "max-num-seqs-10^5000",
    "energy-1e306-wh-overflows",
    "duplicate-key-in-row",
    "invalid-utf8",
)


@pytest.mark.parametrize(("body", "names"), UPSTREAM)
def test_unsafe_upstream_numbers_are_refused(body: bytes, names: tuple) -> None:
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(body, "bad.json", "lm-arena-chat")
    lines = [str(problem) for problem in caught.value.problems]
    assert all(
        any(line.startswith("bad.json: ") and name in line for line in lines) for name in names
    ), lines


# Each class through the CLI (a whole build or fetch): all slow (every case runs by the parser
# above).
CLI_UPSTREAM = slow_after([p for p in UPSTREAM if p.id in UPSTREAM_CLASSES], fast=0)


@pytest.mark.parametrize(("body", "names"), CLI_UPSTREAM)
def test_build_refuses_unsafe_upstream_numbers(
    repo_copy: Path, tmp_path: Path, body: bytes, names: tuple
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(body)
    out = refused(tmp_path, ["build", "--upstream", str(bad)], 1, (f"{bad}: ", *names))
    assert out.splitlines()[-1].endswith("nothing was written")


@pytest.mark.parametrize(("body", "names"), CLI_UPSTREAM)
def test_fetch_refuses_unsafe_upstream_numbers(
    repo_copy: Path, tmp_path: Path, httpserver: HTTPServer, body: bytes, names: tuple
) -> None:
    httpserver.expect_request(PATH).respond_with_data(body, content_type="application/json")
    url = httpserver.url_for(PATH)
    refused(tmp_path, ["fetch", "--url", url, *FAST], 1, (f"{url}: ", *names))


def test_the_sane_bound_keeps_every_derived_value_finite_and_exact() -> None:
    """A row at MAX_MEASURE wherever upstream's relations allow is accepted, and the values
    derived from it are exact."""
    top = dict.fromkeys(
        ("avg_power_watts", "energy_per_request_joules", "energy_per_token_joules"), MAX_MEASURE
    )
    body = json.dumps(
        upstream([row(**top, output_throughput_tokens_per_sec=1.0, avg_output_len=1.0)])
    ).encode()
    (parsed,), _ = parse_upstream(body, "x", "lm-arena-chat")
    assert parsed.energy_per_token_joules * 1e6 / 3600 < 2**53
    assert round(parsed.avg_power_watts) < 2**53


# ---------------------------------------------------------------------------------------------
# 2. metadata.toml: a schema of its own (types, required keys, no unknown keys)


def set_line(key: str, value: str) -> Callable[[str], str]:
    """Replace the first line `key = ...` (at the start of a line) with `key = value`."""

    def edit(text: str) -> str:
        new, n = re.subn(rf"^{re.escape(key)} = .*$", f"{key} = {value}", text, count=1, flags=re.M)
        assert n == 1, key
        return new

    return edit


def drop_table(name: str) -> Callable[[str], str]:
    """Remove the table [name] and its keys (up to the next table header)."""

    def edit(text: str) -> str:
        new, n = re.subn(
            rf"^\[{re.escape(name)}\].*\n(?:(?!\[).*\n)*", "", text, count=1, flags=re.M
        )
        assert n == 1, name
        return new

    return edit


def add_after(anchor: str, line: str) -> Callable[[str], str]:
    return lambda text: text.replace(anchor, f"{anchor}\n{line}", 1)


def source_as_string(text: str) -> str:
    return 'source = "ML.ENERGY"\n' + drop_table("source")(text)


MT = "metadata.toml: "
DEADLINE = f"{MT}/header/itl_deadline_ms: expected a finite number > 0 and <= 2^53, found"
BASE_URL = (
    f"{MT}/base_url: expected an https URL with a host, no credentials and no trailing "
    f"slash, query or fragment, found"
)
METADATA = [
    pytest.param(set_line("itl_deadline_ms", "inf"), f"{DEADLINE} inf", id="deadline-inf"),
    pytest.param(set_line("itl_deadline_ms", "-inf"), f"{DEADLINE} -inf", id="deadline-minus-inf"),
    pytest.param(set_line("itl_deadline_ms", "nan"), f"{DEADLINE} nan", id="deadline-nan"),
    pytest.param(set_line("itl_deadline_ms", "0"), f"{DEADLINE} 0", id="deadline-zero"),
    pytest.param(set_line("itl_deadline_ms", '"fast"'), f'{DEADLINE} "fast"', id="deadline-string"),
    pytest.param(set_line("itl_deadline_ms", "true"), f"{DEADLINE} true", id="deadline-boolean"),
    pytest.param(
        set_line("itl_deadline_ms", str(2**60)), f"{DEADLINE} {2**60}", id="deadline-2^60"
    ),
    pytest.param(
        set_line("itl_deadline_ms", "1" + "0" * 5000),
        f"{MT}expected TOML, found a value Python cannot read",
        id="deadline-5001-digits",
    ),
    pytest.param(set_line("base_url", "3"), f"{BASE_URL} 3", id="base-url-int"),
    pytest.param(
        set_line("base_url", '"http://leadgreen.ai"'),
        f'{BASE_URL} "http://leadgreen.ai"',
        id="base-url-http",
    ),
    pytest.param(
        set_line("base_url", '"https://leadgreen.ai/"'),
        f'{BASE_URL} "https://leadgreen.ai/"',
        id="base-url-trailing-slash",
    ),
    pytest.param(
        set_line("base_url", '"https://leadgreen.ai?x"'),
        f'{BASE_URL} "https://leadgreen.ai?x"',
        id="base-url-query",
    ),
    pytest.param(
        set_line("base_url", '"https://user:pw@leadgreen.ai"'),
        f'{BASE_URL} "https://user:pw@leadgreen.ai"',
        id="base-url-credentials",
    ),
    pytest.param(
        set_line("base_url", r'"https://leadgreen.ai\\n"'),
        f'{BASE_URL} "https://leadgreen.ai\\n"',
        id="base-url-trailing-newline",
    ),
    pytest.param(
        drop_table("header"),
        f"{MT}/: expected required property 'header', found it missing",
        id="missing-table",
    ),
    pytest.param(
        set_line("caveat", '""'),
        f"{MT}/header/caveat: expected a non-empty string of at most 2,000 characters, without "
        f'control or format characters, found ""',
        id="empty-caveat",
    ),
    pytest.param(
        set_line("caveat", '" "'),
        f"{MT}/header/caveat: expected a non-empty string of at most 2,000 characters, without "
        f'control or format characters, found " "',
        id="blank-caveat",
    ),
    pytest.param(
        lambda t: "colour = 1\n" + t,
        f"{MT}/: expected no properties beyond the schema's, found 'colour'",
        id="unknown-top-level-key",
    ),
    pytest.param(
        add_after("[header]", 'colour = "green"'),
        f"{MT}/header: expected no properties beyond the schema's, found 'colour'",
        id="unknown-key-in-table",
    ),
    pytest.param(
        source_as_string,
        f'{MT}/source: expected type "object", found "ML.ENERGY"',
        id="source-as-string",
    ),
    pytest.param(
        set_line("reference_row", '{ model = "Qwen 3 32B", gpu = "H100", num_gpus = "2" }'),
        f'{MT}/workload/0/reference_row/num_gpus: expected an integer from 1 to 2^53, found "2"',
        id="reference-row-num-gpus-string",
    ),
    pytest.param(
        set_line("reference_row", '{ model = "Qwen 3 32B", gpu = "H100", num_gpus = 2.0 }'),
        f"{MT}/workload/0/reference_row/num_gpus: expected an integer from 1 to 2^53, found 2.0",
        id="reference-row-num-gpus-float",
    ),
    pytest.param(
        set_line("reference_row", '{ model = "Qwen 3 32B", gpu = 8, num_gpus = 2 }'),
        f"{MT}/workload/0/reference_row/gpu: expected a non-empty string of at most 2,000 "
        f"characters, without control or format characters, found 8",
        id="reference-row-gpu-int",
    ),
    pytest.param(
        set_line("released", "2025-12-01"),
        f'{MT}/source/released: expected a date as a string "YYYY-MM-DD", found '
        f"datetime.date(2025, 12, 1)",
        id="date-unquoted",
    ),
    pytest.param(
        set_line("retrieved", '"2026-02-30"'),
        f'{MT}/source/retrieved: expected a date as a string "YYYY-MM-DD", found "2026-02-30"',
        id="date-impossible",
    ),
    pytest.param(
        set_line("data_url", '"ftp://example.org/x.json"'),
        f"{MT}/workload/0/data_url: expected an https URL with a host and no credentials, found "
        f'"ftp://example.org/x.json"',
        id="data-url-ftp",
    ),
    pytest.param(
        lambda t: re.sub(
            r"^licence_evidence = \[.*?\]$", "licence_evidence = []", t, count=1, flags=re.M | re.S
        ),
        f"{MT}/source/licence_evidence: expected a non-empty array of non-empty strings, found []",
        id="licence-evidence-empty",
    ),
    pytest.param(
        set_line("id", '"text-chat"'),
        f"{MT}/workload/0/id: expected 'text-conversation' (the slug of its name), found "
        f"'text-chat'",
        id="workload-id-not-its-slug",
    ),
    pytest.param(
        lambda t: t + "[header\n", f"{MT}expected TOML, found a syntax error", id="syntax-error"
    ),
]
METADATA_CLASSES = (
    "deadline-nan",
    "deadline-5001-digits",
    "base-url-credentials",
    "missing-table",
    "unknown-key-in-table",
    "source-as-string",
    "date-unquoted",
    "workload-id-not-its-slug",
    "syntax-error",
)


@pytest.mark.parametrize(("edit", "message"), METADATA)
def test_bad_metadata_is_refused_naming_the_key(tmp_path: Path, edit, message) -> None:
    meta = tmp_path / "metadata.toml"
    meta.write_text(edit(METADATA_TEXT))
    with pytest.raises((InputError, ProblemsError)) as caught:
        load_metadata(meta)
    lines = [str(caught.value), *map(str, getattr(caught.value, "problems", []))]
    assert len(lines) == 1, lines
    assert lines[0].replace(f"{tmp_path}/", "").startswith(message), lines


@pytest.mark.parametrize("command", [["build"], ["fetch", *FAST]], ids=["build", "fetch"])
@pytest.mark.parametrize(("edit", "message"), [p for p in METADATA if p.id in METADATA_CLASSES])
def test_bad_metadata_is_refused_before_use(reused_copy: Path, command, edit, message) -> None:
    """`fetch` without --url reads its URL from metadata.toml: it refuses before any network."""
    meta = reused_copy / "metadata.toml"
    meta.write_text(edit(meta.read_text()))
    out = refused(reused_copy, command, 1, message)
    assert len([line for line in out.splitlines() if "metadata.toml" in line]) == 1, out


def test_several_metadata_problems_are_listed_one_a_line(reused_copy: Path) -> None:
    meta = reused_copy / "metadata.toml"
    meta.write_text(set_line("base_url", "3")(set_line("itl_deadline_ms", "inf")(meta.read_text())))
    out = refused(
        reused_copy,
        ["build"],
        1,
        ("metadata.toml: /base_url: ", "metadata.toml: /header/itl_deadline_ms: "),
    )
    assert "2 problems in the curated metadata" in out


# The lock's fields and shapes: tests/test_lock.py.


# ---------------------------------------------------------------------------------------------
# 4. Options: --url, --commit, --max-bytes, --upstream


def fifo(tmp: Path) -> str:
    path = tmp / "fifo.json"
    os.mkfifo(path)
    return str(path)


def sparse_over_cap(tmp: Path) -> str:
    path = tmp / "sparse.json"
    with path.open("wb") as f:
        f.truncate(CAP + 1)  # sparse: no disk, and refused by its size before a byte is read
    return str(path)


def folder(tmp: Path) -> str:
    (tmp / "folder.json").mkdir()
    return str(tmp / "folder.json")


def link_to_dev_zero(tmp: Path) -> str:
    (tmp / "zero.json").symlink_to("/dev/zero")
    return str(tmp / "zero.json")


def given(value: str) -> Callable[[Path], str]:
    return lambda tmp: value


URL = "expected an http(s) URL with a host and no credentials"  # the lock's own rule
OPTIONS = [
    pytest.param(
        ["fetch", "--url", "ftp://example.org/x.json"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "ftp://example.org/x.json"'),
        id="fetch-url-ftp",
    ),
    pytest.param(
        ["fetch", "--url", "notaurl"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "notaurl"'),
        id="fetch-url-not-a-url",
    ),
    pytest.param(
        ["fetch", "--url", "http://[::1"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "http://[::1"'),
        id="fetch-url-malformed-ipv6",
    ),
    pytest.param(
        ["fetch", "--url", "http://127.0.0.1:99999/x"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "http://127.0.0.1:99999/x"'),
        id="fetch-url-bad-port",
    ),
    pytest.param(
        ["fetch", "--url", "http://user:pw@127.0.0.1/x"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "http://user:pw@127.0.0.1/x"'),
        id="fetch-url-credentials",
    ),
    pytest.param(
        ["fetch", "--url", "file:///etc/passwd"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "file:///etc/passwd"'),
        id="fetch-url-file",
    ),
    pytest.param(
        ["fetch", "--url", "http:///x.json"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "http:///x.json"'),
        id="fetch-url-no-host",
    ),
    pytest.param(
        ["fetch", "--url", "http://exa mple.org/x"],
        given(""),
        2,
        ("'--url'", f'{URL}, found "http://exa mple.org/x"'),
        id="fetch-url-space",
    ),
    pytest.param(
        ["check-upstream", "--url", "ftp://example.org/x.json"],
        given(""),
        2,
        ("'--url'",),
        id="check-upstream-url-ftp",
    ),
    pytest.param(
        ["fetch", "--commit", "xyz"],
        given(""),
        2,
        ("'--commit'", 'expected a 40-character lowercase hex commit sha, found "xyz"'),
        id="commit-xyz",
    ),
    pytest.param(
        ["fetch", "--commit", SHA.upper()], given(""), 2, ("'--commit'",), id="commit-uppercase"
    ),
    pytest.param(
        ["fetch", "--commit", SHA + "0"], given(""), 2, ("'--commit'",), id="commit-41-hex"
    ),
    pytest.param(
        ["fetch", "--commit", "--output=x" + SHA[10:]],
        given(""),
        2,
        ("'--commit'",),
        id="commit-option-like",
    ),
    pytest.param(
        ["fetch", "--max-bytes", str(CAP + 1)],
        given(""),
        2,
        ("'--max-bytes'",),
        id="max-bytes-over-cap",
    ),
    pytest.param(
        ["build", "--upstream"],
        fifo,
        1,
        ("fifo.json: expected upstream as a regular file, found a FIFO; not read",),
        id="upstream-fifo",
    ),
    pytest.param(
        ["build", "--upstream"],
        given("/dev/zero"),
        1,
        ("/dev/zero: expected upstream as a regular file, found a character device",),
        id="upstream-dev-zero",
    ),
    pytest.param(
        ["build", "--upstream"],
        link_to_dev_zero,
        1,
        ("zero.json: expected upstream as a regular file, found a character device",),
        id="upstream-link-to-dev-zero",
    ),
    pytest.param(
        ["build", "--upstream"],
        sparse_over_cap,
        1,
        (f"sparse.json: expected upstream of at most {CAP} bytes, found {CAP + 1}; not read",),
        id="upstream-over-the-cap",
    ),
    pytest.param(
        ["build", "--upstream"],
        folder,
        1,
        ("folder.json: expected upstream as a regular file, found a folder; not read",),
        id="upstream-folder",
    ),
    pytest.param(
        ["build", "--upstream"],
        given("no-such-file.json"),
        1,
        ("no-such-file.json: cannot read upstream (No such file or directory)",),
        id="upstream-missing",
    ),
]


@pytest.mark.parametrize(("args", "make", "code", "names"), OPTIONS)
def test_bad_option_is_refused(repo_copy: Path, tmp_path: Path, args, make, code, names) -> None:
    value = make(tmp_path)  # a FIFO or /dev/zero is refused by its kind, never opened
    refused(tmp_path, [*args, value] if value else args, code, names)


# ---------------------------------------------------------------------------------------------
# 5. `builder diff` git refs: never read as options of git


@pytest.fixture
def git_repo(repo_copy: Path) -> Path:
    """The repo copy as a git repository with one commit, and a README.md to protect."""
    (repo_copy / "README.md").write_text("# leadgreen-data\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *args], cwd=repo_copy, check=True, capture_output=True)
    return repo_copy


DIFF_REFS = [
    pytest.param(
        ["data", "--", "--output=README.md"],
        1,
        "--output=README.md: expected a data folder or a git ref",
        id="output-after-dashdash",
    ),
    pytest.param(
        ["--", "--output=README.md", "data"],
        1,
        "--output=README.md: expected a data folder or a git ref",
        id="output-as-old",
    ),
    pytest.param(
        ["data", "--", "-p"], 1, "-p: expected a data folder or a git ref", id="p-after-dashdash"
    ),
    pytest.param(["data", "-p"], 2, ("No such option", "-p"), id="p-as-option"),
    pytest.param(
        ["data", "--", "--no-index"],
        1,
        "--no-index: expected a data folder or a git ref",
        id="no-index",
    ),
    pytest.param(
        ["data", "--", "--remote=ext::touch pwned"],
        1,
        "--remote=ext::touch pwned: expected a data folder",
        id="remote-ext",
    ),
    pytest.param(
        ["data", "--", "--exec=touch pwned"],
        1,
        "--exec=touch pwned: expected a data folder",
        id="exec",
    ),
    pytest.param(
        ["HEAD..HEAD", "data"],
        1,
        "HEAD..HEAD: expected a data folder or a git ref",
        id="range-with-dot-dot",
    ),
    pytest.param(
        ["HEAD:data", "data"],
        1,
        "HEAD:data: expected a data folder or a git ref",
        id="tree-not-commit",
    ),
    pytest.param(
        ["data", "no-such-ref"],
        1,
        "no-such-ref: expected a data folder or a git ref",
        id="no-such-ref",
    ),
]


# each a git repository
@pytest.mark.parametrize(("args", "code", "message"), slow_after(DIFF_REFS))
def test_diff_ref_is_never_a_git_option(
    git_repo: Path, tmp_path: Path, args, code, message
) -> None:
    refused(tmp_path, ["diff", *args], code, message)
    assert (git_repo / "README.md").read_text() == "# leadgreen-data\n"


def test_diff_of_a_real_ref_still_works(git_repo: Path) -> None:
    outcome = run_cli("diff", "HEAD", "data")
    assert outcome.exit_code == 0, outcome.output
    assert outcome.output.splitlines()[-1] == "no changes"


# ---------------------------------------------------------------------------------------------
# 6. `builder diff` on documents of the wrong shape

MODEL = "models/qwen-3-8b.json"


def doc_edit(
    rel: str, change: Callable[[dict], object], replace: bool = False
) -> Callable[[Path], None]:
    """Change a document in place (or, with `replace`, write what `change` returns instead of
    it)."""

    def make(folder: Path) -> None:
        path = folder / rel
        doc = json.loads(path.read_text())
        new = change(doc)
        path.write_text(json.dumps(new if replace else doc, allow_nan=True))

    return make


def raw_file(rel: str, data: bytes) -> Callable[[Path], None]:
    return lambda folder: (folder / rel).write_bytes(data)


def special(rel: str, kind: str) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / rel
        path.unlink()
        os.mkfifo(path) if kind == "fifo" else path.mkdir()

    return make


def first_conf(change: Callable[[dict], object]) -> Callable[[dict], object]:
    return lambda doc: change(doc["configurations"][0])


SHAPES = [
    pytest.param(
        doc_edit(MODEL, lambda d: d.pop("best")),
        f"{MODEL}: /: expected required property 'best', found it missing",
        id="model-without-best",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: d.update(best=[1])),
        f"{MODEL}: /best: expected an object",
        id="best-a-list",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: d["best"].update(H100=3)),
        f"{MODEL}: /best/H100: expected a configuration object, found 3",
        id="best-value-a-number",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: d.update(configurations="many")),
        f'{MODEL}: /configurations: expected a list of configurations, found "many"',
        id="configurations-a-string",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: d.update(configurations=[7])),
        f"{MODEL}: /configurations/0: expected a configuration object, found 7",
        id="configuration-a-number",
    ),
    pytest.param(
        doc_edit(MODEL, first_conf(lambda c: c.pop("row_id"))),
        f"{MODEL}: /configurations/0: expected required property 'row_id', found it missing",
        id="configuration-without-row-id",
    ),
    pytest.param(
        doc_edit(MODEL, first_conf(lambda c: c.update(repeat="1"))),
        f'{MODEL}: /configurations/0/repeat: expected an integer, found "1"',
        id="repeat-a-string",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: d.update(data_version=20261019)),
        f"{MODEL}: /data_version: expected a string, found 20261019",
        id="data-version-a-number",
    ),
    pytest.param(
        doc_edit("index.json", lambda d: [d], replace=True),
        'index.json: /: expected a JSON object, found [{"version": "1"',
        id="index-a-list",
    ),
    pytest.param(
        doc_edit(MODEL, lambda d: "text", replace=True),
        f'{MODEL}: /: expected a JSON object, found "text"',
        id="model-a-string",
    ),
    pytest.param(
        doc_edit(MODEL, first_conf(lambda c: c.update(tokens_per_second=float("nan")))),
        f"{MODEL}: /configurations/0/tokens_per_second: expected a finite number, found NaN",
        id="NaN",
    ),
    pytest.param(
        raw_file(MODEL, b'{"best": {}, "configurations": [], "x": 1e999}'),
        f"{MODEL}: /x: expected a finite number, found 1e999",
        id="1e999",
    ),
    pytest.param(
        raw_file(MODEL, b'{"x": ' + b"1" * 5000 + b"}"),
        f"{MODEL}: /x: expected an integer within +/-2^53, found "
        f"11111111111111111111...1111111111 (5000 characters)",
        id="int-5000-digits",
    ),
    pytest.param(
        raw_file(MODEL, b"{not json"),
        f"{MODEL}: line 1 column 2: expected valid JSON, found Expecting property name",
        id="not-json",
    ),
    pytest.param(
        raw_file(MODEL, b'{"x": "\xff"}'),
        f"{MODEL}: byte 7: expected UTF-8 JSON, found undecodable bytes (invalid start byte)",
        id="invalid-utf8",
    ),
    pytest.param(
        special(MODEL, "fifo"),
        f"{MODEL}: expected a document as a regular file, found a FIFO",
        id="fifo",
    ),
    pytest.param(
        special(MODEL, "folder"),
        f"{MODEL}: expected a document as a regular file, found a folder",
        id="folder-named-json",
    ),
]


@pytest.fixture(scope="module")
def committed_docs() -> dict[str, Any]:
    """The committed documents as `builder diff` loads them, once a module (diff only reads
    them)."""
    return load_docs(str(REPO / "data"))


@pytest.mark.parametrize(("make", "message"), SHAPES)
def test_a_wrong_shape_is_refused_by_the_diff(
    tmp_path: Path, committed_docs: dict[str, Any], make, message
) -> None:
    """Every shape as the new side, through what `builder diff` runs: the problem lines, then the
    error."""
    bad = tmp_path / "bad"
    shutil.copytree(REPO / "data", bad)
    make(bad)
    with pytest.raises(BuilderError) as caught:
        diff_trees(committed_docs, load_docs(str(bad)))
    lines = [*map(str, getattr(caught.value, "problems", [])), f"error: {caught.value}"]
    assert any(f"{bad}/{message}" in line for line in lines), lines


SIDES = [  # through the CLI, each side: all slow (every shape runs by the diff loader above)
    *slow_after([pytest.param(*p.values, "new", id=f"new-{p.id}") for p in SHAPES], fast=0),
    *slow_after([pytest.param(*p.values, "old", id=f"old-{p.id}") for p in SHAPES], fast=0),
]


@pytest.mark.parametrize(("make", "message", "side"), SIDES)
def test_diff_of_a_wrong_shape_is_an_error_line(
    repo_copy: Path, tmp_path: Path, make, message, side
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(repo_copy / "data", bad)
    make(bad)
    args = ["diff", str(bad), "data"] if side == "old" else ["diff", "data", str(bad)]
    refused(tmp_path, args, 1, f"{bad}/{message}")


# ---------------------------------------------------------------------------------------------
# 7. HTTP peers: headers that trickle past the deadline, redirect loops, malformed URLs


@contextlib.contextmanager
def trickling_server(every: float = 0.1, body: bool = False) -> Iterator[str]:
    """Answers every request with a status line and one header, one byte each `every` seconds, for
    4 s, then a whole answer; with `body`, sends whole headers at once and then trickles the body
    (4 s). A client that waits it out reads an answer, not its deadline's message."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.recv(65536)
            slow = b"a" * round(4 / every)
            if body:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(slow))
            for byte in (b"" if body else b"HTTP/1.1 200 OK\r\nX-Slow: ") + slow:
                if stop.is_set():
                    return
                conn.sendall(bytes([byte]))
                time.sleep(every)
            if not body:
                conn.sendall(b"\r\nContent-Length: 2\r\n\r\n{}")

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=trickle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}{PATH}"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@pytest.mark.parametrize("command", ["fetch", "check-upstream"])
def test_trickling_headers_end_at_the_deadline(
    repo_copy: Path, tmp_path: Path, command: str
) -> None:
    """The read timeout (0.5 s) never fires, a byte comes every 0.1 s; only the deadline (0.4 s) can
    stop it.

    The headers take 4 s to arrive, then a whole answer: ending with the deadline's message proves
    the deadline stopped the trickle.
    """
    with trickling_server() as url:
        args = [command, "--url", url, "--timeout", "0.5", "--retries", "3", "--deadline", "0.4"]
        refused(tmp_path, args, 3, (url, "expected an answer within 0.4 s, found none in time"))


def test_a_trickled_body_ends_at_the_deadline(repo_copy: Path, tmp_path: Path) -> None:
    """Headers arrive at once, then a body byte every 0.1 s (4 s in all): only the deadline
    (0.4 s) stops it."""
    with trickling_server(body=True) as url:
        args = ["fetch", "--url", url, "--timeout", "0.5", "--retries", "3", "--deadline", "0.4"]
        refused(tmp_path, args, 3, (url, "expected an answer within 0.4 s, found none in time"))


def redirect_loop(server: HTTPServer) -> str:
    server.expect_request(PATH).respond_with_data("", status=302, headers={"Location": PATH})
    return server.url_for(PATH)


def redirect_to_file(server: HTTPServer) -> str:
    server.expect_request(PATH).respond_with_data(
        "", status=302, headers={"Location": "file:///etc/passwd"}
    )
    return server.url_for(PATH)


HTTP = [
    pytest.param(
        redirect_loop, 1, "expected an answer within 5 redirects, found more", id="redirect-loop"
    ),
    pytest.param(
        redirect_to_file,
        1,
        "cannot send the request (UnsupportedProtocol",
        id="redirect-to-file-url",
    ),
]


@pytest.mark.parametrize("command", ["fetch", "check-upstream"])
@pytest.mark.parametrize(("serve", "code", "message"), HTTP)
def test_misbehaving_server_is_refused(
    repo_copy: Path, tmp_path: Path, httpserver: HTTPServer, command, serve, code, message
) -> None:
    url = serve(httpserver)
    refused(tmp_path, [command, "--url", url, *FAST], code, (url, message))
    assert len(httpserver.log) <= 6  # no retries on top of the redirects


@contextlib.contextmanager
def raw_reply(reply: bytes) -> Iterator[str]:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with contextlib.suppress(OSError), conn:
                conn.recv(65536)
                conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}{PATH}"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


RAW = [
    pytest.param(b"NOT HTTP AT ALL\r\n\r\n", "RemoteProtocolError", id="garbage-status-line"),
    pytest.param(
        b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n{}",
        "RemoteProtocolError",
        id="content-length-not-a-number",
    ),
    pytest.param(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        "RemoteProtocolError",
        id="two-content-lengths",
    ),
]


@pytest.mark.parametrize(("reply", "message"), RAW)
def test_broken_http_answer_is_unreachable(
    repo_copy: Path, tmp_path: Path, reply: bytes, message: str
) -> None:
    with raw_reply(reply) as url:
        args = ["fetch", "--url", url, "--timeout", "0.5", "--retries", "0"]
        refused(tmp_path, args, 3, (url, "no usable answer after 1 attempt(s)", message))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        pytest.param("http://[::1", "InvalidURL", id="malformed-ipv6"),
        pytest.param("ftp://127.0.0.1/x", "UnsupportedProtocol", id="ftp"),
    ],
)
def test_download_maps_every_library_error(url: str, message: str) -> None:
    """download() itself (not only the CLI) turns httpx's exceptions into the builder's errors."""
    with pytest.raises(FetchError, match=re.escape(message)):
        download(url, Limits(retries=0, deadline=5))


# ---------------------------------------------------------------------------------------------
# 8. The last guard: canonical JSON is strict JSON


@pytest.mark.parametrize(
    "value", [float("inf"), float("-inf"), float("nan")], ids=["inf", "-inf", "nan"]
)
def test_dumps_refuses_non_finite_values_naming_where(value: float) -> None:
    from builder.errors import OutputError
    from builder.write import dumps

    with pytest.raises(OutputError, match=r"at /best/H100/1 \((inf|-inf|nan)\)"):
        dumps({"version": "1", "best": {"H100": [1.0, value]}})
