"""The exact time windows of cashier caps and player limits (docs/wallet.md "Cashier caps").

Every window is a half-open interval ``[start, end)`` in UTC, whatever the player's or the
operator's time zone, so that a cap means the same thing to everyone and a posting belongs
to exactly one day, one week and one month:

- day:   from 00:00:00 UTC of the posting's UTC date to 00:00:00 UTC of the next date;
- week:  the ISO 8601 week: from Monday 00:00:00 UTC to the next Monday 00:00:00 UTC;
- month: from the 1st of the calendar month 00:00:00 UTC to the 1st of the next month.

A posting at exactly ``end`` belongs to the next window. Calendar windows (not rolling
24 hours) are what players are told ("today", "this week") and what regulators audit.

``fixed_window`` cuts time into back-to-back windows of a fixed number of seconds counted
from the Unix epoch (UTC), e.g. clock hours for 3600: the practice-chip top-up's period.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

PERIODS = ("day", "week", "month")


@dataclass(frozen=True)
class Window:
    period: str
    start: datetime
    end: datetime

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def window(period: str, moment: datetime) -> Window:
    """The ``period`` window (day, week or month) that contains ``moment``."""
    if moment.tzinfo is None:
        raise ValueError("windows are computed from aware datetimes")
    utc = moment.astimezone(UTC)
    midnight = utc.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return Window(period, midnight, midnight + timedelta(days=1))
    if period == "week":
        start = midnight - timedelta(days=midnight.weekday())  # Monday is weekday 0
        return Window(period, start, start + timedelta(days=7))
    if period == "month":
        start = midnight.replace(day=1)
        end = (
            start.replace(year=start.year + 1, month=1)
            if start.month == 12
            else (start.replace(month=start.month + 1))
        )
        return Window(period, start, end)
    raise ValueError(f"unknown period {period!r}: expected one of {', '.join(PERIODS)}")


def windows(moment: datetime) -> dict[str, Window]:
    return {period: window(period, moment) for period in PERIODS}


def fixed_window(moment: datetime, *, seconds: int) -> Window:
    """The ``[k * seconds, (k + 1) * seconds)`` window since the epoch containing ``moment``.

    Integer microseconds, not float timestamps: a moment at exactly a boundary must fall in
    the next window, whatever the float rounding would say."""
    if moment.tzinfo is None:
        raise ValueError("windows are computed from aware datetimes")
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1:
        raise ValueError("a fixed window lasts a whole number of seconds, at least 1")
    length = timedelta(seconds=seconds)
    start = EPOCH + (moment - EPOCH) // length * length
    return Window(f"{seconds}s", start, start + length)
