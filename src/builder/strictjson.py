"""Strict JSON: what Python's json accepts minus what readers disagree on, every fault by JSON
pointer."""

import json
import math
import re
from collections import Counter
from typing import Any

from builder.errors import InputError, Problem, Said, pointer, printable, shown

Doc = dict[str, Any]  # a parsed JSON object: a document, or a part of one
MAX_SAFE_INTEGER = 2**53  # beyond this, a JSON number is not the same integer in every reader


class StrictJSONError(ValueError):
    """JSON that Python's json would accept but we do not: every fault as (where, message)."""

    def __init__(self, faults: list[tuple[str, Said]]) -> None:
        super().__init__("; ".join(f"{where}: {message}" for where, message in faults))
        self.faults = faults

    def problems(self, path: str) -> list[Problem]:
        """Every fault as a Problem of the file `path`."""
        return [Problem.of(path, where, "json.strict", message) for where, message in self.faults]


class _Fault(Said):
    """What a parse hook returns in place of a value it refuses (its message), found afterwards
    by pointer."""


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"


def decode_json(data: bytes) -> str:
    """JSON bytes as text, or StrictJSONError: UTF-8 without a BOM."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise StrictJSONError(
            [("byte 0", Said("UTF-8 JSON without a byte order mark", "U+FEFF (a BOM)"))]
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        fault = Said("UTF-8 JSON", f"undecodable bytes ({exc.reason})")
        raise StrictJSONError([(f"byte {exc.start}", fault)]) from None


def parse_json(data: bytes | str, drop: frozenset[str] = frozenset()) -> Any:
    """Strict JSON, or StrictJSONError: UTF-8, no BOM, keys once, finite numbers, ints within 2^53,
    no lone \\ud800. Keys in `drop` are left out of every object as it is built. data: bytes, or
    text decode_json gave."""
    text = data if isinstance(data, str) else decode_json(data)
    # refused values, and each object that repeated a key (held, so its id() stays its own)
    faulty: list[object] = []
    repeats: dict[int, list[str]] = {}  # by id() of such an object, the keys it repeated

    def refuse(expected: str, found: str) -> _Fault:
        faulty.append(expected)
        return _Fault(expected, found)

    def number(literal: str) -> Any:
        value = float(literal)
        return value if math.isfinite(value) else refuse("a finite number", _shown(literal))

    def integer(literal: str) -> Any:
        digits = len(literal) - literal.startswith("-")
        # int() of a long string may raise
        if digits <= 16 and abs(value := int(literal)) <= MAX_SAFE_INTEGER:
            return value
        return refuse("an integer within +/-2^53", _shown(literal))

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            counts = Counter(key for key, _ in items)
            repeats[id(obj)] = [key for key, count in counts.items() for _ in range(count - 1)]
            faulty.append(obj)
        if drop and not drop.isdisjoint(obj):  # built anew: a dict's table never shrinks
            obj = {key: value for key, value in obj.items() if key not in drop}
        return obj

    def constant(word: str) -> Any:
        return refuse("a finite number", word)

    plain = _plain_numbers(data)
    try:  # numbers within bounds need no hook: int and float make of them what the hooks would
        value = json.loads(
            text,
            parse_constant=constant,
            parse_float=None if plain else number,
            parse_int=None if plain else integer,
            object_pairs_hook=pairs,
        )
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise StrictJSONError(
            [(where, Said("valid JSON", exc.msg, " (truncated or hand-broken?)"))]
        ) from None
    except RecursionError:
        fault = Said("JSON nested a few levels deep", "it nested too deep to read")
        raise StrictJSONError([("/", fault)]) from None
    # a lone surrogate needs an escape: a backslash first (one byte, a fast search), then \u
    if not (faulty or ("\\" in text and r"\u" in text and _SURROGATE.search(text))):
        return value
    if drop:
        # a fault may sit in what was dropped: every fault of the whole document
        return parse_json(text)
    # every refused value, repeated key and lone surrogate, by JSON pointer
    found: list[tuple[str, Said]] = []
    pending: list[tuple[list[str], Any]] = [([], value)]
    while pending:
        parts, node = pending.pop()
        if isinstance(node, _Fault):
            found.append((pointer(parts), node))
        elif isinstance(node, str) and _LONE.search(node):
            found.append(
                (pointer(parts), Said("text", "a lone surrogate", " (an unpaired \\ud800-\\udfff)"))
            )
        elif isinstance(node, dict):
            for key in repeats.get(id(node), ()):
                key_shown = shown(printable(key), 10_000)
                message = Said("each key once", key_shown, " again (a reader keeps either value)")
                found.append((pointer(parts), message))
            for key, item in node.items():
                if _LONE.search(key):
                    found.append((pointer(parts), Said("text keys", "a lone surrogate in a key")))
                pending.append(([*parts, key], item))
        elif isinstance(node, list):
            pending.extend(([*parts, str(i)], item) for i, item in enumerate(node))
    if found:
        raise StrictJSONError(sorted(found))
    return value


# JSON bytes by class: a digit as 0, e or E as e, a point as itself, any other byte (a minus, a
# letter, a quote, space) as a space; a plus is dropped (no number starts with one; e+000 is e000)
_CLASS = dict(zip(b"0123456789eE.", b"0000000000ee.", strict=True))
_CLASSES = bytes(_CLASS.get(byte, ord(" ")) for byte in range(256))
# what a number beyond any bound needs: a whole part of 16 digits, or a positive 3-digit exponent
_LARGE = (b" " + b"0" * 16, b"e000")


def _plain_numbers(data: bytes | str) -> bool:
    """Whether every number in JSON text has a whole part of at most 15 digits and no positive
    exponent of 3 digits (a plain scan: text that only looks like one counts too). Each is then an
    integer within 2^53, or a finite float."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    classes = b" " + raw.translate(_CLASSES, b"+")
    # rfind, not `in`: a search from the end steps by a needle's first byte, a space or an e, where
    # one from the start steps by its last, a digit, the commonest class (half the time)
    return not any(classes.rfind(large) >= 0 for large in _LARGE)


def parse_input(data: bytes, shown_as: str) -> Any:
    """parse_json, or one InputError: the first fault, as a Problem of the file shown as
    `shown_as`."""
    try:
        return parse_json(data)
    except StrictJSONError as exc:
        first = exc.problems(shown_as)[0]
        raise InputError(str(first), first) from None


# a surrogate escape (high or low): only paired ones are fine
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE = re.compile("[\ud800-\udfff]")  # a surrogate left after parsing: an escape without its pair


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, as the messages name it."""
    if value is None:
        return "null"
    kinds = ((bool, "a boolean"), (int | float, "a number"), (str, "a string"), (list, "an array"))
    return next((name for types, name in kinds if isinstance(value, types)), "an object")
