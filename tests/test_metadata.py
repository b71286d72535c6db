"""metadata.toml: which schema checks which [[workload]] table, and the rules across tables
(unit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.errors import InputError, ProblemsError
from builder.metadata import load_metadata

REPO = Path(__file__).resolve().parent.parent
TEXT = (REPO / "metadata.toml").read_text(encoding="utf-8")
HEAD, *TABLES = TEXT.split("[[workload]]")
GENERATION = [table for table in TABLES if 'kind = "image"' in table or 'kind = "video"' in table]


def refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "metadata.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises((InputError, ProblemsError)) as caught:
        load_metadata(path)
    lines = [str(caught.value), *map(str, getattr(caught.value, "problems", []))]
    return "\n".join(lines).replace(str(tmp_path) + "/", "")


def test_image_and_video_tables_are_left_to_their_own_schema() -> None:
    """The LLM table schema would refuse an image table's keys (unit, latency_limit_s); it is not
    applied."""
    assert len(GENERATION) == 2
    assert [table["kind"] for table in load_metadata(REPO / "metadata.toml")["workload"]][-2:] == [
        "image",
        "video",
    ]


def test_only_generation_tables_is_refused(tmp_path: Path) -> None:
    text = HEAD + "".join(f"[[workload]]{table}" for table in GENERATION)
    expected = (
        "metadata.toml: /workload/0/id: expected text-conversation, found only image and "
        "video workloads"
    )
    assert refusal(tmp_path, text) == expected


def test_a_table_of_no_known_kind_is_checked_as_an_llm_table(tmp_path: Path) -> None:
    text = TEXT.replace('kind = "image"', 'kind = "audio"', 1)
    assert '/workload/5/kind: expected "llm"' in refusal(tmp_path, text)


def test_a_rule_names_its_table_by_its_place_among_every_kind(tmp_path: Path) -> None:
    llm = [
        table.replace('id = "problem-solving"', 'id = "problems"')
        for table in TABLES
        if table not in GENERATION
    ]
    text = HEAD + "".join(f"[[workload]]{table}" for table in [GENERATION[0], *llm, GENERATION[1]])
    expected = (
        "metadata.toml: /workload/2/id: expected 'problem-solving' (the slug of its name), "
        "found 'problems'"
    )
    assert refusal(tmp_path, text) == expected
