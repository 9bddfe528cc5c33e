"""Night play (docs/player-protection.md "Markers of harm"): of the player's real-money
buy-ins in the 7 days up to the end of the day, at least ``share_percent`` per cent were
made at night, and there were at least ``min_buy_ins`` of them. Night is from
``night_from_hour`` to ``night_to_hour`` UTC (00:00 to 06:00 by default; it may wrap past
midnight, 22 to 6): UTC because players carry no time zone. Only players who bought in on
the day are looked at."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from protection.harm.findings import DayWindow, Finding, Rule, window_dict
from protection.harm.params import ParamsInvalid, whole_number
from protection.models import HarmRuleCode
from wallet.selectors import harm as ledger

WEEK = timedelta(days=7)
DEFAULTS: Mapping[str, Any] = {
    "share_percent": 50,
    "min_buy_ins": 10,
    "night_from_hour": 0,
    "night_to_hour": 6,
}


@dataclass(frozen=True)
class Params:
    share_percent: int
    min_buy_ins: int
    night_from_hour: int
    night_to_hour: int

    def at_night(self, moment: datetime) -> bool:
        hour = moment.astimezone(UTC).hour
        if self.night_from_hour < self.night_to_hour:
            return self.night_from_hour <= hour < self.night_to_hour
        return hour >= self.night_from_hour or hour < self.night_to_hour

    @property
    def night(self) -> str:
        return f"{self.night_from_hour:02d}:00-{self.night_to_hour % 24:02d}:00 UTC"


def parse(values: Mapping[str, Any]) -> Params:
    params = Params(
        share_percent=whole_number(values, "share_percent", low=1, high=100),
        min_buy_ins=whole_number(values, "min_buy_ins", low=1, high=10_000),
        night_from_hour=whole_number(values, "night_from_hour", low=0, high=23),
        night_to_hour=whole_number(values, "night_to_hour", low=1, high=24),
    )
    if params.night_from_hour == params.night_to_hour % 24:
        raise ParamsInvalid("params.night_to_hour", "the night cannot start when it ends")
    return params


@dataclass(frozen=True)
class Facts:
    since: datetime
    until: datetime
    buy_ins: list[ledger.BuyIn]


def read(day: DayWindow, params: Params) -> Facts:
    players = {row.player_id for row in ledger.buy_ins_made(since=day.start, until=day.end)}
    since = day.end - WEEK
    return Facts(
        since=since,
        until=day.end,
        buy_ins=ledger.buy_ins_made(since=since, until=day.end, player_ids=players)
        if players
        else [],
    )


def evaluate(facts: Facts, params: Params) -> list[Finding]:
    total: Counter[uuid.UUID] = Counter()
    night: Counter[uuid.UUID] = Counter()
    for buy_in in facts.buy_ins:
        total[buy_in.player_id] += 1
        if params.at_night(buy_in.at):
            night[buy_in.player_id] += 1
    return [
        Finding(
            player_id=player,
            evidence={
                "window": window_dict(facts.since, facts.until),
                "buy_ins": count,
                "night_buy_ins": night[player],
                "night_share_percent": round(night[player] * 100 / count, 1),
                "night": params.night,
                "threshold_percent": params.share_percent,
                "min_buy_ins": params.min_buy_ins,
            },
        )
        for player, count in total.items()
        if count >= params.min_buy_ins and night[player] * 100 >= params.share_percent * count
    ]


RULE = Rule(
    code=HarmRuleCode.NIGHT_PLAY.value,
    summary="At least share_percent of the last 7 days' real-money buy-ins at night (UTC), "
    "of at least min_buy_ins",
    defaults=DEFAULTS,
    parse=parse,
    read=read,
    evaluate=evaluate,
)
