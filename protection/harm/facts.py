"""The play-session facts the markers of harm read (the ledger's are
``wallet.selectors.harm``): sessions in play during a window, sessions started in one, and
the sessions that reached a limit in one."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from protection.models import EndReason, PlaySession

LIMIT_END_REASONS = (EndReason.DURATION_LIMIT, EndReason.LOSS_LIMIT)


@dataclass(frozen=True)
class SessionSpan:
    session_id: int
    player_id: uuid.UUID
    started_at: datetime
    ended_at: datetime | None
    limit_reached: str  # duration, loss; "" for none
    limit_reached_at: datetime | None  # when it reached it (or ended on it)


_FIELDS = (
    "pk",
    "player_id",
    "started_at",
    "ended_at",
    "limit_reached",
    "limit_reached_at",
    "end_reason",
)


def _spans(rows: QuerySet[PlaySession]) -> list[SessionSpan]:
    spans = []
    for pk, player, started, ended, reached, reached_at, reason in rows.order_by(
        "started_at", "pk"
    ).values_list(*_FIELDS):
        ended_on_limit = reason in LIMIT_END_REASONS
        spans.append(
            SessionSpan(
                session_id=pk,
                player_id=player,
                started_at=started,
                ended_at=ended,
                limit_reached=reached or (reason.removesuffix("_limit") if ended_on_limit else ""),
                limit_reached_at=reached_at or (ended if ended_on_limit else None),
            )
        )
    return spans


def sessions_in_play(*, since: datetime, until: datetime) -> list[SessionSpan]:
    """Sessions begun before ``until`` and not ended before ``since``, oldest first."""
    rows = PlaySession.objects.filter(started_at__lt=until).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gte=since)
    )
    return _spans(rows)


def sessions_started(*, since: datetime, until: datetime) -> list[SessionSpan]:
    return _spans(PlaySession.objects.filter(started_at__gte=since, started_at__lt=until))


def session_limits_reached(*, since: datetime, until: datetime) -> list[SessionSpan]:
    """Sessions that reached a duration or loss limit in the window (``limit_reached``), or
    ended on one there."""
    reached = Q(limit_reached_at__gte=since, limit_reached_at__lt=until) & ~Q(limit_reached="")
    ended = Q(
        limit_reached_at__isnull=True,
        end_reason__in=LIMIT_END_REASONS,
        ended_at__gte=since,
        ended_at__lt=until,
    )
    return _spans(PlaySession.objects.filter(reached | ended))
