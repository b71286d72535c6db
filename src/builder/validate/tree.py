"""Read a published tree once, trusting nothing: regular files by lstat, within MAX_FILE_BYTES,
strict JSON."""

import os
import stat
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from builder.errors import Problem, Said, printable
from builder.files import Refused, kind, read_file, too_large
from builder.layout import (
    DESCRIPTOR,
    JSON,
    MAX_FILE_BYTES,
    Place,
    is_published,
    is_published_folder,
    place,
)
from builder.strictjson import StrictJSONError, json_type, parse_json

NOT_READ = " (not read)"  # a file the walk refuses is never opened


@dataclass
class Tree:
    """A package as files: `raw` and `docs` hold the data folder's files by path relative to it."""

    root: Path
    data_dir: str
    raw: MutableMapping[str, bytes] = field(default_factory=dict)
    docs: dict[str, Any] = field(default_factory=dict)
    descriptor: Any = None
    problems: list[Problem] = field(default_factory=list)

    def shown(self, rel: str) -> str:
        """A path as the contributor sees it, relative to the package root."""
        return f"{self.data_dir}/{rel}"

    @cached_property
    def places(self) -> dict[str, Place]:
        """What each file of the layout holds (layout.place), by path: worked out once a tree."""
        return {rel: found for rel in self.raw if (found := place(rel)) is not None}


class ScannedTree(NamedTuple):
    """The regular files below a folder (sorted paths relative to it), and a problem for every
    other entry; the folders below it too."""

    files: list[str]
    problems: list[Problem]
    folders: tuple[str, ...] = ()


def scan(folder: Path, shown: str) -> ScannedTree:
    """Every entry below `folder` by lstat: regular files within MAX_FILE_BYTES, else a problem;
    reads nothing."""
    try:
        top = os.lstat(folder)
    except OSError as exc:
        return ScannedTree(
            [],
            [Problem.mismatch(shown, "/", "tree.folder", "a folder", f"an error ({exc.strerror})")],
        )
    if not stat.S_ISDIR(top.st_mode):
        return ScannedTree(
            [], [Problem.mismatch(shown, "/", "tree.folder", "a folder", kind(top.st_mode))]
        )
    files: list[str] = []
    folders: list[str] = []
    problems: list[Problem] = []
    pending = [""]
    while pending:
        prefix = pending.pop()
        try:
            with os.scandir(folder / prefix if prefix else folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as exc:
            at = f"{shown}/{prefix}".rstrip("/")
            problems.append(
                Problem.mismatch(
                    at, "/", "tree.folder", "a readable folder", f"an error ({exc.strerror})"
                )
            )
            continue
        for entry in entries:
            rel, fault = f"{prefix}{entry.name}", None  # a Said, or None
            try:
                entry.name.encode("utf-8")
                info = entry.stat(follow_symlinks=False)
            except UnicodeEncodeError:
                fault = Said("a UTF-8 file name", "undecodable bytes", NOT_READ)
            except OSError as exc:
                fault = Said("a regular file", f"an error ({exc.strerror})")
            else:
                if not entry.name.isprintable():
                    fault = Said(
                        "a file name of printable characters", "a control character", NOT_READ
                    )
                elif stat.S_ISDIR(info.st_mode):
                    folders.append(rel)
                    pending.append(f"{rel}/")
                elif not stat.S_ISREG(info.st_mode):
                    fault = Said("a regular file", kind(info.st_mode), NOT_READ)
                elif info.st_size > MAX_FILE_BYTES:
                    fault = too_large(info.st_size, NOT_READ)
                else:
                    files.append(rel)
            if fault is not None:  # undecodable bytes and control characters escaped
                path = f"{shown}/{rel}".encode("utf-8", "surrogateescape").decode(
                    "utf-8", "backslashreplace"
                )
                problems.append(Problem.of(printable(path), "/", "tree.file", fault))
    return ScannedTree(sorted(files), problems, tuple(sorted(folders)))


def load_tree(data_dir: Path) -> Tree:
    """Every published file below `data_dir`, plus the package descriptor beside it."""
    tree = Tree(root=data_dir.parent, data_dir=data_dir.name)
    files, tree.problems, folders = scan(data_dir, tree.data_dir)
    for rel in folders:  # a folder named like a file, a dotfolder: never built, never shipped
        if not is_published_folder(rel):
            said = Said("only published folders", "a stray folder")
            tree.problems.append(Problem.of(tree.shown(rel), "/", "tree.unpublished-folder", said))
    for rel in files:
        # never read, never shipped: a dotfile, an editor's backup, a stray file
        if not is_published(rel):
            tree.problems.append(
                Problem.mismatch(
                    tree.shown(rel),
                    "/",
                    "tree.unpublished-file",
                    "only published files",
                    "a stray file",
                )
            )
            continue
        try:
            tree.raw[rel] = read_file(data_dir / rel)
        except Refused as exc:
            tree.problems.append(Problem.of(tree.shown(rel), "/", "tree.refused", exc.said))
            continue
        if rel.endswith(JSON):
            tree.docs[rel] = _document(tree, tree.shown(rel), tree.raw[rel])
    descriptor = data_dir.parent / DESCRIPTOR
    try:
        tree.descriptor = _document(tree, DESCRIPTOR, read_file(descriptor))
    except Refused as exc:
        absent = Said("the package descriptor", "no file")
        fault = exc.said if os.path.lexists(descriptor) else absent
        tree.problems.append(Problem.of(DESCRIPTOR, "/", "tree.descriptor", fault))
    return tree


def _document(tree: Tree, shown: str, data: bytes) -> dict[str, Any] | None:
    """A parsed JSON document that is an object, or None with its problems recorded."""
    try:
        value = parse_json(data)
    except StrictJSONError as exc:  # every fault of the parse, malformed JSON and deep nesting too
        tree.problems += exc.problems(shown)
        return None
    if not isinstance(value, dict):
        tree.problems.append(
            Problem.mismatch(shown, "/", "json.object", "an object", json_type(value))
        )
        return None
    return value
