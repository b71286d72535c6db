"""The texts a consumer reads, checked against the workloads they describe: what a release
refuses to tag."""

import json
import re

from builder import card
from builder.layout import CFF, DATA, METADATA, WORKLOAD_LIST, ZENODO
from builder.repository import MARK
from builder.repository import parse as parse_repository

README = "README.md"
READER_README = "reader/README.md"  # the wheel's README
DICTIONARY = "docs/data-dictionary.md"
LISTED = f"{DATA}/{WORKLOAD_LIST}"
# what `problems` reads
TEXTS = (
    README,
    READER_README,
    DICTIONARY,
    CFF,
    ZENODO,
    LISTED,
    str(METADATA),
)
MAX_README_BYTES = 12 * 1024
WORKLOADS_HEADING = "## Workloads\n"  # the data dictionary's workload list


def section(text: str, heading: str | None = None) -> str:
    """A Markdown file's part from `heading` to the next `## ` heading; without one, its opening
    (before a heading or a code block)."""
    start = 0 if heading is None else text.find(heading)
    if start < 0:
        return ""
    end = r"^## " if heading else r"^(## |```)"
    following = re.compile(end, re.MULTILINE).search(text, start + (len(heading) if heading else 0))
    return text[start : following.start() if following else len(text)]


def texts(files: dict[str, bytes]) -> dict[str, str]:
    """Each consumer text that must name every workload, by what a message calls it."""
    read = {
        name: files.get(name, b"").decode("utf-8", "replace")
        for name in (README, READER_README, DICTIONARY)
    }
    try:
        zenodo = str(json.loads(files.get(ZENODO, b"{}")).get("description", ""))
    except (ValueError, AttributeError):
        zenodo = ""
    return {
        f"{README} (its opening)": section(read[README]),
        f"{READER_README} (the wheel's README, its opening)": section(read[READER_README]),
        f"{DICTIONARY} (its {WORKLOADS_HEADING.strip()} section)": section(
            read[DICTIONARY], WORKLOADS_HEADING
        ),
        CFF: files.get(CFF, b"").decode("utf-8", "replace"),
        f"{ZENODO} (description)": zenodo,
    }


def problems(files: dict[str, bytes]) -> list[str]:
    """One line per consumer text that misses a workload, a unit or the count, or breaks a rule
    of its own."""
    workloads = card.listed_workloads(files[LISTED])
    found = []
    for name, text in [*texts(files).items(), ("the wheel's summary", card.summary(workloads))]:
        if gaps := card.missing(text, workloads):
            more = f" (and {len(gaps) - 1} more)" if len(gaps) > 1 else ""
            found.append(
                f"{name}: expected every workload, unit and their count, found no {gaps[0]}{more}"
            )
    if (size := len(files.get(README, b""))) > MAX_README_BYTES:
        found.append(f"{README}: expected at most {MAX_README_BYTES} bytes, found {size}")
    repository = parse_repository(files.get(str(METADATA), b"").decode("utf-8", "replace"))
    if repository is None or not repository.url.strip():
        found.append(f"{METADATA}: repository: expected the repository URL, found none")
    elif repository.placeholder:
        found.append(
            f"{METADATA}: repository: expected a decided URL, found {repository.url} marked {MARK}"
        )
    return found
