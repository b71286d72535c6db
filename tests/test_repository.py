"""The repository URL: metadata.toml's `repository`, named from there everywhere; a PLACEHOLDER
mark is warned about."""

from __future__ import annotations

import tomllib

import pytest

from builder.repository import Repository, parse, warnings
from helpers import REPO

URL = tomllib.loads((REPO / "metadata.toml").read_text())["repository"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            'repository = "https://x.org/r"\n', Repository("https://x.org/r", False), id="real"
        ),
        pytest.param(
            'repository = "https://x.org/r"  # PLACEHOLDER until it exists\n',
            Repository("https://x.org/r", True),
            id="marked-on-its-line",
        ),
        pytest.param(
            '# PLACEHOLDER: not decided\n# more words\nrepository = "https://x.org/r"\n',
            Repository("https://x.org/r", True),
            id="marked-above",
        ),
        pytest.param(
            '# PLACEHOLDER: of another key\nbase_url = "https://x.org"\nrepository = '
            '"https://x.org/r"\n',
            Repository("https://x.org/r", False),
            id="a-mark-above-another-key",
        ),
        pytest.param('base_url = "https://x.org"\n', None, id="absent"),
    ],
)
def test_parse(text: str, expected: Repository | None) -> None:
    assert parse(text) == expected


def test_the_curated_url_is_the_decided_one() -> None:
    decided = Repository("https://github.com/leadgreen/leadgreen-data", False)
    assert parse((REPO / "metadata.toml").read_text()) == decided


def test_the_readme_and_the_citation_name_the_curated_url() -> None:
    readme = (REPO / "README.md").read_text()
    assert "<owner>" not in readme
    assert f"--depth 1 {URL} leadgreen-data" in readme
    raw = URL.replace("https://github.com/", "https://raw.githubusercontent.com/")
    assert f"`{raw}/v" in readme
    assert f'repository-code: "{URL}"' in (REPO / "CITATION.cff").read_text()
    assert f'"identifier": "{URL}"' in (REPO / ".zenodo.json").read_text()


def test_the_placeholder_warning_is_worded_for_validate(tmp_path) -> None:
    (tmp_path / "metadata.toml").write_text('# PLACEHOLDER\nrepository = "https://x.org/r"\n')
    warning = (
        "metadata.toml: repository: https://x.org/r is marked PLACEHOLDER; set the real URL "
        "before a release"
    )
    assert warnings(tmp_path / "metadata.toml") == [warning]
    assert warnings(REPO / "metadata.toml") == []


# whole validates; test_the_placeholder_warning_is_worded_for_validate is its rule
@pytest.mark.slow
def test_validate_passes_without_a_warning(committed_validate) -> None:
    text = committed_validate("text")
    assert (text.exit_code, text.stdout, text.stderr) == (0, "data: valid\n", "")
