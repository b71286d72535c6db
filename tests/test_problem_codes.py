"""Every problem names its rule by a stable code listed in docs/problem-codes.md, and carries what
was expected and what was found as values (never parsed out of its message)."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.errors import BuilderError, InputError, Problem, Said
from builder.jsonschemas import compiled, schema_problems
from builder.report import problems_as
from helpers import REPO

SOURCES = REPO / "src" / "builder"
CODES_DOC = REPO / "docs" / "problem-codes.md"
# What makes a problem, and the place of its code among its arguments.
MAKERS = {"Problem": 3, "Problem.of": 2, "Problem.mismatch": 2, "Finding": 1}
# Problem(...) calls that may leave expected and found None, by (file, code), each with its reason.
WITHOUT_SIDES = {
    ("src/builder/report.py", "error"): "a BuilderError that holds no Problem: its sentence is "
    "all it says (a usage or input error), printed by --format json|github as one problem",
}


@dataclass(frozen=True)
class Made:
    """One construction of a problem in the source: its line, the codes it can give (None: not
    read from the source), and whether it fills expected and found."""

    line: int
    codes: tuple[str, ...] | None
    sides: bool


def maker(node: ast.Call) -> str | None:
    """`Problem`, `Problem.of`, `Problem.mismatch` or `Finding`, when `node` calls one."""
    func = node.func
    if isinstance(func, ast.Name):
        name = func.id
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name = f"{func.value.id}.{func.attr}"
    else:
        return None
    return name if name in MAKERS else None


def codes_of(node: ast.expr | None, assigned: dict[str, list[ast.expr]]) -> tuple[str, ...] | None:
    """The codes an expression can be: a literal, either branch of `a if c else b`, a family
    `prefix.<>` for an f-string, a name assigned one of these in the module, or a Finding's `.code`
    (its codes are read where the Finding is made: none here). None when it is none of these."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.IfExp):
        both = codes_of(node.body, assigned), codes_of(node.orelse, assigned)
        return None if None in both else (*both[0], *both[1])  # type: ignore[misc]
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        literal = isinstance(head, ast.Constant) and isinstance(head.value, str)
        return (f"{head.value}<>",) if literal else None  # type: ignore[union-attr]
    if isinstance(node, ast.Name) and node.id in assigned:
        found = [codes_of(value, assigned) for value in assigned[node.id]]
        return None if None in found else tuple(c for codes in found for c in codes or ())
    if isinstance(node, ast.Attribute) and node.attr == "code":
        return ()
    return None


def made(tree: ast.AST) -> list[Made]:
    """Every problem (or Finding) `tree` makes."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(target := node.targets[0], ast.Name):
            assigned.setdefault(target.id, []).append(node.value)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (name := maker(node)) is None:
            continue
        at = MAKERS[name]
        keywords = {k.arg: k.value for k in node.keywords}
        code = node.args[at] if len(node.args) > at else keywords.get("code")
        # Problem.of takes a Said, Problem.mismatch both sides, a Finding a Said (mypy --strict)
        sides = name != "Problem" or len(node.args) >= 6 or {"expected", "found"} <= keywords.keys()
        found.append(Made(node.lineno, codes_of(code, assigned), sides))
    return sorted(found, key=lambda m: m.line)


@pytest.fixture(scope="module")
def source() -> dict[str, list[Made]]:
    """What each module of the builder makes, by its path in the repository."""
    return {
        str(path.relative_to(REPO)): made(ast.parse(path.read_text(), str(path)))
        for path in sorted(SOURCES.rglob("*.py"))
    }


def family(code: str) -> str:
    """A code as the list compares it: a family's `<name>` as `<>`."""
    return re.sub(r"<[^>]*>", "<>", code)


def listed() -> dict[str, str]:
    """docs/problem-codes.md's codes (families as `prefix.<>`), each with its meaning."""
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", CODES_DOC.read_text(), re.MULTILINE)
    return {family(code): meaning for code, meaning in rows}


def is_listed(code: str, codes: dict[str, str]) -> bool:
    """Whether a code a check gave is in the list, by itself or in its family."""
    return code in codes or any(f.endswith("<>") and code.startswith(f[:-2]) for f in codes)


def test_every_problem_in_the_builder_names_a_code_the_scan_reads(source) -> None:
    unread = {path: [m.line for m in found if m.codes is None] for path, found in source.items()}
    assert {path: lines for path, lines in unread.items() if lines} == {}


def test_every_problem_keeps_expected_and_found_unless_allowed(source) -> None:
    without = {
        (path, code)
        for path, found in source.items()
        for m in found
        if not m.sides
        for code in m.codes or ("?",)
    }
    assert without == set(WITHOUT_SIDES)
    assert all(reason for reason in WITHOUT_SIDES.values())


def test_every_code_is_listed_with_its_meaning_and_every_listed_code_is_used(source) -> None:
    used = {family(code) for found in source.values() for m in found for code in m.codes or ()}
    codes = listed()
    assert sorted(used - codes.keys()) == []  # list each with a one-line meaning
    assert sorted(codes.keys() - used) == []  # no longer made: remove it from the list
    assert all(meaning.strip() and "\n" not in meaning for meaning in codes.values())


