"""The pure name rules: what a spreadsheet misreads, which slugs Windows reserves, GPU spellings."""

from __future__ import annotations

import pytest

from builder.errors import printable, printable_lines
from builder.names import gpu_spelling_faults, is_reserved_slug, name_fault
from builder.release.rules import fence

MISREAD = [
    ("1-2", "a date"),
    ("3/4", "a date"),
    ("2024-01-02", "a date"),
    ("1.2.2024", "a date"),
    ("Jan-5", "a date"),
    ("5-Jan", "a date"),
    ("March 5", "a date"),
    ("Sept 2024", "a date"),
    ("12:30", "a time"),
    ("1E5", "a number"),
    ("1e5", "a number"),
    ("1e-5", "a number"),
    ("12", "a number"),
    ("1.5", "a number"),
    ("1,5", "a number"),
    ("1,000", "a number"),
    ("50%", "a number"),
    ("0x1F", "a number"),
    ("(12)", "a number"),
    ("$5", "a number"),
    ("1 1/2", "a number"),
    (" 12 ", "a number"),
    ("TRUE", "a truth value"),
    ("false", "a truth value"),
    ("=1+1", "a formula"),
    ('=HYPERLINK("https://evil.example","x")', "a formula"),
    ("+41", "a formula"),
    ("-x", "a formula"),
    ("@SUM(A1)", "a formula"),
    ("10 AM", "a time"),
    ("1 pm", "a time"),
    ("\uff11-\uff12", "a date"),  # full-width digits
    ("\uff1d1+1", "a formula"),  # a full-width equals sign
]

TEXT = [
    "H100",
    "B200",
    "A100-80GB",
    "Llama 3.1 8B",
    "Qwen 2.5 72B",
    "PixArt-Σ",
    "MoE",
    "4o",
    "3B",
    "May",
    "Dense Transformer",
]


@pytest.mark.parametrize(("name", "reading"), MISREAD, ids=[name for name, _ in MISREAD])
def test_a_spreadsheet_misreads(name: str, reading: str) -> None:
    assert (
        name_fault(name)
        == f"expected a name a spreadsheet keeps as text, found {name!r}, read as {reading}"
    )


@pytest.mark.parametrize("name", TEXT)
def test_a_spreadsheet_keeps_as_text(name: str) -> None:
    assert name_fault(name) is None


@pytest.mark.parametrize(
    "slug", ["con", "prn", "aux", "nul", "NUL", "Con", "com1", "COM9", "lpt1", "lpt9"]
)
def test_windows_reserves(slug: str) -> None:
    assert is_reserved_slug(slug)


@pytest.mark.parametrize(
    "slug", ["com", "com0", "com10", "lpt0", "console", "null", "nul-7b", "auxiliary"]
)
def test_windows_allows(slug: str) -> None:
    assert not is_reserved_slug(slug)


def test_gpu_names_that_differ_only_by_case_are_one_fault_each() -> None:
    pairs = [
        ("a.json", "B200"),
        ("a.json", "H100"),
        ("b.json", "b200"),
        ("b.json", "B200"),
        ("a.json", "h100"),
    ]
    assert gpu_spelling_faults(pairs) == [
        ("a.json", "h100", "expected one spelling per GPU, found 'H100' and 'h100'"),
        ("b.json", "b200", "expected one spelling per GPU, found 'B200' in a.json and 'b200'"),
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [("H100-SXM", "H100_SXM"), ("H100.SXM", "h100-sxm"), ("A100-", "A100"), ("B200", "B_200")],
)
def test_gpu_names_that_differ_by_punctuation_are_one_fault(first: str, second: str) -> None:
    """Names that differ by punctuation are one GPU spelt two ways, and most map to one page and
    file name."""
    assert gpu_spelling_faults([("a.json", first), ("b.json", second)]) == [
        (
            "b.json",
            second,
            f"expected one spelling per GPU, found {first!r} in a.json and {second!r}",
        )
    ]


def test_one_spelling_per_gpu_is_no_fault() -> None:
    assert gpu_spelling_faults([("a.json", "B200"), ("b.json", "B200"), ("b.json", "H100")]) == []


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nfake: /: all good", "a\\nfake: /: all good"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("abc\u202edef", "abc\\u202edef"),
        ("PixArt-Σ", "PixArt-Σ"),
    ],
)
def test_printable_escapes_and_is_idempotent(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(printable(text)) == shown


def test_printable_lines_keeps_the_line_breaks_only() -> None:
    assert printable_lines("one\x1b[2J\ntwo\r\n") == "one\\x1b[2J\ntwo\\r\n"


@pytest.mark.parametrize(
    ("text", "found"), [("plain", "```"), ("a ``` b", "````"), ("``````", "```````")]
)
def test_a_fence_is_longer_than_any_run_of_backticks(text: str, found: str) -> None:
    assert fence(text) == found


def test_validate_applies_the_name_rules_to_a_model_document() -> None:
    from builder.validate.documents import check_gpu_spellings, check_names

    doc = {
        "name": "=1+1",
        "model_id": "10/12",
        "architecture": "Jan 5",
        "gpus": ["B200", "1E5", "Aux"],
        "slug": "nul",
    }
    assert [(p.where, p.message.split(",")[0]) for p in check_names("m.json", doc)] == [
        ("/name", "expected a name a spreadsheet keeps as text"),
        ("/model_id", "expected a name a spreadsheet keeps as text"),
        ("/architecture", "expected a name a spreadsheet keeps as text"),
        ("/gpus/1", "expected a name a spreadsheet keeps as text"),
        ("/gpus/2", "expected a GPU name Windows allows as a folder name"),
        ("/slug", "expected the slug of its name"),
        ("/slug", "expected a slug Windows allows as a file name"),
    ]
    pixart = {
        "name": "PixArt-Σ",
        "model_id": "o/PixArt-Σ",
        "architecture": "MoE",
        "gpus": ["B200"],
        "slug": "pixart-sigma",
    }
    assert check_names("m.json", pixart) == []
    dated = {
        "name": "1 . 2",
        "model_id": "o/m",
        "architecture": "MoE",
        "gpus": ["B200"],
        "slug": "1-2",
    }
    assert [str(p) for p in check_names("m.json", dated)] == [
        "m.json: /slug: expected a slug a spreadsheet keeps as text, found '1-2', read as a date"
    ]
    pairs = {"a.json": {"gpus": ["H100"]}, "b.json": {"gpus": ["h100", "H100_SXM", "H100-SXM"]}}
    assert [str(p) for p in check_gpu_spellings(pairs)] == [
        "b.json: /gpus: expected one spelling per GPU, found 'H100_SXM' and 'H100-SXM'",
        "b.json: /gpus: expected one spelling per GPU, found 'H100' in a.json and 'h100'",
    ]


@pytest.mark.parametrize(
    ("name", "code"), [("Sana\u2028fake: all good", "2028"), ("Model\u2029B", "2029")]
)
def test_a_name_holds_no_line_or_paragraph_separator(name: str, code: str) -> None:
    assert (
        name_fault(name)
        == f"expected a name on one line, found U+{code} (a line or paragraph separator)"
    )
