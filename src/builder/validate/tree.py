"""Read a published tree once, trusting nothing: every file's bytes and, for JSON, its parsed value.

Only regular files are read. The tree is walked with lstat (os.scandir), never following a link;
a symlink, FIFO, socket or device is reported, never opened. A file over MAX_FILE_BYTES, or one
that is not a published file (a stray), is reported and never read. JSON is parsed strictly:
UTF-8 without a BOM, no duplicate key, only finite numbers, integers within 2^53, no lone
surrogate, and every document an object.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.errors import Problem, shown
from builder.files import Refused as NotRead
from builder.files import kind, read_regular
from builder.layout import CSV, DESCRIPTOR, JSON, MAX_FILE_BYTES, is_hidden, schema_for

MAX_SAFE_INTEGER = 2**53  # beyond this, a JSON number is not the same integer in every reader
LIMIT = f"{MAX_FILE_BYTES // (1024 * 1024)} MiB"


@dataclass
class Tree:
    """A package as files: `raw` and `docs` hold the data folder's files by path relative to it."""

    root: Path
    data_dir: str
    raw: dict[str, bytes] = field(default_factory=dict)
    docs: dict[str, Any] = field(default_factory=dict)
    descriptor: Any = None
    problems: list[Problem] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)  # regular files that are not published: listed, never read

    def shown(self, rel: str) -> str:
        """A path as the contributor sees it, relative to the package root."""
        return f"{self.data_dir}/{rel}"


# Reading files: regular files only, never through a link, never more than MAX_FILE_BYTES.


def too_large(size: int) -> str:
    return f"expected a file of at most {LIMIT}, found {size} bytes (not read)"


class Refused(Exception):
    """A path that is not read: not a regular file, too large, or unreadable. The message says why."""


