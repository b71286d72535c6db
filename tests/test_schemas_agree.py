"""The Table Schemas in datapackage.json say what the JSON Schemas say, field by field."""

from __future__ import annotations

import json

import pytest

from helpers import REPO

SCHEMAS = {p.name: json.loads(p.read_text()) for p in (REPO / "schemas").glob("*.schema.json")}
DEFS = SCHEMAS["defs.schema.json"]["$defs"]
GEN_DEFS = SCHEMAS["generation-defs.schema.json"]["$defs"]  # the generation workloads' fields
GENERATION = ("text-to-image", "text-to-video")
DESCRIPTOR = json.loads((REPO / "datapackage.json").read_text())
TABLES = {r["name"]: r for r in DESCRIPTOR["resources"] if r.get("type") == "table"}


def resolve(node: dict) -> dict:
    """Follow $ref (and a one-item allOf) into the shared definitions (or the generation ones)."""
    ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
    if not ref:
        return node
    defs = GEN_DEFS if ref.startswith("generation-defs.schema.json") else DEFS
    # a document schema's own: described where it is used
    if (target := defs.get(ref.split("/")[-1])) is None:
        return node
    return {**resolve(target), **{k: v for k, v in node.items() if k not in ("$ref", "allOf")}}


def json_fields(table: str) -> tuple[list[str], dict]:
    """The JSON Schema fields a table views: the CSV of the LLM workloads, or a generation
    workload's own."""
    generation = next((w for w in GENERATION if table.endswith(f"-{w}")), None)
    if generation is not None:
        items = GEN_DEFS[f"{generation.removeprefix('text-to-')}CsvRow"]
    else:
        conf, model = DEFS["configuration"], ("workload", "slug", "name", "model_id")
        appended = (
            "joules_per_response",
            "wh_per_thousand_responses",
            "params_b",
            "active_params_b",
            "architecture",
        )
        columns = [*model, *conf["required"], *appended]
        return columns, {**{k: DEFS[k] for k in (*model, *appended)}, **conf["properties"]}
    return list(items["properties"]), items["properties"]


@pytest.mark.parametrize("table", sorted(TABLES))
def test_table_schema_agrees_with_json_schema(table: str) -> None:
    names, props = json_fields(table)
    fields = TABLES[table]["schema"]["fields"]
    assert [f["name"] for f in fields] == names
    for field in fields:
        node = resolve(props[field["name"]])
        c = field["constraints"]
        assert field["type"] == node["type"], field["name"]
        assert field["description"] == node["description"], field["name"]
        assert c["required"] is True, field["name"]
        assert c.get("minimum") == node.get("minimum"), field["name"]
        assert c.get("exclusiveMinimum") == node.get("exclusiveMinimum"), field["name"]
        assert c.get("enum") == node.get("enum", [node["const"]] if "const" in node else None), (
            field["name"]
        )
        assert c.get("maxLength") == node.get("maxLength"), field["name"]
        # a Table Schema pattern is anchored at both ends by its reader
        pattern = node.get("pattern")
        anchored = (
            pattern.removeprefix("^").removesuffix("$(?!\\n)").removesuffix("$")
            if pattern
            else None
        )
        assert c.get("pattern") == anchored, field["name"]


def test_every_json_schema_field_has_a_description() -> None:
    def walk(node, where):
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if where.endswith("/if"):  # a condition names a field described where it is defined
                    continue
                assert "description" in resolve(prop), f"{where}/{name}"
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for name, schema in SCHEMAS.items():
        walk(schema, name)


def test_schemas_are_strict() -> None:
    def walk(node, where):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                assert node.get("additionalProperties") is False, where
                # required when the `if` holds
                conditional = node.get("then", {}).get("required", [])
                assert sorted([*node["required"], *conditional]) == sorted(node["properties"]), (
                    where
                )
            for key, value in node.items():
                walk(value, f"{where}/{key}")

    for name, schema in SCHEMAS.items():
        walk(schema, name)


def test_the_input_schemas_are_never_published(monkeypatch: pytest.MonkeyPatch) -> None:
    """schemas/inputs/ is the builder's own: not in the descriptor, the schema set, the site or a
    release."""
    from builder.jsonschemas import load_schemas
    from builder.release import dist

    inputs = sorted(p.name for p in (REPO / "schemas" / "inputs").glob("*.schema.json"))
    assert inputs == [
        "diff-document.schema.json",
        "generation-task.schema.json",
        "generation-workload.schema.json",
        "lock.schema.json",
        "metadata.schema.json",
        "upstream-model.schema.json",
        "upstream-task.schema.json",
    ]
    assert "schemas/inputs" not in json.dumps(DESCRIPTOR)
    monkeypatch.chdir(REPO)
    assert not set(load_schemas()) & set(inputs)
    committed = {f"schemas/inputs/{name}": b"{}" for name in inputs} | {
        "schemas/model.schema.json": b"{}"
    }
    monkeypatch.setattr(dist.git, "tree_files", lambda commit, paths: (committed, []))
    assert list(dist.files_at("0" * 40)) == ["schemas/model.schema.json"]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (REPO / "schemas" / "inputs").glob("*.schema.json"))
)
def test_each_input_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((REPO / "schemas" / "inputs" / name).read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_the_name_rule_of_every_script_refuses_control_and_format_characters_and_formulas() -> None:
    """schemas/inputs/upstream-task.schema.json's safe-text: letters of any script pass; Unicode Cc
    and Cf anywhere, a leading =, +, - or @, and a trailing newline do not."""
    import re
    import sys
    import unicodedata

    schema = json.loads((REPO / "schemas" / "inputs" / "upstream-task.schema.json").read_text())
    safe = re.compile(schema["$defs"]["safe-text"]["pattern"])
    for name in ("PixArt-Σ", "Qwen 3 14B", "Модель 7B", "日本語モデル", "a=b", "x@y"):
        assert safe.search(name), name
    for name in ("", "=HYPERLINK(1)", "+1", "-x", "@x", "x\n", "\x1b[31mx"):
        assert not safe.search(name), name
    hidden = [
        chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf")
    ]
    assert len(hidden) > 200
    assert not [c for c in hidden if safe.search(f"a{c}b") or safe.search(f"{c}ab")]
    letters = [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)).startswith("L")]
    assert all(safe.search(f"{c}1") for c in letters)
