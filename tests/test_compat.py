"""Schema compatibility between releases: the change list, the cross-validation, the guard and
its changelog."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.diff import load_docs
from builder.errors import InputError, ReleaseError
from builder.release.compat import (
    NEW_DOCS_OLD_SCHEMAS,
    OLD_DOCS_NEW_SCHEMAS,
    Compat,
    SchemaChange,
    changelog_section,
    check_compat,
    cross_validate,
    load_schema_set,
    require_accepted,
    schema_changes,
)
from helpers import REPO, slow_after
from test_release import (  # noqa: F401  (fixtures)
    fresh_template,
    git,
    rebuild_with,
    release,
    released_repo,
    released_template,
)

Schemas = dict[str, dict[str, Any]]
Docs = dict[str, Any]


@pytest.fixture(scope="module")
def current() -> tuple[Schemas, Docs]:
    return load_schema_set(str(REPO)), load_docs(str(REPO / "data"))


def test_the_current_schemas_against_themselves_change_nothing(
    current: tuple[Schemas, Docs],
) -> None:
    schemas, docs = current
    compat = check_compat(schemas, copy.deepcopy(schemas), docs, copy.deepcopy(docs))
    assert compat == Compat([], [])
    assert compat.clean
    assert changelog_section(compat, None, "v2026.10.19", "1", "1") == ""
    require_accepted(compat, None, "1", "1")  # does not raise


# The corpus: each case changes the schemas (and the documents as a release would), and names what
# must be seen.


def _defs(schemas: Schemas) -> dict[str, Any]:
    return schemas["defs.schema.json"]["$defs"]


def remove_field(schemas: Schemas, docs: Docs) -> None:
    model = schemas["model.schema.json"]
    del model["properties"]["architecture"]
    model["required"].remove("architecture")
    for rel, doc in docs.items():
        if rel.startswith("models/"):
            del doc["architecture"]


def retype_field(schemas: Schemas, docs: Docs) -> None:
    _defs(schemas)["max_num_seqs"]["type"] = "string"
    del _defs(schemas)["max_num_seqs"]["minimum"]


def add_required_field(schemas: Schemas, docs: Docs) -> None:
    model = schemas["model.schema.json"]
    model["properties"]["energy_source"] = {
        "type": "string",
        "description": "Where the energy was measured.",
    }
    model["required"].append("energy_source")
    for rel, doc in docs.items():
        if rel.startswith("models/"):
            doc["energy_source"] = "nvml"


def narrow_enum(schemas: Schemas, docs: Docs) -> None:
    _defs(schemas)["precision"]["enum"] = ["BF16"]


def widen_enum(schemas: Schemas, docs: Docs) -> None:
    _defs(schemas)["precision"]["enum"] = ["BF16", "FP8", "MXFP4", "FP4"]


CORPUS: list[tuple[str, Callable[[Schemas, Docs], None], list[str], dict[str, str | None]]] = [
    (
        "field removed",
        remove_field,
        [
            "model.schema.json /: required removed: architecture",
            "model.schema.json /architecture: field removed: string",
        ],
        {
            OLD_DOCS_NEW_SCHEMAS: "models/deepseek-v3-1.json: /: expected no properties beyond "
            "the schema's, "
            "found 'architecture'",
            NEW_DOCS_OLD_SCHEMAS: "models/deepseek-v3-1.json: /: expected required property "
            "'architecture', "
            "found it missing",
        },
    ),
    (
        "field retyped",
        retype_field,
        [
            "frontier.schema.json /models[]/across_gpus/best_under/*/max_num_seqs: retyped: "
            "integer -> string",
            "frontier.schema.json /models[]/across_gpus/frontier[]/max_num_seqs: retyped: integer "
            "-> string",
            "frontier.schema.json /models[]/gpus/*/best_under/*/max_num_seqs: retyped: integer -> "
            "string",
            "frontier.schema.json /models[]/gpus/*/frontier[]/max_num_seqs: retyped: integer -> "
            "string",
            "index.schema.json /rows[]/max_num_seqs: retyped: integer -> string",
            "model.schema.json /best/*/max_num_seqs: retyped: integer -> string",
            "model.schema.json /configurations[]/max_num_seqs: retyped: integer -> string",
            "output-lengths.schema.json /models[]/configurations[]/max_num_seqs: retyped: integer "
            "-> string",
        ],
        {
            OLD_DOCS_NEW_SCHEMAS: (
                "frontier.json: /models/0/across_gpus/best_under/100/max_num_seqs: expected type "
                '"string"'
            ),
            NEW_DOCS_OLD_SCHEMAS: None,
        },
    ),
    (
        "required field added",
        add_required_field,
        [
            "model.schema.json /: required added: energy_source",
            "model.schema.json /energy_source: field added: string",
        ],
        {
            OLD_DOCS_NEW_SCHEMAS: "models/deepseek-v3-1.json: /: expected required property "
            "'energy_source', "
            "found it missing",
            NEW_DOCS_OLD_SCHEMAS: "models/deepseek-v3-1.json: /: expected no properties beyond "
            "the schema's, "
            "found 'energy_source'",
        },
    ),
    (
        "enum narrowed",
        narrow_enum,
        [
            'index.schema.json /rows[]/precision: enum narrowed: removed "FP8", "MXFP4"',
            'model.schema.json /best/*/precision: enum narrowed: removed "FP8", "MXFP4"',
            'model.schema.json /configurations[]/precision: enum narrowed: removed "FP8", "MXFP4"',
        ],
        {
            OLD_DOCS_NEW_SCHEMAS: "index.json: /rows/",  # a row with FP8 weights
            NEW_DOCS_OLD_SCHEMAS: None,
        },
    ),
    (
        "enum widened",
        widen_enum,
        [
            'index.schema.json /rows[]/precision: enum widened: added "FP4"',
            'model.schema.json /best/*/precision: enum widened: added "FP4"',
            'model.schema.json /configurations[]/precision: enum widened: added "FP4"',
        ],
        {OLD_DOCS_NEW_SCHEMAS: None, NEW_DOCS_OLD_SCHEMAS: None},
    ),
]


# Each change cross-validates every document twice (about 1.5 s): one in the fast tier, the other
# variants slow; every change is listed by schema_changes alone in the fast tier
# (test_each_change_is_listed_by_schema_changes).
@pytest.fixture(
    scope="module", params=slow_after([pytest.param(case, id=case[0]) for case in CORPUS], fast=1)
)
def case(
    request: pytest.FixtureRequest, current: tuple[Schemas, Docs]
) -> tuple[Compat, list[str], dict]:
    _name, change, expected, failures = request.param
    schemas, docs = current
    new_schemas, new_docs = copy.deepcopy(schemas), copy.deepcopy(docs)
    change(new_schemas, new_docs)
    return check_compat(schemas, new_schemas, docs, new_docs), expected, failures


def test_each_change_is_listed(case: tuple[Compat, list[str], dict]) -> None:
    compat, expected, _ = case
    assert [str(c) for c in compat.changes] == expected


@pytest.mark.parametrize(
    ("change", "expected"), [pytest.param(c[1], c[2], id=c[0]) for c in CORPUS]
)
def test_each_change_is_listed_by_schema_changes(
    current: tuple[Schemas, Docs], change, expected: list[str]
) -> None:
    schemas, docs = current
    new_schemas = copy.deepcopy(schemas)
    change(new_schemas, copy.deepcopy(docs))
    assert [str(c) for c in schema_changes(schemas, new_schemas)] == expected


def test_each_change_is_cross_validated(case: tuple[Compat, list[str], dict]) -> None:
    compat, _, failures = case
    for against, first in failures.items():
        found = [str(f) for side, f in compat.failures if side == against]
        if first is None:
            assert found == [], against
        else:
            assert found, against
            assert found[0].startswith(first), (against, found[0])


def test_each_change_is_refused_without_a_reason(case: tuple[Compat, list[str], dict]) -> None:
    compat, expected, _ = case
    with pytest.raises(ReleaseError) as refused:
        require_accepted(compat, None, "1", "1")
    message = str(refused.value)
    assert message.startswith(f"the schemas changed within API major version 1: {expected[0]}")
    assert message.endswith(
        'Rerun with --accept-schema-change "REASON", or publish the change as a new API major '
        "version"
    )


def test_each_change_is_recorded_with_its_reason(case: tuple[Compat, list[str], dict]) -> None:
    compat, expected, failures = case
    require_accepted(compat, "consumers asked for it", "1", "1")  # does not raise
    section = changelog_section(compat, "consumers asked for it", "v2026.10.19", "1", "1")
    lines = section.splitlines()
    assert lines[:5] == [
        "### Schema changes",
        "",
        "Schema change accepted: consumers asked for it",
        "",
        "Compared with the schemas of v2026.10.19:",
    ]
    assert lines[6 : 6 + len(expected)] == [f"- {change}" for change in expected]
    old_line = "The documents of v2026.10.19 against the new schemas: "
    assert any(line.startswith(old_line) for line in lines)
    if failures[OLD_DOCS_NEW_SCHEMAS] is None:
        assert f"{old_line}valid." in lines


def test_a_new_major_version_needs_no_reason(case: tuple[Compat, list[str], dict]) -> None:
    compat, _, _ = case
    require_accepted(compat, None, "1", "2")  # does not raise
    section = changelog_section(compat, None, "v2026.10.19", "1", "2")
    assert section.splitlines()[2] == "API major version 1 -> 2."


def test_const_and_schema_files_added_and_removed() -> None:
    old = {
        "a.schema.json": {"$id": "urn:x:a", "properties": {"v": {"const": "1"}}},
        "b.schema.json": {},
    }
    new = {
        "a.schema.json": {"$id": "urn:x:a", "properties": {"v": {"const": "2"}}},
        "c.schema.json": {},
    }
    assert schema_changes(old, new) == [
        SchemaChange("a.schema.json", "/v", "const changed", '"1" -> "2"'),
        SchemaChange("b.schema.json", "", "schema removed"),
        SchemaChange("c.schema.json", "", "schema added"),
    ]


def test_refs_resolve_within_the_set_only() -> None:
    """A $ref to a schema outside the set is reported, never fetched."""
    schemas = {
        "index.schema.json": {
            "$id": "https://example.org/a.json",
            "$ref": "https://example.org/missing.json",
        }
    }
    failures = cross_validate(schemas, {"index.json": {}})
    assert [str(f) for f in failures] == [
        'index.json: /: "https://example.org/a.json": expected every $ref to resolve, '
        'found "https://example.org/missing.json"'
    ]
    with pytest.raises(
        InputError, match=r"index\.schema\.json: .* expected every \$ref to resolve, found"
    ):
        schema_changes(schemas, schemas)


def test_a_pattern_python_rejects_that_no_value_meets_is_no_failure() -> None:
    """The cross-check's fast validator compiles every pattern; one Python's re rejects leaves the
    judging to jsonschema, which meets it only where a document has that field."""
    for pattern in ("(?P<", "\\p{L}+", "(?<=a+)b"):
        field = {"type": "string", "pattern": pattern}
        schemas = {"index.schema.json": {"$id": "urn:x:a", "properties": {"absent": field}}}
        assert cross_validate(schemas, {"index.json": {}}) == []


def test_the_cross_check_judges_by_draft_2020_12_whatever_a_schema_says() -> None:
    """jsonschema judges every schema as draft 2020-12; the fast validator must not take an older
    draft from $schema and pass a document jsonschema refuses (draft 7 ignores prefixItems)."""
    rows = {"type": "array", "prefixItems": [{"type": "string"}]}
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "urn:x:a",
        "properties": {"rows": rows},
    }
    failures = cross_validate({"index.schema.json": schema}, {"index.json": {"rows": [1]}})
    assert [f.code for f in failures] == ["schema.type"]


def test_a_ref_cycle_is_one_line_in_both_the_diff_and_the_cross_check() -> None:
    """The one $ref resolver refuses a definition that refers to itself, instead of walking it
    forever."""
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}
    schemas = {
        "index.schema.json": {"$id": "urn:x:a", "$ref": "#/$defs/node", "$defs": {"node": node}}
    }
    cycle = 'urn:x:a": expected \\$refs that end, found a cycle through "#/\\$defs/node"'
    with pytest.raises(InputError, match=cycle):
        schema_changes(schemas, schemas)
    with pytest.raises(InputError, match=cycle):
        cross_validate(schemas, {"index.json": {}})


# The command line: builder schema-diff


def test_schema_diff_of_two_folders(tmp_path: Path, cli) -> None:
    new = tmp_path / "new"
    shutil.copytree(REPO / "schemas", new / "schemas")
    defs = json.loads((new / "schemas" / "defs.schema.json").read_text())
    defs["$defs"]["precision"]["enum"] = ["BF16", "FP8", "MXFP4", "FP4"]
    (new / "schemas" / "defs.schema.json").write_text(json.dumps(defs))
    result = cli("schema-diff", "--exit-code", str(REPO), str(new))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        'index.schema.json /rows[]/precision: enum widened: added "FP4"',
        'model.schema.json /best/*/precision: enum widened: added "FP4"',
        'model.schema.json /configurations[]/precision: enum widened: added "FP4"',
        "Widening: every change adds (a schema, a field, an enum value, a resource or a column).",
    ]


@pytest.mark.slow  # a git checkout; test_schema_diff_of_two_folders is the schema-diff smoke case
def test_schema_diff_of_a_ref_and_the_working_tree(in_repo: Path, cli) -> None:
    result = cli("schema-diff", "--documents", "--exit-code", "HEAD", ".")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "no schema changes from HEAD to .",
        "documents: each side's documents are valid against the other side's schemas",
    ]


def test_schema_diff_refuses_what_is_neither_folder_nor_ref(in_repo: Path, cli) -> None:
    result = cli("schema-diff", "no-such-ref-or-folder", ".")
    assert result.exit_code == 1
    assert (
        result.output
        == "error: no-such-ref-or-folder: expected a folder or a git ref, found neither\n"
    )


@pytest.mark.parametrize("with_data", [True, False], ids=["empty-data-folder", "no-data-folder"])
def test_schema_diff_documents_refuses_a_side_without_documents(
    tmp_path: Path, cli, with_data: bool
) -> None:
    old = tmp_path / "old\nfake: valid"
    shutil.copytree(REPO / "schemas", old / "schemas")
    if with_data:
        (old / "data").mkdir()
    result = cli("schema-diff", "--documents", str(old), str(REPO))
    assert result.exit_code == 1
    given = f"{tmp_path}/old\\nfake: valid"
    searched = f"{given}/data/" if with_data else f"{given}/"
    expected = (
        f"{given}: expected a data folder or a git ref holding data/, found no documents "
        f"in {searched}"
    )
    assert result.output == f"error: {expected}\n"


# builder release: the guard and the changelog section, end to end


@pytest.mark.slow
def test_release_refuses_a_schema_change_then_records_it_with_the_reason(
    released_repo: Path,  # noqa: F811
    cli,
) -> None:
    repo = released_repo  # released once as v2026.11.29 (test_release.released_template asserts it)
    defs_path = repo / "schemas" / "defs.schema.json"
    defs = json.loads(defs_path.read_text())
    defs["$defs"]["precision"]["enum"].append("FP4")
    defs_path.write_text(json.dumps(defs, indent=2) + "\n")
    # rebuilds datapackage.json (its enums follow the schemas), commits
    rebuild_with(repo, cli, 1.05, "2026-12-02")
    head = git(repo, "rev-parse", "HEAD")
    refused = release(cli)
    assert refused.exit_code == 1
    change = 'index.schema.json /rows[]/precision: enum widened: added "FP4"'
    assert f"error: the schemas changed within API major version 1: {change}" in refused.output
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "tag") == "v2026.11.29"
    accepted = release(cli, "--accept-schema-change", "FP4 weights are coming")
    assert accepted.exit_code == 0, accepted.output
    entry = (repo / "CHANGELOG.md").read_text().split("## v2026.11.29 ")[0]
    assert "### Schema changes\n\nSchema change accepted: FP4 weights are coming\n" in entry
    assert '- model.schema.json /configurations[]/precision: enum widened: added "FP4"\n' in entry
    assert "The documents of v2026.11.29 against the new schemas: valid." in entry
    assert "Schema change accepted: FP4 weights are coming" in git(
        repo, "tag", "-l", "--format=%(contents)", "v2026.12.02"
    )
