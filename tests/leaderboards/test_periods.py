"""R15's leaderboard periods: a UTC day, an ISO week from Monday, a calendar month; each the
one that holds the date asked, [since, until) in UTC, with a label that names it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leaderboards.periods import DAY, KINDS, MONTH, WEEK, period_of


def test_a_day_a_week_and_a_month_of_one_date() -> None:
    day = date(2026, 12, 10)  # a Thursday
    assert period_of(DAY, day).label == "2026-12-10"
    week = period_of(WEEK, day)
    assert (week.start, week.end, week.label) == (date(2026, 12, 7), date(2026, 12, 14), "2026-W50")
    month = period_of(MONTH, day)
    assert (month.start, month.end, month.label) == (date(2026, 12, 1), date(2027, 1, 1), "2026-12")
    assert week.since == datetime(2026, 12, 7, tzinfo=UTC)
    assert month.until == datetime(2027, 1, 1, tzinfo=UTC)


def test_iso_weeks_cross_the_new_year() -> None:
    # 2027-01-01 is a Friday: ISO week 53 of 2026, from Monday 2026-12-28.
    week = period_of(WEEK, date(2027, 1, 1))
    assert (week.start, week.label) == (date(2026, 12, 28), "2026-W53")
    assert period_of(WEEK, date(2027, 1, 4)).label == "2027-W01"


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="day, week, month"):
        period_of("year", date(2026, 12, 10))


@given(day=st.dates(min_value=date(2000, 1, 1), max_value=date(2999, 12, 31)))
def test_every_period_holds_its_date_and_periods_tile_time(day: date) -> None:
    for kind in KINDS:
        period = period_of(kind, day)
        assert period.start <= day < period.end
        assert period_of(kind, period.start) == period
        assert period_of(kind, period.end).start == period.end  # the next one starts there
