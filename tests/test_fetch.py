"""`builder fetch` and `builder check-upstream` against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import json
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

import builder.fetch
from builder.fetch import Limits, download
from helpers import snapshot
from netfaults import closed_port_url, raw_server

PATH = "/public/data/tasks/lm-arena-chat.json"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]
UPSTREAM_URL = "https://raw.githubusercontent.com/ml-energy/leaderboard/master" + PATH


@pytest.fixture(scope="module")
def make_httpserver():
    """One server for this module, not for the session: no server thread outlives the fetch tests
    (builder validate checks its tables inline, not in a forked worker, while other threads run)."""
    server = HTTPServer(host="localhost", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture(autouse=True)
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoff pauses fetch asks for, recorded instead of slept through."""
    asked: list[float] = []
    monkeypatch.setattr(builder.fetch, "sleep", asked.append)
    return asked


def upstream_bytes(repo: Path, factor: float = 1.0) -> bytes:
    """The pinned upstream, with Qwen 3 8B's energy and power scaled by `factor`."""
    doc = json.loads((repo / "upstream" / "lm-arena-chat.json").read_bytes())
    for conf in doc["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-8B":
            conf["energy_per_token_joules"] *= factor
            conf["energy_per_request_joules"] *= factor
            conf["avg_power_watts"] *= factor
    return json.dumps(doc, indent=1).encode()


# fetch, build and validate; test_503_then_good_answer_is_retried_and_pinned is the fetch smoke case
@pytest.mark.slow
def test_good_answer_is_pinned_and_built(
    repo_copy: Path, cli, httpserver: HTTPServer, pauses
) -> None:
    body = upstream_bytes(repo_copy, 1.1)
    httpserver.expect_request(PATH).respond_with_data(body, content_type="application/json")
    result = cli(
        "fetch",
        "--url",
        httpserver.url_for(PATH),
        "--commit",
        "abc1230000000000000000000000000000000000",
        *FAST,
    )
    assert result.exit_code == 0, result.output
    assert pauses == []
    assert (repo_copy / "upstream" / "lm-arena-chat.json").read_bytes() == body
    lock = json.loads((repo_copy / "upstream" / "lock.json").read_text())["tasks"]["lm-arena-chat"]
    # the server is a mirror: recorded beside upstream's URL, never instead
    assert lock["url"] == UPSTREAM_URL
    assert lock["mirror"] == httpserver.url_for(PATH)
    assert lock["commit"] == "abc1230000000000000000000000000000000000"
    assert lock["size"] == len(body)
    assert lock["retrieved"] == dt.datetime.now(dt.UTC).date().isoformat()
    old = json.loads((repo_copy / "data" / "models" / "qwen-3-8b.json").read_text())
    assert cli("build").exit_code == 0
    new = json.loads((repo_copy / "data" / "models" / "qwen-3-8b.json").read_text())
    ratio = (
        new["best"]["H100"]["joules_per_output_token"]
        / old["best"]["H100"]["joules_per_output_token"]
    )
    assert ratio == pytest.approx(1.1, rel=1e-5)
    assert cli("validate").exit_code == 0
    (source,) = (
        s
        for s in json.loads((repo_copy / "datapackage.json").read_text())["sources"]
        if s["path"] == UPSTREAM_URL
    )
    assert (source["mirror"], source["version"]) == (
        httpserver.url_for(PATH),
        "abc1230000000000000000000000000000000000",
    )


def test_503_then_good_answer_is_retried_and_pinned(
    repo_copy: Path, cli, httpserver: HTTPServer, pauses
) -> None:
    body = upstream_bytes(repo_copy, 0.9)
    httpserver.expect_oneshot_request(PATH).respond_with_data("busy", status=503)
    httpserver.expect_request(PATH).respond_with_data(body)
    result = cli("fetch", "--url", httpserver.url_for(PATH), "--commit", "ab" * 20, *FAST)
    assert result.exit_code == 0, result.output
    assert len(httpserver.log) == 2
    assert pauses == [1.0]
    # built: the case above (slow)
    assert (repo_copy / "upstream" / "lm-arena-chat.json").read_bytes() == body


def refused(repo: Path, cli, *args: str) -> str:
    """Run fetch, which must fail quickly and leave every file as it was; return its output."""
    before = snapshot(repo)
    result = cli("fetch", *args)
    assert result.exit_code != 0, result.output
    assert result.output.splitlines()[-1].startswith("error: ")
    assert snapshot(repo) == before
    return result.output


def test_the_ca_bundle_is_loaded_once_a_process(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check-upstream downloads a file at a time; each client reuses one loaded CA bundle."""
    import httpx

    made = []
    real = httpx.create_ssl_context
    monkeypatch.setattr(httpx, "create_ssl_context", lambda: made.append(1) or real())
    builder.fetch.tls_context.cache_clear()
    httpserver.expect_request(PATH).respond_with_data("{}")
    for _ in range(3):
        assert builder.fetch.download(httpserver.url_for(PATH)) == b"{}"
    assert made == [1]


def test_404_is_refused_without_retry(repo_copy: Path, cli, httpserver: HTTPServer, pauses) -> None:
    httpserver.expect_request(PATH).respond_with_data("gone", status=404)
    out = refused(repo_copy, cli, "--url", httpserver.url_for(PATH), *FAST)
    assert "expected HTTP 200, found 404 NOT FOUND" in out
    assert len(httpserver.log) == 1
    assert pauses == []


def test_persistent_5xx_is_refused_after_bounded_retries(
    repo_copy: Path, cli, httpserver: HTTPServer, pauses
) -> None:
    httpserver.expect_request(PATH).respond_with_data("down", status=502)
    out = refused(repo_copy, cli, "--url", httpserver.url_for(PATH), *FAST)
    assert "no usable answer after 2 attempt(s); last: HTTP 502" in out
    assert len(httpserver.log) == 2
    assert pauses == [1.0]


@pytest.mark.parametrize(
    ("retries", "deadline", "wanted"),
    [
        pytest.param("2", "20", [1.0, 2.0], id="two-retries"),
        pytest.param("3", "20", [1.0, 2.0, 4.0], id="three-retries-double-each-time"),
        # a third, 4 s, ends at 7 s
        pytest.param("3", "6.5", [1.0, 2.0], id="no-pause-past-the-deadline"),
    ],
)
def test_backoff_doubles_and_stops_at_the_deadline(
    repo_copy: Path, cli, httpserver: HTTPServer, pauses, retries, deadline, wanted, monkeypatch
) -> None:
    """fetch's clock counts the pauses alone (each answer takes no time), so the load cannot move
    the deadline."""
    monkeypatch.setattr(builder.fetch, "time", SimpleNamespace(monotonic=lambda: sum(pauses)))
    httpserver.expect_request(PATH).respond_with_data("down", status=503)
    args = ["--timeout", "0.5", "--retries", retries, "--deadline", deadline]
    out = refused(repo_copy, cli, "--url", httpserver.url_for(PATH), *args)
    assert f"no usable answer after {len(wanted) + 1} attempt(s); last: HTTP 503" in out
    assert len(httpserver.log) == len(wanted) + 1
    assert pauses == wanted


def test_html_body_is_refused(repo_copy: Path, cli, httpserver: HTTPServer) -> None:
    httpserver.expect_request(PATH).respond_with_data(
        "<html><body>Rate limited</body></html>", content_type="text/html"
    )
    out = refused(repo_copy, cli, "--url", httpserver.url_for(PATH), *FAST)
    assert "expected JSON, found what looks like an HTML page" in out


@pytest.mark.slow  # a whole fetch; the upstream corpus words every defect by the parser
def test_defective_upstream_is_refused(repo_copy: Path, cli, httpserver: HTTPServer) -> None:
    doc = json.loads(upstream_bytes(repo_copy))
    doc["configurations"][3]["expert_parallel"] = 0
    httpserver.expect_request(PATH).respond_with_json(doc)
    out = refused(repo_copy, cli, "--url", httpserver.url_for(PATH), *FAST)
    assert (
        "/configurations/3/expert_parallel (Qwen/Qwen3-14B, B200, 1 GPU(s), max_num_seqs 64)" in out
    )


def test_truncated_body_is_refused(repo_copy: Path, cli, pauses) -> None:
    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: application/json\r\n\r\n"
        + b'{"configurations": ['
    )
    with raw_server(reply) as url:
        out = refused(repo_copy, cli, "--url", url, *FAST)
    assert "no usable answer after 2 attempt(s)" in out
    assert "RemoteProtocolError" in out or "shorter than its Content-Length" in out
    assert pauses == [1.0]


def test_server_that_never_answers_is_refused_in_bounded_time(repo_copy: Path, cli, pauses) -> None:
    with raw_server(None) as url:  # the last --timeout wins: waiting is all this test does
        out = refused(repo_copy, cli, "--url", url, *FAST, "--timeout", "0.2")
    assert "timed out (ReadTimeout)" in out
    assert pauses == [1.0]


def test_unreachable_server_is_refused(repo_copy: Path, cli, pauses) -> None:
    out = refused(repo_copy, cli, "--url", closed_port_url(), *FAST)
    assert "ConnectError" in out
    assert pauses == [1.0]


GiB = 1024**3


def endless(total: int):
    chunk = b" " * (1024 * 1024)
    for _ in range(total // len(chunk)):
        yield chunk


def test_body_of_several_gib_is_refused_with_bounded_memory(
    repo_copy: Path, httpserver: HTTPServer
) -> None:
    httpserver.expect_request(PATH).respond_with_handler(lambda request: Response(endless(4 * GiB)))
    cap = 8 * 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match=f"expected at most {cap} bytes, found more"):
            download(httpserver.url_for(PATH), Limits(max_bytes=cap, timeout=5, retries=0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * cap  # bounded by the cap, not by the 4 GiB the server offers


def test_declared_size_over_the_cap_is_refused_before_reading(
    repo_copy: Path, cli, httpserver: HTTPServer
) -> None:
    big = Response(endless(64 * 1024 * 1024), headers={"Content-Length": str(5 * GiB)})
    httpserver.expect_request(PATH).respond_with_handler(lambda request: big)
    out = refused(
        repo_copy, cli, "--url", httpserver.url_for(PATH), "--max-bytes", "1000000", *FAST
    )
    assert f"expected at most 1000000 bytes, found Content-Length {5 * GiB}; not downloaded" in out


def test_check_upstream_exit_codes(repo_copy: Path, cli, httpserver: HTTPServer, pauses) -> None:
    pinned = (repo_copy / "upstream" / "lm-arena-chat.json").read_bytes()
    httpserver.expect_oneshot_request(PATH).respond_with_data(pinned)
    httpserver.expect_oneshot_request(PATH).respond_with_data(upstream_bytes(repo_copy, 1.2))
    before = snapshot(repo_copy)
    unchanged = cli("check-upstream", "--url", httpserver.url_for(PATH), *FAST)
    assert (unchanged.exit_code, unchanged.output.split(":")[0]) == (0, "unchanged")
    moved = cli("check-upstream", "--url", httpserver.url_for(PATH), *FAST)
    assert (moved.exit_code, moved.output.split(":")[0]) == (4, "moved")
    assert pauses == []
    assert cli("check-upstream", "--url", closed_port_url(), *FAST).exit_code == 3
    assert pauses == [1.0]
    assert snapshot(repo_copy) == before
