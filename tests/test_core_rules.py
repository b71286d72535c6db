"""Pure rules of the core modules: where a path belongs, what strict JSON refuses, the one safe
read."""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

from builder.errors import OutputError
from builder.files import Refused, read_file
from builder.layout import Place, place
from builder.strictjson import StrictJSONError, _plain_numbers, parse_json
from builder.write import dumps, publish


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        pytest.param("workloads.json", Place("workload-list"), id="workload-list"),
        pytest.param("configurations.csv", Place("csv"), id="csv"),
        pytest.param("index.json", Place("index", "text-conversation"), id="root-index"),
        pytest.param("models/a.json", Place("model", "text-conversation", "a"), id="root-model"),
        pytest.param("workloads/gpqa/frontier.json", Place("frontier", "gpqa"), id="frontier"),
        pytest.param("workloads/gpqa/models/b.json", Place("model", "gpqa", "b"), id="model"),
        pytest.param(
            "workloads/text-to-image/models.json",
            Place("generation-model-list", "text-to-image"),
            id="gen-list",
        ),
        pytest.param(
            "workloads/text-to-video/configurations.csv",
            Place("generation-csv", "text-to-video"),
            id="gen-csv",
        ),
        pytest.param(
            "workloads/text-to-image/models/c.json",
            Place("generation-model", "text-to-image", "c"),
            id="gen-model",
        ),
        pytest.param(
            "workloads/text-to-image/frontier.json",
            Place("generation-frontier", "text-to-image"),
            id="gen-frontier",
        ),
        pytest.param("workloads/gpqa/configurations.csv", None, id="no-llm-csv"),
        pytest.param("workloads/text-conversation/index.json", None, id="root-by-id"),
        pytest.param("workloads/Bad/index.json", None, id="bad-id"),
        pytest.param("models/.json", None, id="empty-slug"),
        pytest.param("models/a/b.json", None, id="nested-model"),
    ],
)
def test_place(rel: str, expected: Place | None) -> None:
    assert place(rel) == expected


NONE, X = frozenset(), frozenset({"x"})  # keys to drop: none, and "x" at every depth


@pytest.mark.parametrize(
    ("data", "drop", "faults"),
    [
        pytest.param(
            b'{"a": 1, "a": 2}',
            NONE,
            [("/", 'expected each key once, found "a" again (a reader keeps either value)')],
            id="repeated-key",
        ),
        pytest.param(b"[1, NaN]", NONE, [("/1", "expected a finite number, found NaN")], id="nan"),
        pytest.param(
            b'{"x": [1e999]}',
            NONE,
            [("/x/0", "expected a finite number, found 1e999")],
            id="infinite",
        ),
        pytest.param(
            b"9007199254740993",
            NONE,
            [("/", "expected an integer within +/-2^53, found 9007199254740993")],
            id="big-int",
        ),
        # numbers the hooks must see (a plain scan sends them there), and plain ones they need not
        pytest.param(
            b"-9007199254740993",
            NONE,
            [("/", "expected an integer within +/-2^53, found -9007199254740993")],
            id="big-negative-int",
        ),
        pytest.param(
            b"[1" + b"0" * 309 + b".5]",
            NONE,
            [
                (
                    "/0",
                    "expected a finite number, found 10000000000000000000...00000000.5"
                    " (312 characters)",
                )
            ],
            id="infinite-without-exponent",
        ),
        pytest.param(
            b"[2E+308]",
            NONE,
            [("/0", "expected a finite number, found 2E+308")],
            id="exponent-plus",
        ),
        pytest.param(
            b'{"a": 1e0400}',
            NONE,
            [("/a", "expected a finite number, found 1e0400")],
            id="exponent",
        ),
        pytest.param(b"9007199254740992", NONE, 2**53, id="int-at-2^53"),
        pytest.param(
            b'{"a": [999999999999999, -1.5e-99, 0.1]}',
            NONE,
            {"a": [999999999999999, -1.5e-99, 0.1]},
            id="plain-numbers",
        ),
        pytest.param(
            b'{"\\udc00": 1}',
            NONE,
            [("/", "expected text keys, found a lone surrogate in a key")],
            id="lone-low-in-key",
        ),
        pytest.param(
            b'["\\udfff"]',
            NONE,
            [("/0", "expected text, found a lone surrogate (an unpaired \\ud800-\\udfff)")],
            id="lone-low",
        ),
        pytest.param(b'"\\ud83d\\ude00"', NONE, "\U0001f600", id="paired-surrogates"),
        pytest.param(
            b'{"a": {"x": [1, 2], "y": 3}, "x": 4}', X, {"a": {"y": 3}}, id="dropped-at-every-depth"
        ),
        pytest.param(
            b'{"a": {"x": [NaN]}}',
            X,
            [("/a/x/0", "expected a finite number, found NaN")],
            id="nan-dropped",
        ),
        pytest.param(
            b'{"x": {"k": 1, "k": 2}}',
            X,
            [("/x", 'expected each key once, found "k" again (a reader keeps either value)')],
            id="repeat-in-dropped",
        ),
        pytest.param(
            b'{"x": "\\udfff", "y": 1}',
            X,
            [("/x", "expected text, found a lone surrogate (an unpaired \\ud800-\\udfff)")],
            id="surrogate-in-dropped",
        ),
    ],
)
def test_strict_json(data: bytes, drop: frozenset[str], faults: Any) -> None:
    """Every fault by pointer, or the value (a str or dict here); what `drop` leaves out is still
    read strictly."""
    if not isinstance(faults, list):
        assert parse_json(data, drop) == faults
        return
    with pytest.raises(StrictJSONError) as caught:
        parse_json(data, drop)
    assert caught.value.faults == faults


