"""Chasing losses (docs/player-protection.md "Markers of harm"): on the day the player started
a new play session or made a deposit within ``hours`` after a limit stopped their play:

- a play session of theirs reached its duration or loss limit (``limit_reached``), or ended
  on one;
- their net loss reached one of their own day, week or month loss limits (the wallet's): from
  then on that window refuses every buy-in. A refused buy-in leaves no row, so this is what
  the ledger shows of a loss limit refusal (``wallet.selectors.harm.loss_limits_reached``).

Each new session or deposit is judged on the day it happened, so no run flags it twice; the
limits are read from ``hours`` before the day's start. The evidence is the first such pair
of the day and how many there were."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from gin_platform.money import money_dict
from protection.harm import facts as sessions
from protection.harm.findings import DayWindow, Finding, Rule
from protection.harm.params import whole_number
from protection.models import HarmRuleCode
from wallet.selectors import harm as ledger

DEFAULTS: Mapping[str, Any] = {"hours": 24}


@dataclass(frozen=True)
class Params:
    hours: int


def parse(values: Mapping[str, Any]) -> Params:
    return Params(hours=whole_number(values, "hours", low=1, high=168))


@dataclass(frozen=True)
class Event:
    """A limit that stopped play, or a new session or deposit after one (``shown``: how the
    evidence names it)."""

    player_id: uuid.UUID
    at: datetime
    shown: dict[str, Any]


@dataclass(frozen=True)
class Facts:
    limits: list[Event]  # oldest first
    moves: list[Event]  # new sessions and deposits on the day, oldest first


def read(day: DayWindow, params: Params) -> Facts:
    since = day.start - timedelta(hours=params.hours)
    limits = [
        Event(
            player_id=span.player_id,
            at=span.limit_reached_at,
            shown={
                "kind": "session_limit",
                "session_id": span.session_id,
                "limit": span.limit_reached,
                "at": span.limit_reached_at.isoformat(),
            },
        )
        for span in sessions.session_limits_reached(since=since, until=day.end)
        if span.limit_reached_at is not None
    ] + [
        Event(
            player_id=row.player_id,
            at=row.at,
            shown={
                "kind": "loss_limit",
                "period": row.period,
                "limit": money_dict(row.limit, row.currency),
                "loss": money_dict(row.loss, row.currency),
                "at": row.at.isoformat(),
            },
        )
        for row in ledger.loss_limits_reached(since=since, until=day.end)
    ]
    moves = [
        Event(
            player_id=span.player_id,
            at=span.started_at,
            shown={
                "kind": "session_started",
                "session_id": span.session_id,
                "at": span.started_at.isoformat(),
            },
        )
        for span in sessions.sessions_started(since=day.start, until=day.end)
    ] + [
        Event(
            player_id=row.player_id,
            at=row.at,
            shown={
                "kind": "deposit",
                "transaction_id": row.transaction_id,
                "amount": money_dict(row.amount, row.currency),
                "at": row.at.isoformat(),
            },
        )
        for row in ledger.deposits_made(since=day.start, until=day.end)
    ]
    return Facts(
        limits=sorted(limits, key=lambda event: event.at),
        moves=sorted(moves, key=lambda event: event.at),
    )


def evaluate(facts: Facts, params: Params) -> list[Finding]:
    within = timedelta(hours=params.hours)
    limits: dict[uuid.UUID, list[Event]] = defaultdict(list)
    for event in facts.limits:
        limits[event.player_id].append(event)
    chases: dict[uuid.UUID, list[tuple[Event, Event]]] = defaultdict(list)
    for move in facts.moves:
        before = [
            limit
            for limit in limits.get(move.player_id, ())
            if limit.at < move.at <= limit.at + within
        ]
        if before:
            chases[move.player_id].append((before[-1], move))  # the latest limit before it
    return [
        Finding(
            player_id=player,
            evidence={
                "limit": pairs[0][0].shown,
                "then": pairs[0][1].shown,
                "hours_after": round((pairs[0][1].at - pairs[0][0].at).total_seconds() / 3600, 2),
                "moves_after_a_limit": len(pairs),
                "threshold_hours": params.hours,
            },
        )
        for player, pairs in chases.items()
    ]


RULE = Rule(
    code=HarmRuleCode.CHASING_LOSSES.value,
    summary="A new session or a deposit within hours after a session limit or a loss limit "
    "stopped play",
    defaults=DEFAULTS,
    parse=parse,
    read=read,
    evaluate=evaluate,
)
