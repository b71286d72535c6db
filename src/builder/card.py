"""What the package is, in words made from workloads.json: one summary for every consumer text, and
the rule that a text covers every workload, its unit and their count."""

import json
from dataclasses import dataclass
from typing import Any

WORDS: tuple[str, ...] = ("zero", "one", "two", "three", "four", "five", "six")
WORDS += ("seven", "eight", "nine", "ten", "eleven", "twelve")
SOURCE = "the ML.ENERGY Leaderboard v3.0"


@dataclass(frozen=True)
class ListedWorkload:
    """The facts of one workload a consumer text must name."""

    id: str
    name: str
    unit: str
    models: int
    configurations: int


def listed_workloads(raw: bytes) -> list[ListedWorkload]:
    """The workloads of a workloads.json document's bytes, in its order."""
    doc: dict[str, Any] = json.loads(raw)
    return [
        ListedWorkload(w["id"], w["name"], w["unit"], w["model_count"], w["configuration_count"])
        for w in doc["workloads"]
    ]


def number(count: int) -> str:
    """A count as the docs write it: a word up to twelve, digits above."""
    return WORDS[count] if count < len(WORDS) else str(count)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def by_unit(workloads: list[ListedWorkload]) -> str:
    """'A, B and C in unit X; D in unit Y': every workload named once, grouped by its unit in
    first-seen order."""
    units: dict[str, list[str]] = {}
    for w in workloads:
        units.setdefault(w.unit, []).append(w.name)
    return "; ".join(f"{_names(names)} in {unit}" for unit, names in units.items())


def summary(workloads: list[ListedWorkload]) -> str:
    """One line: the package, its workloads by name and unit, and their count (the wheel's
    summary)."""
    count = number(len(workloads))
    return (
        f"GPU energy of AI models per model and GPU, {count} workloads from {SOURCE}: "
        f"{by_unit(workloads)}"
    )


def missing(text: str, workloads: list[ListedWorkload]) -> list[str]:
    """What `text` leaves out: each workload's name, each unit, and the count ("seven workloads"),
    in that order.

    Runs of white space count as one space, so a name may wrap across lines; names match in any
    case.
    """
    text = " ".join(text.split())
    lowered = text.lower()
    gaps = [f"workload {w.name}" for w in workloads if w.name.lower() not in lowered]
    gaps += [
        f"unit {unit}" for unit in dict.fromkeys(w.unit for w in workloads) if unit not in text
    ]
    count = len(workloads)
    if f"{number(count)} workloads" not in lowered and f"{count} workloads" not in lowered:
        gaps.append(f"the count '{number(count)} workloads'")
    return gaps


def archive_readme(
    workloads: list[ListedWorkload], tag: str, data_version: str, repository: str | None
) -> str:
    """The release archive's README.md (also the wheel's leadgreen_data/README.md): what the
    files are."""
    rows = "".join(
        f"| `{w.id}` | {w.name} | {w.unit} | {w.models} | {w.configurations} |\n" for w in workloads
    )
    where = f" Source and releases: {repository}." if repository else ""
    return f"""# leadgreen-data {tag}

{summary(workloads)}. Data version {data_version}. GPU energy only, measured at steady state on a \
busy
server; host, network, cooling and idle time are not counted. Numbers compare within one \
workload only.

| workload | name | unit | models | configurations |
| --- | --- | --- | ---: | ---: |
{rows}
## Files

- `data/`: the JSON documents and the configurations CSVs (text conversation's documents at the top,
  every other workload's in `data/workloads/<id>/`).
- `datapackage.json`: the Frictionless Data Package descriptor; it names every file of `data/`, its
  size and sha256, and the JSON Schema (in `schemas/`) or table schema it follows.
- `croissant.json`: the MLCommons Croissant 1.0 card of the CSVs and their fields.
- `docs/data-dictionary.md`: every field's meaning, unit and derivation.
- `CHANGELOG.md`, `CITATION.cff`: what changed in each release, and how to cite this one.

Website: https://leadgreen.ai/.{where} Data: Apache-2.0 (`DATA-LICENCE.md`); code: MIT (`LICENSE`).
"""
