"""Bad upstream files: each is refused by the upstream parser, by row and field; through `builder
build
--upstream` (the slow tier), each refused and changing nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.errors import UpstreamError
from builder.upstream import parse_upstream
from factory import row, upstream
from helpers import slow_after, snapshot

PIN = Path(__file__).resolve().parent.parent / "upstream" / "lm-arena-chat.json"
ID = "(test-org/Test-Model-7B, H100, 1 GPU(s), max_num_seqs 64)"


def rows(*raw: dict) -> Callable[[], bytes]:
    return lambda: json.dumps(upstream(list(raw))).encode()


def raw(text: str) -> Callable[[], bytes]:
    return lambda: text.encode()


def without(field: str) -> dict[str, Any]:
    r = row()
    del r[field]
    return r


def pin_edit(change: Callable[[list], None]) -> Callable[[], bytes]:
    def make() -> bytes:
        doc = json.loads(PIN.read_bytes())
        change(doc["configurations"])
        return json.dumps(doc).encode()

    return make


def two_param_counts(confs: list) -> None:
    confs[0]["total_params_billions"] = 15.0  # confs[0] is Qwen 3 14B


CASES = [
    (
        "truncated-json",
        lambda: PIN.read_bytes()[:5000],
        "line 142 column 7: expected valid JSON, found Unterminated string",
    ),
    (
        "html-error-page",
        raw("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"),
        "/: expected JSON, found what looks like an HTML page",
    ),
    (
        "top-level-list",
        raw("[]"),
        "/: expected an object with a non-empty configurations list, found []",
    ),
    (
        "configurations-missing",
        raw('{"task": "lm-arena-chat"}'),
        "/: expected required property 'configurations', found it missing",
    ),
    (
        "configurations-empty",
        raw('{"configurations": []}'),
        "/configurations: expected a non-empty list of configurations, found []",
    ),
    (
        "configuration-not-object",
        raw('{"configurations": [42]}'),
        "/configurations/0: expected a configuration object, found 42",
    ),
    (
        "required-field-missing",
        rows(without("avg_power_watts")),
        f"/configurations/0 {ID}: expected required property 'avg_power_watts', found it missing",
    ),
    (
        "string-for-number",
        rows(row(energy_per_token_joules="0.2")),
        f"/configurations/0/energy_per_token_joules {ID}: expected a finite number > 0 and <= "
        f'1e12, found "0.2"',
    ),
    (
        "nan",
        raw(json.dumps(upstream([row(median_itl_ms=float("nan"))]))),
        "/configurations/0/median_itl_ms: expected a finite number, found NaN",
    ),
    (
        "infinity",
        raw(json.dumps(upstream([row(p99_itl_ms=float("inf"))]))),
        "/configurations/0/p99_itl_ms: expected a finite number, found Infinity",
    ),
    (
        "negative-energy",
        rows(row(energy_per_token_joules=-0.2)),
        f"/configurations/0/energy_per_token_joules {ID}: expected a finite number > 0 and <= "
        f"1e12, found -0.2",
    ),
    (
        "zero-gpus",
        rows(row(num_gpus=0)),
        "/configurations/0/num_gpus (test-org/Test-Model-7B, H100, 0 GPU(s), max_num_seqs 64): "
        "expected an integer from 1 to 2^53, found 0",
    ),
    (
        "boolean-for-integer",
        rows(row(max_num_seqs=True)),
        "/configurations/0/max_num_seqs (test-org/Test-Model-7B, H100, 1 GPU(s), max_num_seqs "
        "True): expected an integer from 1 to 2^53, found true",
    ),
    (
        "parallel-degree-zero",
        rows(row(tensor_parallel=0)),
        f"/configurations/0/tensor_parallel {ID}: expected an integer from 1 to 2^53, found 0",
    ),
    (
        "num-gpus-not-layout",
        rows(row(num_gpus=1, tensor_parallel=2, data_parallel=2)),
        f"/configurations/0/num_gpus {ID}: expected max(tensor_parallel x data_parallel, "
        f"expert_parallel) = 4, found 1",
    ),
    (
        "unknown-precision",
        rows(row(weight_precision="int4")),
        f"/configurations/0/weight_precision {ID}: expected one of bfloat16, fp8, mxfp4, found "
        f'"int4"',
    ),
    (
        "gpu-name-with-slash",
        rows(row(gpu_model="H100/../../etc")),
        "/configurations/0/gpu_model (test-org/Test-Model-7B, H100/../../etc, 1 GPU(s), "
        "max_num_seqs 64): expected a name of [A-Za-z0-9._-], at most 32 characters, starting "
        'with a letter or digit, found "H100/../../etc"',
    ),
    (
        "nickname-without-letters-or-digits",
        rows(row(nickname="--- ---")),
        f"/configurations/0/nickname {ID}: expected a name of [A-Za-z0-9 .,_()+-], at most 100 "
        f'characters, starting with a letter or digit, found "--- ---"',
    ),
    (
        "model-id-with-spaces",
        rows(row(model_id="test org/model 7b")),
        "/configurations/0/model_id (test org/model 7b, H100, 1 GPU(s), max_num_seqs 64): "
        "expected ORG/NAME, each of [A-Za-z0-9._-], at most 96 characters, starting with a letter "
        'or digit, found "test org/model 7b"',
    ),
    (
        "two-models-one-slug",
        rows(row(), row(model_id="other/Test-Model-7B", nickname="Test-Model 7B")),
        "slug test-model-7b: expected one model per slug, found test-org/Test-Model-7B and "
        "other/Test-Model-7B",
    ),
    (
        "one-model-two-parameter-counts",
        pin_edit(two_param_counts),
        "model Qwen/Qwen3-14B: expected one total_params_billions per model (15.0), found 14.0",
    ),
    (
        "one-model-two-nicknames",
        rows(row(), row(nickname="Test Model 7B v2", max_num_seqs=128)),
        "model test-org/Test-Model-7B: expected one nickname per model ('Test Model 7B'), found "
        "'Test Model 7B v2'",
    ),
]


@pytest.fixture
def built(built_data: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's build, which a refusal must leave alone; its package is the working
    directory."""
    monkeypatch.chdir(built_data.parent.parent)
    return built_data


