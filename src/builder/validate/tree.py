"""Read a published tree once: every file's bytes and, for JSON, its parsed value."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.errors import Problem
from builder.layout import DESCRIPTOR


@dataclass
class Tree:
    """A package as files: `raw` and `docs` hold the data folder's files by path relative to it."""

    root: Path
    data_dir: str
    raw: dict[str, bytes] = field(default_factory=dict)
    docs: dict[str, Any] = field(default_factory=dict)
    descriptor: Any = None
    problems: list[Problem] = field(default_factory=list)

    def shown(self, rel: str) -> str:
        """A path as the contributor sees it, relative to the package root."""
        return f"{self.data_dir}/{rel}"


def _reject_constant(name: str) -> float:
    raise ValueError(f"found {name}, which is not a JSON number")


def parse_json(data: bytes) -> Any:
    """Strict JSON: UTF-8, and no NaN or Infinity (Python's json accepts them by default)."""
    return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)


def load_tree(data_dir: Path) -> Tree:
    """Every file below `data_dir`, plus the package descriptor beside it."""
    descriptor = data_dir.parent / DESCRIPTOR
    tree = Tree(root=data_dir.parent, data_dir=data_dir.name)
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(data_dir).as_posix()
        tree.raw[rel] = path.read_bytes()
        if rel.endswith(".json"):
            tree.docs[rel] = _parsed(tree, tree.shown(rel), tree.raw[rel])
    if descriptor.is_file():
        tree.descriptor = _parsed(tree, DESCRIPTOR, descriptor.read_bytes())
    else:
        tree.problems.append(Problem(DESCRIPTOR, "/", "expected the package descriptor, found no file"))
    return tree


def _parsed(tree: Tree, shown: str, data: bytes) -> Any:
    try:
        return parse_json(data)
    except UnicodeDecodeError as exc:
        tree.problems.append(Problem(shown, "/", f"expected UTF-8 JSON, found undecodable bytes ({exc.reason})"))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        tree.problems.append(Problem(shown, where, f"expected valid JSON, found {exc.msg} (truncated or hand-broken?)"))
    except (ValueError, RecursionError) as exc:
        tree.problems.append(Problem(shown, "/", f"expected valid JSON, {exc}"))
    return None
