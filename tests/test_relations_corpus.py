"""A derived number 1,000 times off: refused where upstream enters (fetch, check-upstream, build),
refused by validate
on the published files, and seen by `builder diff` and the large-change guard (issue 35).

Every CLI case holds the command to every promise (tests/hostile.py): the exit code, one escaped
line naming the
file, row and field with expected and found, no traceback, and every pre-existing file unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from builder.diff import diff_trees, load_docs, load_tables, render_text
from builder.errors import InputError, UpstreamError
from builder.release.rules import LARGE_CHANGE_PCT
from builder.upstream import parse_upstream
from builder.validate.csvrows import read_root_csv
from builder.validate.responses import check_parameters
from builder.validate.tree import load_tree
from hostile import assert_refused, run_cli, tree_digest

REPO = Path(__file__).resolve().parent.parent
PATH = "/public/data/tasks/lm-arena-chat.json"
FAST = ["--timeout", "0.5", "--retries", "1", "--deadline", "20"]
ROW = (
    "/configurations/12/energy_per_request_joules (Qwen/Qwen3-14B, H100, 1 GPU(s), max_num_seqs 64)"
)
UPSTREAM_LINE = (
    f"{ROW}: expected energy_per_token_joules x avg_output_len = 103.18576467353151, "
    f"found 103185.7646735315"
)
CSV_LINE = (
    "data/configurations.csv: line 2, column joules_per_response: expected "
    "joules_per_output_token x avg_output_tokens = 7246.4460 (within 0.5%; deepseek-v3-1/B200/8/8 "
    "repeat 1 of text-conversation), found 7249766.8"
)
DOC_LINE = (
    "data/models/qwen-3-14b.json: /configurations/12/joules_per_output_token: expected "
    "power / tokens per second = 0.1671815 J (within 1 %), found 167.1736"
)


def one_request_1000_times() -> bytes:
    """The pinned LLM chat file with one row's (Qwen 3 14B, H100, 64 sequences) energy per
    request 1,000 times."""
    doc = json.loads((REPO / "upstream" / "lm-arena-chat.json").read_bytes())
    doc["configurations"][12]["energy_per_request_joules"] *= 1000
    return json.dumps(doc, indent=1).encode()


def lines_naming(output: str, text: str) -> list[str]:
    return [line for line in output.splitlines() if text in line]


def test_the_parser_refuses_one_line() -> None:
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(one_request_1000_times(), "bad.json", "lm-arena-chat")
    assert [str(p) for p in caught.value.problems] == [f"bad.json: {UPSTREAM_LINE}"]


def test_a_whole_model_off_is_one_line_naming_its_first_row() -> None:
    doc = json.loads((REPO / "upstream" / "lm-arena-chat.json").read_bytes())
    for conf in doc["configurations"]:
        if conf["model_id"] == "Qwen/Qwen3-14B":
            conf["energy_per_request_joules"] *= 1000
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(json.dumps(doc).encode(), "bad.json", "lm-arena-chat")
    first = (
        "/configurations/0/energy_per_request_joules (Qwen/Qwen3-14B, B200, 1 GPU(s), "
        "max_num_seqs 8"
    )
    found = (
        "expected energy_per_token_joules x avg_output_len = 430.1127103864672, found "
        "430112.7103864672"
    )
    assert [str(p) for p in caught.value.problems] == [
        f"bad.json: {first}, and 16 more rows of this model): {found}"
    ]


def refused(root: Path, args: list[str], line: str) -> str:
    before = tree_digest(root)
    outcome = run_cli(*args)
    assert_refused(outcome, 1, line, before, tree_digest(root))
    assert len(lines_naming(outcome.output, "energy_per_request_joules")) == 1, outcome.output
    return outcome.output


@pytest.mark.slow  # a whole build
def test_build_refuses_it(repo_copy: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(one_request_1000_times())
    out = refused(tmp_path, ["build", "--upstream", str(bad)], f"{bad}: {UPSTREAM_LINE}")
    assert out.splitlines()[-1] == f"error: {bad}: 1 problem(s) in upstream; nothing was written"


@pytest.mark.slow  # a fetch and a whole build
def test_fetch_refuses_it(repo_copy: Path, tmp_path: Path, httpserver: HTTPServer) -> None:
    httpserver.expect_request(PATH).respond_with_data(
        one_request_1000_times(), content_type="application/json"
    )
    url = httpserver.url_for(PATH)
    refused(tmp_path, ["fetch", "--url", url, *FAST], f"{url}: {UPSTREAM_LINE}")


@pytest.mark.slow  # a download
def test_check_upstream_refuses_it(repo_copy: Path, tmp_path: Path, httpserver: HTTPServer) -> None:
    httpserver.expect_request(PATH).respond_with_data(
        one_request_1000_times(), content_type="application/json"
    )
    url = httpserver.url_for(PATH)
    out = refused(tmp_path, ["check-upstream", "--url", url, *FAST], f"{url}: {UPSTREAM_LINE}")
    assert out.splitlines()[0].startswith(f"moved: lm-arena-chat: {url} serves sha256 ")
    assert (
        out.splitlines()[-1]
        == f"error: lm-arena-chat: {url}: 1 problem(s) in upstream; nothing was written"
    )


def csv_1000_times(data: Path) -> None:
    """data/configurations.csv with its first row's energy per response 1,000 times, Wh per 1,000
    responses and the descriptor's size and hash made to agree: only the relation to energy per
    token is left to catch it."""
    path = data / "configurations.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    head, cells = lines[0].split(","), lines[1].split(",")
    joules = float(cells[head.index("joules_per_response")]) * 1000
    cells[head.index("joules_per_response")] = f"{joules:.1f}"
    cells[head.index("wh_per_thousand_responses")] = f"{joules / 3.6:.2f}"
    lines[1] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    rehash(data.parent, "data/configurations.csv")


def model_doc_1000_times(data: Path) -> None:
    """A model document's configuration with its energy per token 1,000 times (Wh per million
    tokens to agree)."""
    path = data / "models" / "qwen-3-14b.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    conf = doc["configurations"][12]
    conf["joules_per_output_token"] = round(conf["joules_per_output_token"] * 1000, 4)
    conf["wh_per_million_output_tokens"] = round(conf["joules_per_output_token"] * 1e6 / 3600, 2)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    rehash(data.parent, "data/models/qwen-3-14b.json")


def rehash(root: Path, rel: str) -> None:
    """datapackage.json's bytes and hash of `rel` made to match the edited file."""
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    data = (root / rel).read_bytes()
    for resource in descriptor["resources"]:
        if resource.get("path") == rel:
            resource |= {"bytes": len(data), "hash": f"sha256:{hashlib.sha256(data).hexdigest()}"}
    (root / "datapackage.json").write_text(
        json.dumps(descriptor, indent=2) + "\n", encoding="utf-8"
    )


