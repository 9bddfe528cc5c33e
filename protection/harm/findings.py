"""What every marker of harm shares: the UTC day the job looks at, what a rule finds about a
player, and the shape of a rule (its parameters, the facts it reads, its test)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any


@dataclass(frozen=True)
class DayWindow:
    """The UTC day ``[start, end)`` a run looks at; ``as_of`` is when its figures stop (the
    day's end, or now for a day not over yet), so a run for a past day always reads the same
    figures, however late it runs."""

    day: date
    start: datetime
    end: datetime
    as_of: datetime

    @classmethod
    def of(cls, day: date, *, now: datetime) -> DayWindow:
        start = datetime.combine(day, time.min, tzinfo=UTC)
        end = start + timedelta(days=1)
        return cls(day=day, start=start, end=end, as_of=min(now, end))


def window_dict(since: datetime, until: datetime) -> dict[str, str]:
    """A window as the evidence shows it."""
    return {"from": since.isoformat(), "to": until.isoformat()}


@dataclass(frozen=True)
class Finding:
    """A rule met by one player on the day: the figures that met it."""

    player_id: uuid.UUID
    evidence: dict[str, Any]


@dataclass(frozen=True)
class Rule:
    """A marker of harm: its ``defaults`` (the documented parameters), ``parse`` (a complete
    parameter object, checked; raises ``ParamsInvalid``), ``read`` (the day's facts, from
    the selectors) and ``evaluate`` (pure: facts and parameters in, at most one finding per
    player out)."""

    code: str
    summary: str
    defaults: Mapping[str, Any]
    parse: Callable[[Mapping[str, Any]], Any]
    read: Callable[[DayWindow, Any], Any]
    evaluate: Callable[[Any, Any], list[Finding]]