SCAN = """
RULE = "rule.constant"
Problem(p, "/", "no code")
Problem(p, "/", "x", "rule.a")
Problem(p, "/", "x", code="rule.b", expected="1", found="2")
Problem.of(p, "/", f"schema.{kind}", said)
Problem.mismatch(p, "/", "rule.c" if a else "rule.d", "1", "2")
Finding("/x", RULE, said)
Problem.of(p, f.where, f.code, f.said)
Problem.of(p, "/", pick(kind), said)
"""


def test_the_scan_reads_codes_and_sides() -> None:
    assert made(ast.parse(SCAN)) == [
        Made(3, None, False),
        Made(4, ("rule.a",), False),
        Made(5, ("rule.b",), True),
        Made(6, ("schema.<>",), True),
        Made(7, ("rule.c", "rule.d"), True),
        Made(8, ("rule.constant",), True),
        Made(9, (), True),
        Made(10, None, True),
    ]


def test_a_family_matches_its_codes_alone() -> None:
    codes = {"schema.<>": "a keyword", "json.strict": "strict"}
    assert [is_listed(c, codes) for c in ("schema.minimum", "json.strict", "json.other")] == [
        True,
        True,
        False,
    ]


def test_said_keeps_both_sides_and_renders_the_message() -> None:
    said = Said("a value >= 1", "0", " (note)")
    assert said == "expected a value >= 1, found 0 (note)"
    problem = Problem.of("a.json", "/x", "schema.minimum", said)
    assert (problem.message, problem.code, problem.expected, problem.found) == (
        said,
        "schema.minimum",
        "a value >= 1",
        "0",
    )
    more = said.noted(" (and 2 more)")
    assert (more, more.expected, more.found) == (f"{said} (and 2 more)", "a value >= 1", "0")


def check_fields(problems: list[Problem]) -> None:
    """Each problem has a listed code and both sides; a message worded `expected ..., found ...`
    is made from them."""
    assert problems
    codes = listed()
    for p in problems:
        assert is_listed(p.code, codes), p
        assert p.expected, p
        assert p.found, p
        if p.message.startswith("expected "):
            assert p.message.startswith(f"expected {p.expected}, found {p.found}"), p


# every planted problem of tests/test_validate_corpus.py's rule cases goes through check_fields
# there (test_hand_edit_is_rejected_by_rule), by the run that checks its message


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2) + "\n")


@pytest.mark.slow
def test_validate_json_gives_each_class_of_fault_a_code_and_its_sides(repo_copy: Path, cli) -> None:
    """One fault of each class planted at once, through `builder validate --format json`: a
    schema, physics, a copied value, strict JSON, a stray file, the descriptor, a CSV table."""
    data = repo_copy / "data"
    _edit(data / "models" / "qwen-3-8b.json", lambda d: d.pop("architecture"))
    conf = "configurations"
    _edit(data / "models" / "gemma-3-27b.json", lambda d: d[conf][0].update(avg_running_batch=99.0))
    _edit(data / "index.json", lambda d: d["rows"][2].update(wh_per_million_output_tokens=1.0))
    _edit(repo_copy / "datapackage.json", lambda d: d.update(title="Another title"))
    image = next((data / "workloads" / "text-to-image" / "models").glob("*.json"))
    image.write_text(image.read_text().replace("{", '{"slug": "twice", ', 1))
    (data / "models" / ".notes.json").write_text("{}\n")
    table = data / "configurations.csv"
    table.write_text(table.read_text().replace(",3854,", ",lots,", 1))
    result = cli("validate", "--format", "json")
    assert result.exit_code == 1, result.output
    problems = json.loads(result.stdout)["problems"]
    assert {p["code"] for p in problems} >= {
        "schema.required",
        "physics.running-batch",
        "crossfile.copied-value",
        "json.strict",
        "tree.unpublished-file",
        "descriptor.value",
        "table.type-error",
    }
    for p in problems:
        assert all(isinstance(p[key], str) and p[key] for key in ("code", "expected", "found")), p


def test_a_schema_error_says_its_sides_from_its_fields_not_its_message() -> None:
    """Every property missing in one problem; a key with a quote named whole (a message parsed
    for its quotes would cut it)."""
    check = compiled({"required": ["a", "b"], "properties": {"a": {}, "b": {}}})
    problems = schema_problems(check, {}, "x.json")
    assert [(p.code, p.expected, p.found) for p in problems] == [
        ("schema.required", "required properties 'a', 'b'", "them missing")
    ]
    check = compiled({"properties": {"a": {}}, "additionalProperties": False})
    (problem,) = schema_problems(check, {"a": 1, "it's": 2, "b": 3}, "x.json")
    assert (problem.code, problem.expected, problem.found) == (
        "schema.additionalProperties",
        "no properties beyond the schema's",
        "'b', \"it's\"",
    )


def test_an_input_error_is_reported_by_its_problem_when_a_check_made_one(capsys) -> None:
    """A broken metadata.toml or lock stops validate with one InputError: --format json prints
    the rule's code and both sides; a sentence alone is coded `error`."""
    problem = Problem.mismatch("metadata.toml", "/workload/1", "schema.type", "an object", "1")
    for error in (InputError(str(problem), problem), InputError("no such file")):
        with pytest.raises(BuilderError) as raised, problems_as("json"):
            raise error
        assert str(raised.value) == str(error)
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    ((one,), (other,)) = first["problems"], second["problems"]
    assert (one["code"], one["expected"], one["found"]) == ("schema.type", "an object", "1")
    assert (other["code"], other["expected"], other["found"]) == ("error", None, None)
