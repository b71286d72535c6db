"""CITATION.cff, .zenodo.json and croissant.json: written by build from citation.toml and the
data; validate checks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.citation import check_citation, citation_files, citation_problems
from builder.errors import ValidationError
from helpers import REPO

DATA_VERSION = json.loads((REPO / "datapackage.json").read_bytes())["version"]


def test_the_committed_files_are_what_build_writes(in_repo) -> None:
    expected = citation_files((REPO / "datapackage.json").read_bytes(), REPO / "citation.toml")
    assert {name: (REPO / name).read_bytes() for name in expected} == expected
    assert citation_problems(REPO) == []


def test_citation_cff_follows_the_data_version_and_cites_both_papers() -> None:
    text = (REPO / "CITATION.cff").read_text()
    assert f'version: "{DATA_VERSION.replace("-", ".")}"\n' in text
    assert f'date-released: "{DATA_VERSION}"\n' in text
    assert 'value: "arXiv:2505.06371"' in text
    assert 'value: "arXiv:2601.22076"' in text
    assert "# No DOI yet: Zenodo mints one from the first GitHub release" in text


def test_no_doi_is_claimed_while_citation_toml_has_none() -> None:
    """An empty doi: neither file names a DOI (no made-up one), and the message cites the release
    tag."""
    assert 'doi = ""' in (REPO / "citation.toml").read_text()
    for name in ("CITATION.cff", ".zenodo.json"):
        text = (REPO / name).read_text().lower()
        assert "10.5281" not in text, name
        assert '"doi"' not in text, name
    assert "with the release tag you used" in (REPO / "CITATION.cff").read_text()


@pytest.mark.slow  # an outside tool
def test_citation_cff_is_valid_citation_file_format() -> None:
    check = Path(sys.executable).parent / "check-jsonschema"
    run = subprocess.run(
        [str(check), "--builtin-schema", "vendor.citation-file-format", str(REPO / "CITATION.cff")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_zenodo_json_has_creators_licence_and_related_identifiers() -> None:
    record = json.loads((REPO / ".zenodo.json").read_bytes())
    assert record["upload_type"] == "dataset"
    assert record["creators"] == [{"name": "LeadGreen"}]
    assert record["license"] == "Apache-2.0"
    assert (record["version"], record["publication_date"]) == (
        DATA_VERSION.replace("-", "."),
        DATA_VERSION,
    )
    assert {
        "identifier": "arXiv:2601.22076",
        "relation": "references",
        "scheme": "arxiv",
    } in record["related_identifiers"]


def test_a_doi_fills_the_identifiers_slot(tmp_path: Path) -> None:
    curated = (
        (REPO / "citation.toml").read_text().replace('doi = ""', 'doi = "10.5281/zenodo.1234567"')
    )
    (tmp_path / "citation.toml").write_text(curated)
    (tmp_path / "data").mkdir()
    shutil.copy2(REPO / "data" / "workloads.json", tmp_path / "data" / "workloads.json")
    cff = citation_files((REPO / "datapackage.json").read_bytes(), tmp_path / "citation.toml")[
        "CITATION.cff"
    ]
    assert b'identifiers:\n  - type: "doi"\n    value: "10.5281/zenodo.1234567"\n' in cff


@pytest.fixture
def with_citation(repo_copy: Path) -> Path:
    for name in ("citation.toml", "CITATION.cff", ".zenodo.json", "croissant.json"):
        shutil.copy2(REPO / name, repo_copy / name)
    return repo_copy


@pytest.fixture
def cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the descriptor, the metadata, the citation cards and data/workloads.json,
    the working folder."""
    for name in (
        "datapackage.json",
        "metadata.toml",
        "citation.toml",
        "CITATION.cff",
        ".zenodo.json",
        "croissant.json",
    ):
        shutil.copy2(REPO / name, tmp_path / name)
    (tmp_path / "data").mkdir()
    shutil.copy2(REPO / "data" / "workloads.json", tmp_path / "data" / "workloads.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_stale_citation_is_one_problem(cards: Path) -> None:
    path = cards / "CITATION.cff"
    path.write_text(path.read_text().replace(DATA_VERSION, "2026-10-19"))
    assert [str(problem) for problem in citation_problems(Path("."))] == [
        "CITATION.cff: /: expected what `builder build` writes from citation.toml for data version "
        f"{DATA_VERSION}, found other bytes (run builder build)"
    ]


def test_the_summary_names_the_stale_file(cards: Path) -> None:
    """A stale croissant.json alone is summed up under its own name, not CITATION.cff's."""
    (cards / "croissant.json").write_text("{}\n")
    with pytest.raises(ValidationError) as raised:
        check_citation(Path("data"))
    assert str(raised.value) == "croissant.json: 1 problem(s)"


def test_an_archives_citation_is_checked_by_its_version(tmp_path: Path) -> None:
    shutil.copy2(REPO / "datapackage.json", tmp_path / "datapackage.json")
    text = (REPO / "CITATION.cff").read_text().replace(DATA_VERSION.replace("-", "."), "2026.10.19")
    (tmp_path / "CITATION.cff").write_text(text)
    problems = [str(problem) for problem in citation_problems(tmp_path)]
    assert problems == [
        f'CITATION.cff: /version: expected "{DATA_VERSION.replace("-", ".")}", found "2026.10.19"'
    ]


@pytest.mark.slow  # a whole validate; test_a_stale_citation_is_one_problem is its rule
def test_validate_reports_a_stale_citation(with_citation: Path, cli) -> None:
    path = with_citation / "CITATION.cff"
    path.write_text(path.read_text().replace(DATA_VERSION, "2026-10-19"))
    result = cli("validate")
    assert result.exit_code == 1
    assert (
        "CITATION.cff: /: expected what `builder build` writes from citation.toml for data version "
        f"{DATA_VERSION}, found other bytes (run builder build)"
    ) in result.stderr


# a whole validate; test_an_archives_citation_is_checked_by_its_version is its rule
@pytest.mark.slow
def test_validate_checks_an_archives_citation_by_its_version(repo_copy: Path, cli) -> None:
    """A release archive has CITATION.cff but no citation.toml: its version and date are checked."""
    text = (REPO / "CITATION.cff").read_text().replace(DATA_VERSION.replace("-", "."), "2026.10.19")
    (repo_copy / "CITATION.cff").write_text(text)
    result = cli("validate")
    assert result.exit_code == 1
    assert (
        f'CITATION.cff: /version: expected "{DATA_VERSION.replace("-", ".")}", found "2026.10.19"'
        in result.stderr
    )


@pytest.mark.slow  # a whole build; test_the_committed_files_are_what_build_writes checks the bytes
def test_build_writes_the_citation_beside_the_descriptor(with_citation: Path, cli) -> None:
    (with_citation / "CITATION.cff").unlink()
    (with_citation / ".zenodo.json").write_text("{}\n")
    result = cli("build", "--date", DATA_VERSION)
    assert result.exit_code == 0, result.output
    for name in ("CITATION.cff", ".zenodo.json"):
        assert (with_citation / name).read_bytes() == (REPO / name).read_bytes(), name