def test_dumps_names_the_first_non_finite_value_in_document_order() -> None:
    with pytest.raises(OutputError, match=r"at /a/1/0 \(nan\)"):
        dumps({"a": [1.0, (float("nan"),)], "b": float("inf")})
    with pytest.raises(OutputError, match=r"at /a~1b/c~0d \(inf\)"):
        dumps({"a/b": {"c~d": float("inf")}})


@pytest.mark.parametrize(
    "doc",
    [
        {"a": [1, -(10**30), 1e300, 5e-324, -0.0, 0.1 + 0.2, True, None], "b": {}, "c": []},
        {'\u2028\x00"\\': ["\x1f\u00e9\U0001f600", ("t", [{}])], "k": {"x": [[[1]]]}},
        {7: {"n": 1}, 1.5: [2], -0.0: [], True: [[]], None: {"y": [()]}},
        [[{"a": [1, {"b": (2, 3)}]}], "s", 7],
        "text",
        -7.5,
    ],
)
def test_dumps_writes_json_dumps_text(doc: object) -> None:
    expected = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    assert dumps(doc) == expected.encode("utf-8")


@pytest.mark.parametrize(
    "doc", ["\ud800", {"a": ["\udc00"]}, {"\ud800": [1]}, {"a": {"\udfff": 1}}]
)
def test_dumps_refuses_a_lone_surrogate_in_one_line(doc: object) -> None:
    with pytest.raises(OutputError, match=r"surrogates not allowed.*; nothing was written"):
        dumps(doc)


def test_read_file_refuses_a_link_unless_told_a_fifo_and_a_file_too_large(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to("real.json")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "fifo-link").symlink_to("fifo")
    assert read_file(tmp_path / "link.json", follow_links=True) == b"{}"
    with pytest.raises(Refused, match="found a symbolic link"):
        read_file(tmp_path / "link.json")
    with pytest.raises(Refused, match="found a FIFO"):
        read_file(tmp_path / "fifo-link", follow_links=True)
    with pytest.raises(Refused) as caught:
        read_file(tmp_path / "real.json", 1)
    assert caught.value.size == 2


def test_publish_makes_files_0644_and_folders_0755_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o277)
    try:
        publish(tmp_path / "out", {"a/b/c.json": b"{}\n"})
    finally:
        os.umask(old)
    modes = {
        p.relative_to(tmp_path).as_posix(): p.stat().st_mode & 0o777 for p in tmp_path.rglob("*")
    }
    assert modes == {"out": 0o755, "out/a": 0o755, "out/a/b": 0o755, "out/a/b/c.json": 0o644}


def test_version_reads_the_descriptor_safely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO named datapackage.json is not opened (a plain open would wait on it forever)."""
    from click.testing import CliRunner

    from builder.cli import main

    monkeypatch.chdir(tmp_path)
    os.mkfifo("datapackage.json")
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.endswith(
        ", data version unknown (no datapackage.json of leadgreen-data here; run from the "
        "repository root)\n"
    )


def _numbers(count: int) -> list[str]:
    """`count` JSON numbers of up to 20 whole digits, a fraction or not, an exponent or not (e or
    E, +, - or no sign, up to 4 digits), the same on every run."""
    pick = random.Random(36)
    found = []
    for _ in range(count):
        whole = "".join(pick.choices("0123456789", k=pick.randint(1, 20))).lstrip("0") or "0"
        fraction = "." + "".join(pick.choices("0123456789", k=pick.randint(1, 4)))
        sign, digits = pick.choice(("", "+", "-")), pick.randint(1, 4)
        exponent = pick.choice("eE") + sign + "".join(pick.choices("0123456789", k=digits))
        minus, fraction, exponent = (pick.choice(("", part)) for part in ("-", fraction, exponent))
        found.append(minus + whole + fraction + exponent)
    return found


def test_numbers_the_plain_scan_lets_through_are_within_bounds() -> None:
    """Where the byte scan calls a text's numbers plain, parse_json skips its number hooks: each
    number it lets through is then an integer within 2^53 or a finite float, as the hooks hold."""
    numbers = _numbers(20_000)
    plain = 0
    for text in numbers:
        if _plain_numbers(f"[{text}]"):
            plain += 1
            value = json.loads(text)
            bounded = abs(value) <= 2**53 if type(value) is int else math.isfinite(value)
            assert bounded, text
    assert 0 < plain < len(numbers)
    assert not _plain_numbers("[1e+400]")
