"""What a diff is made of: a value changed (old -> new, and by how much in percent), and what was
added, removed and changed among things of one kind, each named by its natural key."""

import math
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from builder.errors import shown

Where = TypeVar("Where")  # what names a thing: a text ("qwen-3-8b H100") or an entry.Entry


def percent(old: Any, new: Any) -> float | None:
    """The change from `old` to `new` in percent; None unless both are numbers (a bool is none)
    and `old` is not 0."""
    if not old or not all(type(v) in (int, float) for v in (old, new)):
        return None
    with suppress(OverflowError):  # integers too large for a float
        pct = (new - old) / old * 100
        return pct if math.isfinite(pct) else None
    return None


@dataclass(frozen=True)
class Change(Generic[Where]):
    """One value of a thing both sides have, old and new (None where a side lacks it)."""

    where: Where
    field: str
    old: Any
    new: Any

    @property
    def pct(self) -> float | None:
        return percent(self.old, self.new)


@dataclass
class Delta(Generic[Where]):
    """The things of one kind one side alone has, and the values changed in those both have."""

    added: list[Where] = field(default_factory=list)
    removed: list[Where] = field(default_factory=list)
    changed: list[Change[Where]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def changes(
    where: Where, old: dict[str, Any], new: dict[str, Any], gone: bool = False
) -> list[Change[Where]]:
    """The values of `new` that differ in `old`, in `new`'s order; with `gone`, then those only
    `old` has (new None)."""
    found = [
        Change(where, key, old.get(key), value)
        for key, value in new.items()
        if old.get(key) != value
    ]
    if gone:
        found += [Change(where, key, value, None) for key, value in old.items() if key not in new]
    return found


def change_text(where: str, field: str, old: Any, new: Any) -> str:
    """One changed value for people: where, field, old -> new, and the change in percent."""
    pct = "" if (p := percent(old, new)) is None else f" ({p:+.1f} %)"
    return f"{where} {field}: {shown(old)} -> {shown(new)}{pct}"
