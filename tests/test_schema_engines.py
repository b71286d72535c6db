"""The fast schema engine (jsonschema-rs) gives jsonschema's verdict: on every planted error, and
on its two traps."""

from __future__ import annotations

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
from helpers import REPO
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


def test_a_pattern_rust_accepts_but_python_rejects_is_a_broken_schema(repo_copy: Path) -> None:
    r"""`\p{L}` compiles in Rust's dialect, not in Python's re: the schema is reported broken,
    once."""
    path = repo_copy / "schemas" / "defs.schema.json"
    path.write_text(
        path.read_text().replace('"pattern": "^[a-z0-9]', '"pattern": "^\\\\p{L}*[a-z0-9]', 1)
    )
    caches = (jsonschemas.load_schemas, jsonschemas.validator, jsonschemas.fast_validator)
    for cached in caches:
        cached.cache_clear()
    try:
        problems, passed = run.check_schemas(load_tree(repo_copy / "data"))
    finally:
        for cached in caches:
            cached.cache_clear()
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