def read_file(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES, never through a link; else Refused."""
    try:
        return read_regular(path, MAX_FILE_BYTES, follow_links=False)
    except NotRead as exc:
        why = (
            f"expected a readable file, found an error ({exc.error})"
            if exc.error is not None
            else f"expected a regular file, found {exc.found_kind} (not read)"
            if exc.found_kind is not None
            else too_large(exc.size or 0)
        )
        raise Refused(why) from exc


def _name_fault(name: str) -> str | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "expected a UTF-8 file name, found undecodable bytes (not read)"
    if not name.isprintable():
        return "expected a file name of printable characters, found a control character (not read)"
    return None


def _printable(path: str) -> str:
    """A path safe to print: undecodable bytes and control characters escaped."""
    raw = path.encode("utf-8", "surrogateescape")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in raw.decode("utf-8", "backslashreplace"))


@dataclass
class Listing:
    """The regular files below a folder (path relative to it -> size), and every entry refused."""

    files: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def scan(folder: Path, shown: str) -> Listing:
    """Every entry below `folder` by lstat, never following a link: regular files of at most
    MAX_FILE_BYTES are listed; anything else is a problem (shown as `shown/<path>`). Reads nothing."""
    listing = Listing()
    try:
        top = os.lstat(folder)
    except OSError as exc:
        listing.problems.append(Problem(shown, "/", f"expected a folder, found an error ({exc.strerror})"))
        return listing
    if not stat.S_ISDIR(top.st_mode):
        listing.problems.append(Problem(shown, "/", f"expected a folder, found {kind(top.st_mode)}"))
        return listing
    pending = [""]
    while pending:
        prefix = pending.pop()
        try:
            with os.scandir(folder / prefix if prefix else folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as exc:
            at = f"{shown}/{prefix}".rstrip("/")
            listing.problems.append(Problem(at, "/", f"expected a readable folder, found an error ({exc.strerror})"))
            continue
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            fault = _name_fault(entry.name)
            if fault is None:
                try:
                    info = entry.stat(follow_symlinks=False)
                    mode, size = info.st_mode, info.st_size
                except OSError as exc:
                    fault = f"expected a regular file, found an error ({exc.strerror})"
                else:
                    if stat.S_ISDIR(mode):
                        pending.append(f"{rel}/")
                    elif not stat.S_ISREG(mode):
                        fault = f"expected a regular file, found {kind(mode)} (not read)"
                    elif size > MAX_FILE_BYTES:
                        fault = too_large(size)
                    else:
                        listing.files[rel] = size
            if fault is not None:
                listing.problems.append(Problem(_printable(f"{shown}/{rel}"), "/", fault))
    listing.files = dict(sorted(listing.files.items()))
    return listing


# Strict JSON.


class StrictJSONError(ValueError):
    """JSON that Python's json would accept but we do not: every fault as (where, message)."""

    def __init__(self, faults: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{where}: {message}" for where, message in faults))
        self.faults = faults


class _Fault:
    """What a parse hook returns in place of a value it refuses, found afterwards by its pointer."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


class _Repeated(dict):  # type: ignore[type-arg]
    """An object that repeated a key: the keys, in order of their second appearance."""

    repeated: list[str]


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"


def parse_json(data: bytes) -> Any:
    """Strict JSON, or StrictJSONError: UTF-8 without a byte order mark, no duplicate key (the
    first value would be silently dropped), no NaN or Infinity however written (1e999 is
    infinite too), integers within 2^53 in magnitude, no lone surrogate (\\ud800)."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise StrictJSONError([("byte 0", "expected UTF-8 JSON without a byte order mark, found U+FEFF (a BOM)")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StrictJSONError(
            [(f"byte {exc.start}", f"expected UTF-8 JSON, found undecodable bytes ({exc.reason})")]
        ) from None
    faulty: list[bool] = []

    def number(literal: str) -> Any:
        value = float(literal)
        if math.isfinite(value):
            return value
        faulty.append(True)
        return _Fault(f"expected a finite number, found {_shown(literal)}")

    def integer(literal: str) -> Any:
        digits = len(literal) - literal.startswith("-")
        if digits <= 16 and abs(value := int(literal)) <= MAX_SAFE_INTEGER:  # int() of a long string may raise
            return value
        faulty.append(True)
        return _Fault(f"expected an integer within +/-2^53, found {_shown(literal)}")

    def constant(literal: str) -> Any:
        faulty.append(True)
        return _Fault(f"expected a finite number, found {literal}")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        faulty.append(True)
        repeated, seen = _Repeated(obj), set()
        repeated.repeated = []
        for key, _ in items:
            if key in seen:
                repeated.repeated.append(key)
            seen.add(key)
        return repeated

    try:
        value = json.loads(
            text, object_pairs_hook=pairs, parse_float=number, parse_int=integer, parse_constant=constant
        )
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise StrictJSONError([(where, f"expected valid JSON, found {exc.msg} (truncated or hand-broken?)")]) from None
    except RecursionError:
        raise StrictJSONError(
            [("/", "expected JSON nested a few levels deep, found it nested too deep to read")]
        ) from None
    if faulty or (r"\u" in text and _SURROGATE.search(text)):
        faults = _faults(value)
        if faults:
            raise StrictJSONError(faults)
    return value


_SURROGATE = re.compile(r"\\u[dD][89abAB]")  # a surrogate escape: paired ones are fine, lone ones are not


def _pointer(parts: list[str]) -> str:
    return _printable("/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts))


def _faults(value: Any) -> list[tuple[str, str]]:
    """Every refused value, repeated key and lone surrogate, by JSON pointer (walked without recursion)."""
    found: list[tuple[str, str]] = []
    pending: list[tuple[list[str], Any]] = [([], value)]
    while pending:
        parts, node = pending.pop()
        if isinstance(node, _Fault):
            found.append((_pointer(parts), node.message))
        elif isinstance(node, str):
            if not _encodable(node):
                found.append((_pointer(parts), "expected text, found a lone surrogate (an unpaired \\ud800-\\udfff)"))
        elif isinstance(node, dict):
            for key in getattr(node, "repeated", ()):
                key_shown = shown(_printable(key), 10_000)
                message = f"expected each key once, found {key_shown} again (a reader keeps either value)"
                found.append((_pointer(parts), message))
            for key, item in node.items():
                if not _encodable(key):
                    found.append((_pointer(parts), "expected text keys, found a lone surrogate in a key"))
                pending.append(([*parts, key], item))
        elif isinstance(node, list):
            pending.extend(([*parts, str(i)], item) for i, item in enumerate(node))
    return sorted(found)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, as the messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


# The tree.


def load_tree(data_dir: Path) -> Tree:
    """Every published file below `data_dir`, plus the package descriptor beside it."""
    tree = Tree(root=data_dir.parent, data_dir=data_dir.name)
    listing = scan(data_dir, tree.data_dir)
    tree.problems += listing.problems
    for rel in listing.files:
        if is_hidden(rel):
            continue  # a hidden regular file (.gitkeep) is not published; a build keeps it as it is
        if rel != CSV and schema_for(rel) is None:
            tree.stray.append(rel)  # reported by check_files; never read
            continue
        try:
            tree.raw[rel] = read_file(data_dir / rel)
        except Refused as exc:
            tree.problems.append(Problem(tree.shown(rel), "/", str(exc)))
            continue
        if rel.endswith(JSON):
            tree.docs[rel] = _document(tree, tree.shown(rel), tree.raw[rel])
    descriptor = data_dir.parent / DESCRIPTOR
    if not os.path.lexists(descriptor):
        tree.problems.append(Problem(DESCRIPTOR, "/", "expected the package descriptor, found no file"))
        return tree
    try:
        tree.descriptor = _document(tree, DESCRIPTOR, read_file(descriptor))
    except Refused as exc:
        tree.problems.append(Problem(DESCRIPTOR, "/", str(exc)))
    return tree


def _document(tree: Tree, shown: str, data: bytes) -> dict[str, Any] | None:
    """A parsed JSON document that is an object, or None with its problems recorded."""
    try:
        value = parse_json(data)
    except StrictJSONError as exc:
        tree.problems += [Problem(shown, where, message) for where, message in exc.faults]
        return None
    except (ValueError, RecursionError) as exc:
        tree.problems.append(Problem(shown, "/", f"expected valid JSON, {exc}"))
        return None
    if not isinstance(value, dict):
        tree.problems.append(Problem(shown, "/", f"expected an object, found {json_type(value)}"))
        return None
    return value
