"""Read a published tree once, trusting nothing: regular files by lstat, within MAX_FILE_BYTES, strict JSON."""

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from builder.errors import Problem, printable
from builder.files import Refused, kind, read_file, too_large
from builder.layout import DESCRIPTOR, JSON, MAX_FILE_BYTES, is_published
from builder.strictjson import StrictJSONError, json_type, parse_json


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


class Listing(NamedTuple):
    """The regular files below a folder (sorted paths relative to it), and a problem for every other entry."""

    files: list[str]
    problems: list[Problem]


def scan(folder: Path, shown: str) -> Listing:
    """Every entry below `folder` by lstat: regular files within MAX_FILE_BYTES, else a problem; reads nothing."""
    try:
        top = os.lstat(folder)
    except OSError as exc:
        return Listing([], [Problem(shown, "/", f"expected a folder, found an error ({exc.strerror})")])
    if not stat.S_ISDIR(top.st_mode):
        return Listing([], [Problem(shown, "/", f"expected a folder, found {kind(top.st_mode)}")])
    files: list[str] = []
    problems: list[Problem] = []
    pending = [""]
    while pending:
        prefix = pending.pop()
        try:
            with os.scandir(folder / prefix if prefix else folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as exc:
            at = f"{shown}/{prefix}".rstrip("/")
            problems.append(Problem(at, "/", f"expected a readable folder, found an error ({exc.strerror})"))
            continue
        for entry in entries:
            rel, fault = f"{prefix}{entry.name}", None
            try:
                entry.name.encode("utf-8")
                info = entry.stat(follow_symlinks=False)
            except UnicodeEncodeError:
                fault = "expected a UTF-8 file name, found undecodable bytes (not read)"
            except OSError as exc:
                fault = f"expected a regular file, found an error ({exc.strerror})"
            else:
                if not entry.name.isprintable():
                    fault = "expected a file name of printable characters, found a control character (not read)"
                elif stat.S_ISDIR(info.st_mode):
                    pending.append(f"{rel}/")
                elif not stat.S_ISREG(info.st_mode):
                    fault = f"expected a regular file, found {kind(info.st_mode)} (not read)"
                elif info.st_size > MAX_FILE_BYTES:
                    fault = f"{too_large(info.st_size)} (not read)"
                else:
                    files.append(rel)
            if fault is not None:  # undecodable bytes and control characters escaped
                path = f"{shown}/{rel}".encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                problems.append(Problem(printable(path), "/", fault))
    return Listing(sorted(files), problems)


def load_tree(data_dir: Path) -> Tree:
    """Every published file below `data_dir`, plus the package descriptor beside it."""
    tree = Tree(root=data_dir.parent, data_dir=data_dir.name)
    files, tree.problems = scan(data_dir, tree.data_dir)
    for rel in files:
        if not is_published(rel):  # never read, never shipped: a dotfile, an editor's backup, a stray file
            tree.problems.append(Problem(tree.shown(rel), "/", "expected only published files, found a stray file"))
            continue
        try:
            tree.raw[rel] = read_file(data_dir / rel)
        except Refused as exc:
            tree.problems.append(Problem(tree.shown(rel), "/", str(exc)))
            continue
        if rel.endswith(JSON):
            tree.docs[rel] = _document(tree, tree.shown(rel), tree.raw[rel])
    descriptor = data_dir.parent / DESCRIPTOR
    try:
        tree.descriptor = _document(tree, DESCRIPTOR, read_file(descriptor))
    except Refused as exc:
        fault = str(exc) if os.path.lexists(descriptor) else "expected the package descriptor, found no file"
        tree.problems.append(Problem(DESCRIPTOR, "/", fault))
    return tree


def _document(tree: Tree, shown: str, data: bytes) -> dict[str, Any] | None:
    """A parsed JSON document that is an object, or None with its problems recorded."""
    try:
        value = parse_json(data)
    except StrictJSONError as exc:  # every fault of the parse, malformed JSON and deep nesting too
        tree.problems += exc.problems(shown)
        return None
    if not isinstance(value, dict):
        tree.problems.append(Problem(shown, "/", f"expected an object, found {json_type(value)}"))
        return None
    return value
