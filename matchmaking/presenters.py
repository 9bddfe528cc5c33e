"""A quick-seat ticket as its player sees it: the REST answer and every push on their socket
(``/ws/v1/me``) have this one shape (``matchmaking.api.serializers.TicketOutput``). Only the
player's own request and how it ended: never who the opponent is (the table names them, as
every view of the game does: docs/network.md "Tenancy")."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from games.api.presenters import money
from games.models import Variant
from gin_platform.models import Player
from gin_platform.tenancy.selectors import is_network_operator
from matchmaking import bands
from matchmaking.models import Ticket

# How long a ticket waits at most (nobody came: it expires; the beat job ends it).
TICKET_LIFETIME_SECONDS = 600


def _bound(value: float) -> float | None:
    return None if math.isinf(value) else round(value, 2)


def band_view(ticket: Ticket, now: datetime) -> dict[str, float | None] | None:
    """The ratings the waiting ticket's band holds now (a null end: no bound, R15's "any
    opponent" after 60 s); None once the ticket stopped waiting."""
    if ticket.status != Ticket.Status.WAITING:
        return None
    low, high = bands.Waiting(ticket.pk, ticket.player_id, ticket.rating, ticket.joined_at).band(
        now
    )
    return {"low": _bound(low), "high": _bound(high)}


def ticket_view(ticket: Ticket, *, player: Player, now: datetime | None = None) -> dict[str, Any]:
    queue = ticket.queue
    room = queue.room
    currency = room.currency
    seat = ticket.seat
    return {
        "id": ticket.pk,
        "status": ticket.status,
        "variant": room.variant,
        "currency": currency,
        "stake": money(
            None if room.variant == Variant.MONEY else room.stake, currency, player=player
        ),
        "stake_per_point": money(queue.stake_per_point, currency, player=player),
        "cashier_amount": money(ticket.cashier_amount, currency, player=player),
        "room_id": room.pk,
        "network": is_network_operator(room.operator_id),
        "family": ticket.family,
        "rating": round(ticket.rating, 2),
        "band": band_view(ticket, now or timezone.now()),
        "joined_at": ticket.joined_at,
        "expires_at": ticket.joined_at + timedelta(seconds=TICKET_LIFETIME_SECONDS),
        "ended_at": ticket.ended_at,
        "seat": (
            None
            if seat is None
            else {"table_id": seat.table_id, "match_id": seat.match_id, "position": seat.position}
        ),
        "problem_type": ticket.problem_type or None,
    }


def ticket_message(ticket: Ticket, *, player: Player) -> dict[str, Any]:
    """The push on the player's socket when the ticket changed: ``quick_seat.<status>``
    (``quick_seat.queued`` when it starts waiting) with the ticket as REST shows it (the
    socket encodes it as the REST answers are: ISO 8601 times)."""
    kind = "queued" if ticket.status == Ticket.Status.WAITING else ticket.status
    return {"type": f"quick_seat.{kind}", "ticket": ticket_view(ticket, player=player)}
