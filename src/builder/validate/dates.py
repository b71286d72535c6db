"""The dates of a package under review: none after tomorrow (UTC), and its data version not
before the pinned upstream was retrieved."""

from typing import Any

from builder.dates import DATE_KEYS, date_fault, newest_data_version
from builder.errors import Problem, Said


def check_date_bounds(docs: dict[str, Any], today: str, retrieved: str | None) -> list[Problem]:
    """One problem per date after tomorrow, at the first document (by shown path) carrying it;
    one when the newest data_version is before `retrieved`."""
    dated = {shown: doc for shown, doc in sorted(docs.items()) if isinstance(doc, dict)}
    late: dict[str, tuple[Said, list[tuple[str, str]]]] = {}
    for shown, doc in dated.items():
        for key in DATE_KEYS:
            value = doc.get(key)
            if isinstance(value, str) and (said := date_fault(value, today)):
                late.setdefault(value, (said, []))[1].append((shown, f"/{key}"))
    problems = []
    for said, places in (late[value] for value in sorted(late)):
        more = len({shown for shown, _ in places}) - 1
        note = f" (and in {more} more document(s))" if more else ""
        first, where = places[0]
        problems.append(Problem.of(first, where, "document.date", said.noted(note)))
    newest = newest_data_version(dated.values())
    if newest and newest not in late and (said := date_fault(newest, today, retrieved)):
        shown = next(shown for shown, doc in dated.items() if doc.get("data_version") == newest)
        problems.append(Problem.of(shown, "/data_version", "document.date", said))
    return problems
