"""R15's leaderboard periods (docs/leaderboards.md): a day, an ISO week (Monday to Sunday) or
a calendar month, in UTC, the one that holds a given date. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

DAY, WEEK, MONTH = "day", "week", "month"
KINDS = (DAY, WEEK, MONTH)


@dataclass(frozen=True)
class Period:
    """``start`` its first day, ``end`` the day after its last (both UTC dates)."""

    kind: str
    start: date
    end: date

    @property
    def label(self) -> str:
        """``2026-12-07``, ``2026-W50`` (ISO week), ``2026-12``.

        >>> period_of(WEEK, date(2026, 12, 13)).label
        '2026-W50'
        """
        if self.kind == DAY:
            return self.start.isoformat()
        if self.kind == WEEK:
            year, week, _ = self.start.isocalendar()
            return f"{year}-W{week:02d}"
        return f"{self.start.year}-{self.start.month:02d}"

    @property
    def since(self) -> datetime:
        """The period's first moment (UTC)."""
        return datetime.combine(self.start, time.min, tzinfo=UTC)

    @property
    def until(self) -> datetime:
        """The moment after the period (UTC): the period is [since, until)."""
        return datetime.combine(self.end, time.min, tzinfo=UTC)


def period_of(kind: str, day: date) -> Period:
    """The period of ``kind`` that holds ``day``.

    >>> period_of(WEEK, date(2026, 12, 13))
    Period(kind='week', start=datetime.date(2026, 12, 7), end=datetime.date(2026, 12, 14))
    >>> period_of(MONTH, date(2026, 12, 13)).end
    datetime.date(2027, 1, 1)
    """
    if kind == DAY:
        return Period(kind, day, day + timedelta(days=1))
    if kind == WEEK:
        monday = day - timedelta(days=day.weekday())
        return Period(kind, monday, monday + timedelta(days=7))
    if kind == MONTH:
        first = day.replace(day=1)
        following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return Period(kind, first, following)
    raise ValueError(f"a period is one of {', '.join(KINDS)}")
