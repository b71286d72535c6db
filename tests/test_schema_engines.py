"""The fast schema engine (jsonschema-rs) gives jsonschema's verdict: on every planted error, and
on its two traps."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

import test_hostile_validate
import test_validate_corpus
import test_workloads_corpus
from builder import jsonschemas, strictjson
from builder.jsonschemas import validator
from builder.layout import schema_for
from builder.validate import run
from builder.validate.tree import load_tree
from helpers import REPO, forget_schemas
from rules import committed_files

CORPORA = {  # each corpus's cases, and the folder they edit
    "validate": (test_validate_corpus.CASES, "data"),
    "workloads": (test_workloads_corpus.CASES, "data"),
    "hostile": (test_hostile_validate.REFUSED, "."),
}
EVERY_CASE = [
    pytest.param(case.values[0], folder, id=f"{name}-{case.id}")
    for name, (cases, folder) in CORPORA.items()
    for case in cases
]


def edited_documents(data: Path, committed: dict[str, bytes]) -> dict[str, Any]:
    """The documents a case changed that parse and have a schema, by path relative to the data
    folder."""
    found = {}
    for path in data.rglob("*.json"):
        rel = path.relative_to(data).as_posix()
        if (
            path.is_file()
            and not path.is_symlink()
            and schema_for(rel)
            and path.read_bytes() != committed.get(rel)
        ):
            try:
                found[rel] = strictjson.parse_json(path.read_bytes())
            except strictjson.StrictJSONError:
                continue
    return found


@pytest.mark.parametrize(("apply", "folder"), EVERY_CASE)
def test_the_fast_engine_agrees_with_jsonschema(reused_copy: Path, apply: Any, folder: str) -> None:
    """Each edited document: jsonschema-rs accepts it exactly when jsonschema does."""
    apply(reused_copy / folder)
    for rel, doc in edited_documents(reused_copy / "data", committed_files()).items():
        fast = jsonschemas.fast_validator(schema_for(rel))
        assert fast is not None
        assert fast(doc) == validator(schema_for(rel)).is_valid(doc), rel


def test_a_float_where_an_integer_belongs_is_refused_by_both() -> None:
    """jsonschema-rs counts 2.0 as an integer; the project's rule (and jsonschema's, as
    configured) does not."""
    doc = strictjson.parse_json((REPO / "data/models/qwen-3-8b.json").read_bytes())
    doc["configurations"][0]["num_gpus"] = 1.0
    assert validator("model.schema.json").is_valid(doc) is False
    assert jsonschemas.fast_validator("model.schema.json")(doc) is False  # type: ignore[misc]


def test_an_integral_number_where_a_number_belongs_passes_both() -> None:
    """The float rule applies only where a schema admits integers alone."""
    doc = strictjson.parse_json((REPO / "data/models/qwen-3-8b.json").read_bytes())
    doc["configurations"][0]["median_itl_ms"] = 20.0
    assert validator("model.schema.json").is_valid(doc) is True
    assert jsonschemas.fast_validator("model.schema.json")(doc) is True  # type: ignore[misc]


def test_a_float_among_integer_items_is_refused_by_both() -> None:
    """An array of integer-only items is checked for floats as a whole, with jsonschema's
    verdict."""
    doc = strictjson.parse_json((REPO / "data/output-lengths.json").read_bytes())
    doc["models"][0]["counts"][-1] = 0.0
    assert validator("output-lengths.schema.json").is_valid(doc) is False
    assert jsonschemas.fast_validator("output-lengths.schema.json")(doc) is False  # type: ignore[misc]


@pytest.mark.parametrize(("value", "valid"), [([2.0, 3], True), ([2, 3.0], False), ([2, 3], True)])
def test_items_after_prefix_items_keep_the_integer_rule(value: list[float], valid: bool) -> None:
    """Where prefixItems takes the first items, the rule holds for the rest alone."""
    from builder.fastschema import compile_fast

    schema = {"type": "array", "prefixItems": [{"type": "number"}], "items": {"type": "integer"}}
    fast = compile_fast(schema)
    assert fast is not None
    assert jsonschemas.compiled(schema).is_valid(value) is valid
    assert fast(value) is valid


BOUNDS = (0.0, 1.0, 1e9, 1e12, 2.0**53, -1e12, 1e300)  # integral floats, as a schema reads 1e12


def _near(bound: float) -> list[float | int]:
    """Numbers at and around a bound: the floats a step away, halves, and the int beside it."""
    whole = int(bound)
    return [
        *(math.nextafter(bound, -math.inf), bound, math.nextafter(bound, math.inf)),
        *(bound - 0.5, bound + 0.5, whole - 1, whole, whole + 1, 2 * whole + 1, -0.0),
    ]


@pytest.mark.parametrize("keyword", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
def test_an_integral_float_bound_agrees_with_jsonschema(keyword: str) -> None:
    """A bound written as an integral float (the fast engine gets it as an int) judges each number
    at and around it as jsonschema does."""
    from builder.fastschema import compile_fast, prepared

    assert type(prepared({keyword: 1e12})[keyword]) is int  # the cheap comparison, as intended
    differ = []
    for bound in BOUNDS:
        schema = {"type": "number", keyword: bound}
        fast = compile_fast(schema)
        assert fast is not None
        judged = jsonschemas.compiled(schema)
        differ += [(bound, n) for n in _near(bound) if fast(n) != judged.is_valid(n)]
    assert not differ, differ[:5]


def _strings(head: str, alphabet: str, count: int) -> list[str]:
    """`count` strings of `head` and up to 12 characters of `alphabet`, the same on every run."""
    pick = random.Random(36)
    return [head + "".join(pick.choices(alphabet, k=pick.randint(0, 12))) for _ in range(count)]


DATES = [
    *("0000-01-01", "0001-01-01", "2024-02-29", "2023-02-29", "2026-04-31", "9999-12-31"),
    *("2026-1-01", "2026-01-01\n", " 2026-01-01", "2026-00-10", "2026-13-01"),
    "\uff12\uff10\uff12\uff16-01-01",  # fullwidth digits
    *(
        f"{y}-{m:02d}-{d:02d}"
        for y in ("0000", "2023", "2024")
        for m in range(14)
        for d in range(33)
    ),
    *_strings("20", "0123456789-", 2000),
]
URIS = [
    *("https://a/b", "https://a b/", "https://[::1]/x", "https://[::1/x", "https://a%zz/"),
    *("https://é/", "https://a:99999/", "https://a/<b>", "https://a#b#c", "http:", "https:a"),
    *_strings("https://", "ab:/?#[]@!$&'()*+,;=%-._~<>{}|\\^` é09", 3000),
]


@pytest.mark.parametrize(("fmt", "values"), [("date", DATES), ("uri", URIS)])
def test_the_formats_agree_with_jsonschema(fmt: str, values: list[str]) -> None:
    """The fast engine's "date" (the builder's) and "uri" (jsonschema-rs's own) judge each string
    as jsonschema's format checker does."""
    from builder.fastschema import compile_fast

    fast = compile_fast({"type": "string", "format": fmt})
    assert fast is not None
    conforms = jsonschemas.compiled({}).FORMAT_CHECKER.conforms
    differ = [value for value in values if fast(value) != conforms(value, fmt)]
    assert not differ, differ[:5]


def test_a_pattern_rust_accepts_but_python_rejects_is_a_broken_schema(repo_copy: Path) -> None:
    r"""`\p{L}` compiles in Rust's dialect, not in Python's re: the schema is reported broken,
    once."""
    path = repo_copy / "schemas" / "defs.schema.json"
    path.write_text(
        path.read_text().replace('"pattern": "^[a-z0-9]', '"pattern": "^\\\\p{L}*[a-z0-9]', 1)
    )
    forget_schemas()
    try:
        problems, passed = run.check_schemas(load_tree(repo_copy / "data"))
    finally:
        forget_schemas()
    broken = {
        p.path.removeprefix("schemas/"): p.message
        for p in problems
        if p.path.startswith("schemas/")
    }
    assert broken
    assert all(
        m.startswith("expected a usable JSON Schema, found error: ") for m in broken.values()
    )
    assert all("bad escape" in m for m in broken.values())
    assert not any(schema_for(rel) in broken for rel in passed)


def test_a_value_the_fast_engine_cannot_take_is_judged_by_jsonschema() -> None:
    """A TOML date (metadata.toml unquoted) is no JSON value: the fast check says no, and
    jsonschema words it."""
    import datetime

    from builder.fastschema import compile_fast

    fast = compile_fast({"type": "string", "format": "date"})
    assert fast is not None
    assert fast(datetime.date(2026, 1, 2)) is False
    assert fast("2026-01-02") is True
