import pytest

from builder.write import keep_dates, newest_data_version

OLD = {"version": "1", "updated": "2026-09-27", "data_version": "2026-09-27", "value": 1.5}


def test_unchanged_content_keeps_old_dates() -> None:
    new = {"version": "1", "updated": "2030-01-01", "data_version": "2030-01-01", "value": 1.5}
    kept = keep_dates(new, OLD)
    assert kept == OLD
    assert list(kept) == list(new)


def test_changed_content_takes_the_build_date() -> None:
    new = {"version": "1", "updated": "2030-01-01", "data_version": "2030-01-01", "value": 1.6}
    assert keep_dates(new, OLD) == new


def test_missing_or_unreadable_old_file_counts_as_changed() -> None:
    new = dict(OLD, updated="2030-01-01", data_version="2030-01-01")
    assert keep_dates(new, None) == new
    assert keep_dates(new, ["not", "a", "document"]) == new
    assert keep_dates(new, {"value": 1.5}) == new


@pytest.mark.parametrize(
    ("docs", "newest"),
    [
        pytest.param(
            [{"data_version": "2026-09-27"}, {"data_version": "2026-12-01"}],
            "2026-12-01",
            id="latest",
        ),
        pytest.param(
            [{"data_version": "2026-12-01"}, {"updated": "2027-01-01"}],
            "2026-12-01",
            id="updated-alone",
        ),
        pytest.param(
            [{"data_version": "2026-12-01"}, {"data_version": 2027}, []],
            "2026-12-01",
            id="not-text",
        ),
        pytest.param([{"version": "1"}], None, id="none-dated"),
        pytest.param([], None, id="no-documents"),
    ],
)
def test_newest_data_version(docs: list, newest: str | None) -> None:
    assert newest_data_version(docs) == newest
