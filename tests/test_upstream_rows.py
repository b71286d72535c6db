"""Row problems of one upstream file: a model field's fault shared by a model's rows is one line,
and a set of names checked once is each row's own verdict."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from builder.errors import UpstreamError
from builder.metadata import load_metadata
from builder.upstream import NAME_FIELDS, name_faults, names_misread, parse_all, parse_upstream
from factory import row, upstream
from helpers import REPO

SPREADSHEET_DATE = "expected a name a spreadsheet keeps as text, found '1-2', read as a date"


def problems(*raw: dict) -> list[str]:
    with pytest.raises(UpstreamError) as caught:
        parse_upstream(json.dumps(upstream(list(raw))).encode(), "bad.json", "lm-arena-chat")
    return [str(problem) for problem in caught.value.problems]


def test_a_bad_nickname_on_every_row_of_a_model_is_one_line() -> None:
    seqs = (64, 128, 256)
    other = row(model_id="other/Model-9B", nickname="Model 9B")
    assert problems(*(row(nickname="1-2", max_num_seqs=s) for s in seqs), other) == [
        "bad.json: /configurations/0/nickname (test-org/Test-Model-7B, H100, 1 GPU(s), "
        "max_num_seqs 64, "
        f"and 2 more rows of this model): {SPREADSHEET_DATE}"
    ]


def test_one_more_row_is_singular_and_a_schema_fault_is_grouped_too() -> None:
    bad = "expected a finite number > 0 and <= 1e12, found -7.0"
    found = problems(
        row(total_params_billions=-7.0), row(total_params_billions=-7.0, max_num_seqs=128)
    )
    assert found == [
        "bad.json: /configurations/0/total_params_billions (test-org/Test-Model-7B, H100, 1 "
        "GPU(s), "
        f"max_num_seqs 64, and 1 more row of this model): {bad}"
    ]


def test_two_models_sharing_a_bad_nickname_value_are_two_lines() -> None:
    found = problems(row(nickname="1-2"), row(nickname="1-2", model_id="other/Model-9B"))
    assert [line.split(" (")[0] for line in found if SPREADSHEET_DATE in line] == [
        "bad.json: /configurations/0/nickname",
        "bad.json: /configurations/1/nickname",
    ]


def test_a_fault_of_a_configuration_field_stays_one_line_per_row() -> None:
    found = problems(row(median_itl_ms=-1.0), row(median_itl_ms=-1.0, max_num_seqs=128))
    assert [line.split(" (")[0] for line in found] == [
        "bad.json: /configurations/0/median_itl_ms",
        "bad.json: /configurations/1/median_itl_ms",
    ]


def test_a_model_id_a_spreadsheet_misreads_is_one_line_per_model() -> None:
    found = problems(row(model_id="10/12"), row(model_id="10/12", max_num_seqs=128))
    assert found == [
        "bad.json: /configurations/0/model_id (10/12, H100, 1 GPU(s), max_num_seqs 64, and 1 more "
        "row of this "
        "model): expected a name a spreadsheet keeps as text, found '10/12', read as a date"
    ]


def test_a_slug_a_spreadsheet_misreads_is_refused_at_its_nickname() -> None:
    assert problems(row(nickname="1 . 2")) == [
        "bad.json: /configurations/0/nickname (test-org/Test-Model-7B, H100, 1 GPU(s), "
        "max_num_seqs 64): "
        "expected a slug a spreadsheet keeps as text, found '1-2', read as a date"
    ]


def test_two_gpu_names_of_one_page_are_one_line_naming_both() -> None:
    assert problems(row(gpu_model="H100-SXM"), row(gpu_model="H100_SXM")) == [
        "bad.json: GPU H100_SXM: expected one spelling per GPU, found 'H100-SXM' and 'H100_SXM'"
    ]


def test_a_gpu_name_windows_reserves_is_refused() -> None:
    assert problems(row(gpu_model="COM1")) == [
        "bad.json: /configurations/0/gpu_model (test-org/Test-Model-7B, COM1, 1 GPU(s), "
        "max_num_seqs 64): "
        "expected a GPU name Windows allows as a folder name, found 'COM1'"
    ]


MISREAD = ("1E5", "CON", "a\u2028b", "2024-01-02", "", "Qwen/Qwen3-8B", "H100")


@pytest.mark.parametrize("fields", [NAME_FIELDS, ("model_id", "nickname", "gpu_model")])
def test_names_checked_once_a_model_are_each_row_s_name_faults(fields: tuple[str, ...]) -> None:
    """names_misread checks each set of names once: its faults are each row's own name_faults,
    on committed rows whose names are misread on some rows of a model and not on others."""
    meta = load_metadata(REPO / "metadata.toml")
    tasks = {p.stem: (p.read_bytes(), p.name) for p in (REPO / "upstream").glob("*.json")}
    del tasks["lock"]
    rows = parse_all(tasks, meta)[0]["gpqa"]
    mutated = [
        replace(row, **{name: MISREAD[(i + j) % len(MISREAD)]}) if (i + j) % 3 else row
        for i, row in enumerate(rows[:40])
        for j, name in enumerate(fields)
    ]
    by_row = dict(enumerate(mutated))
    each = {i: faults for i, row in by_row.items() if (faults := name_faults(row, fields))}
    assert names_misread(by_row, fields) == each
    assert len(each) > 10
