"""Reads of R13's clocks: a player's protected turns today; the check of auto-played moves."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.utils import timezone

from games import engine
from games.models import Hand, HandEvent, TurnProtection
from games.selectors import out_at_deal
from gin_platform.models import Outage


def day_start(now: datetime) -> datetime:
    """The start of ``now``'s UTC day: protections are counted per UTC day (R13)."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass(frozen=True)
class Protections:
    per_day: int
    used_today: int
    resets_at: datetime

    @property
    def left_today(self) -> int:
        return max(0, self.per_day - self.used_today)


def outage_ended_within(*, now: datetime, seconds: int) -> bool:
    """R13: did one of the platform's own outages end less than ``seconds`` before ``now``?
    A socket it dropped may still be reconnecting then, and that is not the player's doing."""
    return Outage.objects.filter(ended_at__gt=now - timedelta(seconds=seconds)).exists()


def protections_today(*, player_id: uuid.UUID | str, now: datetime | None = None) -> Protections:
    """R13: the player's protected turns today (UTC) and how many the platform allows."""
    now = now or timezone.now()
    start = day_start(now)
    used = TurnProtection.objects.filter(player_id=player_id, granted_at__gte=start).count()
    return Protections(
        per_day=settings.GAMES_PROTECTIONS_PER_DAY,
        used_today=used,
        resets_at=start + timedelta(days=1),
    )


def auto_moves_follow_r13(hand: Hand) -> bool:
    """Replay the hand from its seed and check every move marked ``auto`` against R13's
    fixed move computed afresh (``engine.auto_action``): anyone can check an auto-played
    turn as they check the deal (docs/fairness.md). True when there are none."""
    rows = HandEvent.objects.filter(hand=hand, action__isnull=False).order_by("seq")
    if not rows.filter(payload__auto=True).exists():
        return True
    rules = engine.RuleSet.from_dict(hand.match.rules)
    # action__isnull=False: each a recorded dict
    recorded = cast(
        "list[tuple[dict[str, Any], dict[str, Any]]]", list(rows.values_list("action", "payload"))
    )
    state = engine.deal(
        seed=hand.server_seed,
        dealer=hand.dealer,
        rules=rules,
        out=out_at_deal(hand, [action for action, _payload in recorded]),
    )
    try:
        for action, payload in recorded:
            if action["kind"] == engine.FORFEIT:
                state, _ = engine.forfeit(state, action["seat"])
                continue
            move = engine.Action.from_dict(action)
            if payload.get("auto") and engine.auto_action(state, move.seat).to_dict() != action:
                return False
            state, _ = engine.apply(state, move)
    except engine.EngineError:  # the record does not replay from the seed (the deal fails too)
        return False
    return True