@pytest.mark.parametrize(("make", "expected"), [pytest.param(m, e, id=n) for n, m, e in CASES])
def test_bad_upstream_is_refused_by_the_parser(make, expected) -> None:
    """Each case in milliseconds: the lines `builder build` prints for it, the problems then the
    error."""
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(make(), "bad.json", "lm-arena-chat")
    lines = [str(problem) for problem in caught.value.problems] + [f"error: {caught.value}"]
    assert any(line.startswith("bad.json: ") and expected in line for line in lines), lines
    assert lines[-1].endswith("nothing was written")


# Each case runs `builder build` on the whole package: all slow (every case runs by the parser
# above).
@pytest.mark.parametrize(
    ("make", "expected"), slow_after([pytest.param(m, e, id=n) for n, m, e in CASES], fast=0)
)
def test_bad_upstream_is_refused_and_changes_nothing(
    built: Path, tmp_path: Path, cli, make, expected
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(make())
    before = snapshot(Path.cwd()), snapshot(tmp_path)
    result = cli("build", "--upstream", str(bad), "--out", str(built))
    assert result.exit_code == 1, result.output
    assert any(
        line.startswith(f"{bad}: ") and expected in line for line in result.output.splitlines()
    ), result.output
    assert result.output.splitlines()[-1].endswith("nothing was written")
    assert (snapshot(Path.cwd()), snapshot(tmp_path)) == before


MANY = rows(row(num_gpus=0, weight_precision="int8"), row(median_itl_ms=-1.0, max_num_seqs=128))
MANY_FOUND = (
    "/configurations/0/num_gpus",
    "/configurations/0/weight_precision",
    "/configurations/1/median_itl_ms",
)


def test_every_problem_is_found_at_once() -> None:
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(MANY(), "bad.json", "lm-arena-chat")
    lines = "\n".join(
        [str(problem) for problem in caught.value.problems] + [f"error: {caught.value}"]
    )
    assert all(where in lines for where in MANY_FOUND), lines
    assert "3 problem(s)" in lines


@pytest.mark.slow  # a whole build; test_every_problem_is_found_at_once is the parser's case
def test_every_problem_is_reported_at_once(built: Path, tmp_path: Path, cli) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(MANY())
    result = cli("build", "--upstream", str(bad), "--out", str(built))
    assert result.exit_code == 1
    assert all(where in result.output for where in MANY_FOUND), result.output
    assert "3 problem(s)" in result.output


@pytest.mark.slow  # a whole build
def test_unknown_fields_are_tolerated_with_one_warning(repo_copy: Path, cli) -> None:
    good = repo_copy / "extra.json"
    good.write_bytes(pin_edit(lambda confs: [c.update(new_metric=1.0, other=2) for c in confs])())
    result = cli("build", "--upstream", str(good), "--out", str(repo_copy / "out"))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {good}: unknown upstream field(s) ignored: new_metric, other",
        # a task file given in the pin's place: its pinned per-model files are left out, by design
        "warning: lm-arena-chat: per-model files not used: they were pinned with the task file "
        "given in its place;"
        " no output lengths",
    ]


def test_untrusted_text_is_printed_escaped(built: Path, tmp_path: Path, cli) -> None:
    """A model id, GPU or key holding ESC, BEL, a newline or U+202E never reaches the terminal
    raw."""
    bad = tmp_path / "bad.json"
    evil = row(model_id="x\x1b]0;t\x07/y\n", gpu_model="H\x1b[31m\u202e")
    evil["new\nkey"] = 1
    bad.write_bytes(rows(evil)())
    result = cli("build", "--upstream", str(bad), "--out", str(built))
    assert result.exit_code == 1
    assert not {"\x1b", "\x07", "\u202e"} & set(result.output), result.output
    assert all(line.startswith((f"{bad}: ", "error: ")) for line in result.output.splitlines()), (
        result.output
    )
    assert (
        r"/configurations/0/gpu_model (x\x1b]0;t\x07/y\n, H\x1b[31m\u202e, 1 GPU(s), max_num_seqs "
        r"64)" in result.output
    )
