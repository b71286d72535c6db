"""No two modules of the builder define one public name: a name read anywhere means one thing."""

import ast
from collections import defaultdict

from helpers import REPO

SRC = REPO / "src" / "builder"
# The same idea under one name: a click command is named after the function it calls.
ALLOWED = {"build": {"build.py", "cli.py"}}


def public_names(source: str) -> set[str]:
    """The public names a module's top level defines: functions, classes and assigned names."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def defined_twice(modules: dict[str, str]) -> dict[str, set[str]]:
    """Each public name that more than one module defines, with those modules."""
    homes: dict[str, set[str]] = defaultdict(set)
    for module, source in modules.items():
        for name in public_names(source):
            homes[name].add(module)
    return {name: where for name, where in homes.items() if len(where) > 1}


def test_a_name_two_modules_define_is_found() -> None:
    modules = {"a.py": "Workload = 1\ndef render(): ...\n_own = 2\n", "b.py": "class Workload: ..."}
    assert defined_twice(modules) == {"Workload": {"a.py", "b.py"}}


def test_no_two_modules_define_one_public_name() -> None:
    modules = {p.relative_to(SRC).as_posix(): p.read_text() for p in SRC.rglob("*.py")}
    twice = {
        name: where for name, where in defined_twice(modules).items() if ALLOWED.get(name) != where
    }
    assert twice == {}
