"""What validate's cross-file rules look up, worked out once a run and keyed: each file's place,
the root CSV's energies per response (read in one pass with its relation check), a model's
configurations by GPU type."""

from __future__ import annotations

import csv
from pathlib import Path

from builder.layout import Place
from builder.validate.csvrows import energies_by_workload, read_root_csv, rows, stated_energy
from builder.validate.frontiers import by_gpu
from builder.validate.tree import Tree

HEADER = "workload,row_id,repeat,joules_per_response,wh_per_thousand_responses\n"


def tree(files: dict[str, bytes]) -> Tree:
    return Tree(root=Path("."), data_dir="data", raw=files)


def test_rows_keep_each_row_with_the_line_it_ends_on() -> None:
    data = (HEADER + 'tc,a/1,1,3.6,1.0\ntc,"b\n2",1,7.2,2.0\n').encode()
    assert [(line, row["row_id"]) for line, row in rows(data)] == [(2, "a/1"), (4, "b\n2")]


def test_the_root_csv_is_read_in_one_pass_into_energies_and_relation_faults() -> None:
    # energy per response 3.6 J: 0.1 J per token x 36 tokens; 9.9 J is not 0.1 x 36
    head = HEADER.rstrip("\n") + ",joules_per_output_token,avg_output_tokens\n"
    text = head + "tc,a/1,1,3.6,1.0,0.1,36\ntc,a/2,1,9.9,2.75,0.1,36\n"
    found = read_root_csv(tree({"configurations.csv": text.encode()}))
    assert found.stated == [(2, ("tc", "a/1", 1), (3.6, 1.0)), (3, ("tc", "a/2", 1), (9.9, 2.75))]
    assert [(p.path, p.where, p.code) for p in found.faults] == [
        (
            "data/configurations.csv",
            "line 3, column joules_per_response",
            "physics.energy-per-response",
        )
    ]
    assert read_root_csv(tree({})) == ([], [])


def test_a_root_csv_that_cannot_be_read_to_its_end_keeps_the_rows_before_and_no_fault() -> None:
    head = HEADER.rstrip("\n") + ",joules_per_output_token,avg_output_tokens\n"
    text = head + "tc,a/2,1,9.9,2.75,0.1,36\n" + "x" * 2_000 + "\n"
    limit = csv.field_size_limit(1_000)  # a cell past the limit: csv.Error
    try:
        found = read_root_csv(tree({"configurations.csv": text.encode()}))
    finally:
        csv.field_size_limit(limit)
    assert found == ([(2, ("tc", "a/2", 1), (9.9, 2.75))], [])
    assert read_root_csv(tree({"configurations.csv": b"\xff,\n"})) == ([], [])


def test_a_tree_places_each_file_of_the_layout_once_and_leaves_out_the_rest() -> None:
    files = {
        "models/qwen-3-8b.json": b"{}",
        "workloads/text-to-image/index.json": b"{}",
        "configurations.csv": b"",
        "notes.txt": b"",
    }
    found = tree(files)
    assert found.places == {
        "models/qwen-3-8b.json": Place("model", "text-conversation", "qwen-3-8b"),
        "workloads/text-to-image/index.json": Place("generation-index", "text-to-image"),
        "configurations.csv": Place("csv"),
    }
    assert found.places is found.places  # worked out once


def test_stated_energies_keep_rows_whose_key_and_energies_read_as_finite_numbers() -> None:
    text = HEADER + "".join(
        [
            "tc,a/1,1,3.6,1.0\n",
            "tc,a/1,x,3.6,1.0\n",  # a repeat that is no integer
            "tc,a/2,1,nan,1.0\n",  # not finite
            "tc,a/3,1,,1.0\n",  # empty
            "pc,a/1,2,7.2,2.0\n",
        ]
    )
    found = [stated_energy(line, row) for line, row in rows(text.encode())]
    assert found == [
        (2, ("tc", "a/1", 1), (3.6, 1.0)),
        None,
        None,
        None,
        (6, ("pc", "a/1", 2), (7.2, 2.0)),
    ]
    assert stated_energy(2, {"workload": "tc"}) is None


def test_energies_by_workload_key_each_by_row_id_and_repeat_the_last_row_winning() -> None:
    stated = [
        (2, ("tc", "a/1", 1), (3.6, 1.0)),
        (3, ("pc", "a/1", 1), (7.2, 2.0)),
        (4, ("tc", "a/1", 1), (9.0, 2.5)),
        (5, ("tc", "a/1", 2), (1.8, 0.5)),
    ]
    assert energies_by_workload(stated) == {
        "tc": {("a/1", 1): 9.0, ("a/1", 2): 1.8},
        "pc": {("a/1", 1): 7.2},
    }


def test_by_gpu_groups_configurations_in_document_order() -> None:
    confs = [{"gpu": "H100", "n": 1}, {"gpu": "B200", "n": 2}, {"gpu": "H100", "n": 3}]
    assert by_gpu(confs) == {
        "H100": [{"gpu": "H100", "n": 1}, {"gpu": "H100", "n": 3}],
        "B200": [{"gpu": "B200", "n": 2}],
    }
    assert by_gpu([]) == {}
