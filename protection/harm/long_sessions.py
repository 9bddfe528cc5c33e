"""Long sessions (docs/player-protection.md "Markers of harm"): a play session in play on
the day lasted longer than ``hours``, ended or still open. Its length is its end (or, open,
the run's ``as_of``: the day's end for a past day) minus its start; a session ended after
``as_of`` counts up to ``as_of``, so a run for a past day reads the same figures whenever it
runs. The player's longest such session is the evidence."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from protection.harm import facts as sessions
from protection.harm.findings import DayWindow, Finding, Rule
from protection.harm.params import whole_number
from protection.models import HarmRuleCode

DEFAULTS: Mapping[str, Any] = {"hours": 4}


@dataclass(frozen=True)
class Params:
    hours: int


def parse(values: Mapping[str, Any]) -> Params:
    return Params(hours=whole_number(values, "hours", low=1, high=72))


@dataclass(frozen=True)
class Facts:
    as_of: datetime
    spans: list[sessions.SessionSpan]


def read(day: DayWindow, params: Params) -> Facts:
    return Facts(as_of=day.as_of, spans=sessions.sessions_in_play(since=day.start, until=day.end))


def evaluate(facts: Facts, params: Params) -> list[Finding]:
    longest: dict[uuid.UUID, tuple[timedelta, datetime | None, sessions.SessionSpan]] = {}
    threshold = timedelta(hours=params.hours)
    for span in facts.spans:
        # Ended after as_of: as of then it was still open.
        ended = span.ended_at if span.ended_at and span.ended_at <= facts.as_of else None
        length = (ended or facts.as_of) - span.started_at
        if length <= threshold:
            continue
        if span.player_id not in longest or length > longest[span.player_id][0]:
            longest[span.player_id] = (length, ended, span)
    return [
        Finding(
            player_id=player,
            evidence={
                "session_id": span.session_id,
                "started_at": span.started_at.isoformat(),
                "ended_at": None if ended is None else ended.isoformat(),
                "open": ended is None,
                "hours": round(length.total_seconds() / 3600, 2),
                "as_of": facts.as_of.isoformat(),
                "threshold_hours": params.hours,
            },
        )
        for player, (length, ended, span) in longest.items()
    ]


RULE = Rule(
    code=HarmRuleCode.LONG_SESSIONS.value,
    summary="A play session in play on the day lasted longer than hours",
    defaults=DEFAULTS,
    parse=parse,
    read=read,
    evaluate=evaluate,
)