def test_the_csv_check_refuses_one_line(reused_copy: Path) -> None:
    csv_1000_times(reused_copy / "data")
    found = read_root_csv(load_tree(reused_copy / "data")).faults
    assert [str(p) for p in found] == [CSV_LINE]


# the last: whether that line is the only problem
EDITS: list[tuple[str, Callable[[Path], None], str, bool]] = [
    # the frontier's copy disagrees too
    (
        "csv-energy-per-response",
        csv_1000_times,
        CSV_LINE,
        False,
    ),
    # the frontier and the CSV disagree too
    (
        "model-energy-per-token",
        model_doc_1000_times,
        DOC_LINE,
        False,
    ),
]


@pytest.mark.slow  # a whole validate
@pytest.mark.parametrize(
    ("edit", "line", "only"), [pytest.param(e, x, o, id=n) for n, e, x, o in EDITS]
)
def test_validate_refuses_a_published_value_1000_times(
    repo_copy: Path, edit, line: str, only: bool
) -> None:
    edit(repo_copy / "data")
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    assert_refused(outcome, 1, line, before, tree_digest(repo_copy))
    problems = [x for x in outcome.output.splitlines() if x.startswith("data")]
    assert problems == [line] if only else line in problems, outcome.output


def test_diff_and_the_guard_see_a_csv_only_value(reused_copy: Path) -> None:
    old = load_docs(str(REPO / "data"))
    csv_1000_times(reused_copy / "data")
    new = load_docs(str(reused_copy / "data"))
    tables = load_tables(str(REPO / "data"), old), load_tables(str(reused_copy / "data"), new)
    diff = diff_trees(old, new, tables)
    text = render_text(diff).splitlines()
    assert text[1:] == [
        "configurations: 0 added, 0 removed, 1 changed",
        "  ~ deepseek-v3-1/B200/8/8 #1 joules_per_response: 7249.7668 -> 7249766.8 (+99900.0 %)",
        "  ~ deepseek-v3-1/B200/8/8 #1 wh_per_thousand_responses: 2013.82 -> 2013824.11 (+99900.2 "
        "%)",
    ]
    assert diff.large_changes(LARGE_CHANGE_PCT) == [
        "deepseek-v3-1/B200/8/8 #1 joules_per_response: 7249.7668 -> 7249766.8 (+99900.0 %)",
        "deepseek-v3-1/B200/8/8 #1 wh_per_thousand_responses: 2013.82 -> 2013824.11 (+99900.2 %)",
    ]


@pytest.mark.slow  # the whole command
def test_builder_diff_prints_it(repo_copy: Path) -> None:
    csv_1000_times(repo_copy / "data")
    outcome = run_cli("diff", str(REPO / "data"), str(repo_copy / "data"), "--exit-code")
    assert outcome.exit_code == 1, outcome.output
    assert (
        "  ~ deepseek-v3-1/B200/8/8 #1 joules_per_response: 7249.7668 -> 7249766.8 (+99900.0 %)"
        in outcome.output
    )


def test_a_table_diff_cannot_read_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "configurations.csv").write_bytes(b"\xffworkload,row_id,repeat\n")
    with pytest.raises(InputError) as caught:
        load_tables(str(tmp_path), {})
    expected = (
        "expected a UTF-8 CSV table, found 'utf-8' codec can't decode byte 0xff in "
        "position 0: invalid start byte"
    )
    assert str(caught.value) == f"{tmp_path}/configurations.csv: {expected}"


def test_a_model_with_more_active_than_total_parameters_is_one_line() -> None:
    doc = json.loads((REPO / "data" / "models" / "qwen-3-14b.json").read_bytes())
    assert check_parameters("qwen-3-14b.json", doc) == []
    found = [str(p) for p in check_parameters("qwen-3-14b.json", doc | {"active_params_b": 15.0})]
    assert found == [
        "qwen-3-14b.json: /active_params_b: expected at most params_b = 14.0, found 15.0"
    ]
