"""croissant.json: the MLCommons Croissant 1.0 card of every CSV, shipped in the archive and the
wheel.

Validation alone reads no file, so it passes a column that does not exist: the slow case loads
every record set with mlcroissant out of a release archive's own files and compares the records
with the CSV rows, value for value.
"""

from __future__ import annotations

import csv
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from helpers import REPO

CARD = json.loads((REPO / "croissant.json").read_bytes())
TABLES = [
    r
    for r in json.loads((REPO / "datapackage.json").read_bytes())["resources"]
    if r["path"].endswith(".csv")
]


def test_every_csv_and_every_column_has_its_record_set_and_field() -> None:
    assert len(TABLES) >= 3  # the shared LLM table and the two generation workloads' tables
    files = {f["contentUrl"]: f for f in CARD["distribution"]}
    assert sorted(files) == sorted(r["path"] for r in TABLES)
    record_sets = {rs["@id"]: rs for rs in CARD["recordSet"]}
    for table in TABLES:
        assert files[table["path"]]["sha256"] == table["hash"].removeprefix("sha256:")
        header = (REPO / table["path"]).read_text().splitlines()[0].split(",")
        fields = record_sets[table["name"]]["field"]
        assert [f["name"] for f in fields] == header, table["path"]
        assert all(f["source"]["extract"]["column"] == f["name"] for f in fields)
        assert all(f["description"] for f in fields)


def test_the_energy_fields_state_their_units() -> None:
    fields = {f["name"]: f["description"] for rs in CARD["recordSet"] for f in rs["field"]}
    assert "in watt-hours per million output tokens" in fields["wh_per_million_output_tokens"]
    assert "in joules" in fields["joules_per_image"]
    assert "in watt-hours" in fields["wh_per_video"]
    assert "in milliseconds" in fields["median_itl_ms"]
    assert "in seconds" in fields["batch_latency_s"]


def test_the_card_is_croissant_1_0_and_names_no_doi() -> None:
    assert CARD["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert CARD["@type"] == "sc:Dataset"
    assert "doi" not in json.dumps(CARD).lower()


def _typed(text: str, data_type: str) -> object:
    """A CSV cell as the record set's data type reads it."""
    if data_type == "sc:Integer":
        return int(text)
    if data_type == "sc:Float":
        return float(text)
    if data_type == "sc:Boolean":
        return {"true": True, "false": False}[text]
    return text


@pytest.mark.slow  # mlcroissant, a heavy outside library, reading every file
# rdflib's, inside mlcroissant: not ours to fix
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_mlcroissant_validates_and_loads_every_record_set_from_the_archive(tmp_path: Path) -> None:
    import mlcroissant as mlc

    from consumer_release import built

    release = built()
    with tarfile.open(release.archive) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / f"leadgreen-data-{release.tag}"
    dataset = mlc.Dataset(jsonld=str(root / "croissant.json"))
    assert dataset.metadata.issues.errors == set()
    for record_set in CARD["recordSet"]:
        types = {f["name"]: f["dataType"] for f in record_set["field"]}
        path = next(
            f["contentUrl"] for f in CARD["distribution"] if f["@id"] == f"{record_set['@id']}.csv"
        )
        with (root / path).open(newline="") as handle:
            rows = [
                {k: _typed(v, types[k]) for k, v in row.items()} for row in csv.DictReader(handle)
            ]
        loaded = [
            {
                key.split("/", 1)[1]: value.decode() if isinstance(value, bytes) else value
                for key, value in rec.items()
            }
            for rec in dataset.records(record_set=record_set["@id"])
        ]
        assert loaded == rows, record_set["@id"]
    # the wheel ships the same card beside the same files
    with zipfile.ZipFile(release.wheel) as wheel:
        assert wheel.read("leadgreen_data/croissant.json") == (root / "croissant.json").read_bytes()
        assert (
            io.BytesIO(wheel.read("leadgreen_data/docs/data-dictionary.md"))
            .read()
            .startswith(b"# Data dictionary")
        )
