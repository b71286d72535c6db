from builder.write import keep_dates

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
