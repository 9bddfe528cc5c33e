"""Deposits rising week on week (docs/player-protection.md "Markers of harm"): what a player
deposited in the 7 days up to the end of the day is at least ``increase_percent`` per cent
more than in the 7 days before, and at least a minimum amount. Per currency, in its minor
units: ``min_units`` whole units of any currency (100: 100.00 EUR, 100 JPY), or the amount
``min_by_currency`` names for it. A first week of deposits is no rise (nothing before it).
Only players who deposited on the day are looked at."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from gin_platform.money import money_dict, to_minor
from protection.harm.findings import DayWindow, Finding, Rule, window_dict
from protection.harm.params import amounts_by_currency, whole_number
from protection.models import HarmRuleCode
from wallet.selectors import harm as ledger

WEEK = timedelta(days=7)
DEFAULTS: Mapping[str, Any] = {"increase_percent": 100, "min_units": 100, "min_by_currency": {}}


@dataclass(frozen=True)
class Params:
    increase_percent: int
    min_units: int
    min_by_currency: dict[str, str]

    def minimum(self, currency: str) -> int:
        """The least a week's deposits must come to, in ``currency``'s minor units."""
        named = self.min_by_currency.get(currency)
        return to_minor(named if named is not None else self.min_units, currency)


def parse(values: Mapping[str, Any]) -> Params:
    return Params(
        increase_percent=whole_number(values, "increase_percent", low=1, high=10_000),
        min_units=whole_number(values, "min_units", low=0, high=10**9),
        min_by_currency=amounts_by_currency(values, "min_by_currency"),
    )


@dataclass(frozen=True)
class Facts:
    since: datetime  # the week before starts
    split: datetime  # the last week starts
    until: datetime
    last: dict[tuple[uuid.UUID, str], int]
    previous: dict[tuple[uuid.UUID, str], int]


def read(day: DayWindow, params: Params) -> Facts:
    split = day.end - WEEK
    depositors = {row.player_id for row in ledger.deposits_made(since=day.start, until=day.end)}
    return Facts(
        since=split - WEEK,
        split=split,
        until=day.end,
        last=ledger.deposit_totals(player_ids=depositors, since=split, until=day.end),
        previous=ledger.deposit_totals(player_ids=depositors, since=split - WEEK, until=split),
    )


def evaluate(facts: Facts, params: Params) -> list[Finding]:
    rises: dict[uuid.UUID, list[dict[str, Any]]] = defaultdict(list)
    for (player, code), last in sorted(facts.last.items(), key=lambda item: str(item[0])):
        previous = facts.previous.get((player, code), 0)
        minimum = params.minimum(code)
        if previous <= 0 or last < minimum:
            continue
        if last * 100 < previous * (100 + params.increase_percent):
            continue
        rises[player].append(
            {
                "currency": code,
                "last_7_days": money_dict(last, code),
                "previous_7_days": money_dict(previous, code),
                "increase_percent": (last - previous) * 100 // previous,
                "minimum": money_dict(minimum, code),
            }
        )
    return [
        Finding(
            player_id=player,
            evidence={
                "last_7_days": window_dict(facts.split, facts.until),
                "previous_7_days": window_dict(facts.since, facts.split),
                "threshold_percent": params.increase_percent,
                "currencies": found,
            },
        )
        for player, found in rises.items()
    ]


RULE = Rule(
    code=HarmRuleCode.DEPOSITS_RISING.value,
    summary="Deposits in the last 7 days up at least increase_percent on the 7 before, and at "
    "least the minimum",
    defaults=DEFAULTS,
    parse=parse,
    read=read,
    evaluate=evaluate,
)
