"""Reads of R13's clocks: a player's protected turns today."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.models import TurnProtection


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
