import pytest

from builder.dates import keep_dates, newest_data_version
from builder.validate.dates import check_date_bounds

OLD = {"version": "1", "updated": "2026-09-27", "data_version": "2026-09-27", "value": 1.5}
LATEST = "2030-01-02"  # tomorrow, for a build dated 2030-01-01


def test_unchanged_content_keeps_old_dates() -> None:
    new = {"version": "1", "updated": "2030-01-01", "data_version": "2030-01-01", "value": 1.5}
    kept = keep_dates(new, OLD, LATEST)
    assert kept == OLD
    assert list(kept) == list(new)


def test_changed_content_takes_the_build_date() -> None:
    new = {"version": "1", "updated": "2030-01-01", "data_version": "2030-01-01", "value": 1.6}
    assert keep_dates(new, OLD, LATEST) == new


def test_missing_or_unreadable_old_file_counts_as_changed() -> None:
    new = dict(OLD, updated="2030-01-01", data_version="2030-01-01")
    assert keep_dates(new, None, LATEST) == new
    assert keep_dates(new, ["not", "a", "document"], LATEST) == new
    assert keep_dates(new, {"value": 1.5}, LATEST) == new


def test_a_date_after_tomorrow_is_never_carried_forward() -> None:
    future = dict(OLD, updated="2030-01-03", data_version="2030-01-03")
    new = dict(OLD, updated="2030-01-01", data_version="2030-01-01")
    assert keep_dates(new, future, LATEST) == new
    assert (
        keep_dates(new, dict(future, updated=LATEST, data_version=LATEST), LATEST)["data_version"]
        == LATEST
    )


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


TODAY = "2026-12-04"
BOUNDS = [
    pytest.param({"a": {"data_version": "2026-12-05"}}, [], id="tomorrow"),
    pytest.param(
        {"a": {"data_version": "2027-01-01"}, "b": {"updated": "2027-01-01"}, "c": None},
        [("a", "/data_version", "2027-01-01", " (and in 1 more document(s))")],
        id="future-once-per-date",
    ),
    pytest.param(
        {"a": {"data_version": "2026-09-01"}, "b": {"data_version": "2026-09-25"}, "c": []},
        [("b", "/data_version", "2026-09-25", "")],
        id="newest-before-retrieval",
    ),
    pytest.param(
        {"a": {"data_version": "2026-09-01"}, "b": {"data_version": "2026-11-29"}},
        [],
        id="older-kept-document",
    ),
]


@pytest.mark.parametrize(("docs", "found"), BOUNDS)
def test_check_date_bounds(docs: dict, found: list) -> None:
    problems = check_date_bounds(docs, TODAY, "2026-09-26")
    assert [(p.path, p.where, p.found, p.message.partition(p.found)[2]) for p in problems] == found
