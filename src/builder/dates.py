"""The date rule: content keeps its dates while unchanged, never carries one after tomorrow (UTC),
and a data version is not before upstream was retrieved."""

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Any

from builder.errors import Said
from builder.layout import LOCK

DATE_KEYS = ("updated", "data_version")


def newest_data_version(docs: Iterable[Any]) -> str | None:
    """The newest `data_version` among documents (every workload's), or None when none has one."""
    dated = (
        d["data_version"]
        for d in docs
        if isinstance(d, dict) and isinstance(d.get("data_version"), str)
    )
    return max(dated, default=None)


def undated(doc: dict[str, Any]) -> dict[str, Any]:
    """A document without its dates: what keep_dates compares."""
    return {k: v for k, v in doc.items() if k not in DATE_KEYS}


def keep_dates(new: dict[str, Any], old: Any, latest: str) -> dict[str, Any]:
    """New content keeps the old dates when nothing else changed and none is after `latest`;
    otherwise it keeps its own."""
    keys = [k for k in DATE_KEYS if k in new]  # a frontier has data_version alone
    if (
        not isinstance(old, dict)
        or not all(isinstance(old.get(k), str) and old[k] <= latest for k in keys)
        or undated(old) != undated(new)
    ):
        return new
    return {**new, **{k: old[k] for k in keys}}  # existing keys keep their position


def parse_or_none(data: bytes | None) -> Any:
    """A previous output file's content, or None when absent or unparseable (then it counts as
    changed)."""
    try:
        return json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        return None


def today_utc() -> str:
    """Today's date in UTC (YYYY-MM-DD): the date a build or release gives what it changes."""
    return dt.datetime.now(dt.UTC).date().isoformat()


# A date as the user gives it, YYYY-MM-DD in ASCII digits (fromisoformat also reads 2026-W49-5)
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def latest_date(today: str) -> str:
    """The newest date data may carry: tomorrow in UTC (a day ahead for time zones)."""
    return (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()


def date_fault(date: str, today: str, upstream: str | None = None) -> Said | None:
    """Why `date` cannot date data (after tomorrow in UTC, or before the upstream was retrieved),
    or None."""
    if date > (latest := latest_date(today)):
        return Said(f"a date no later than {latest} (today in UTC, and a day for time zones)", date)
    if upstream and date < upstream:
        return Said(
            f"a date no earlier than {upstream} (when upstream was retrieved, in {LOCK})", date
        )
    return None
