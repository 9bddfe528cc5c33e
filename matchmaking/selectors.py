"""Reads of matchmaking (docs/matchmaking.md): a player's own tickets, and what the matcher
and its beat job read. A player reads only their own tickets: nothing here reads another
player's for them."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from matchmaking.models import Queue, Ticket


def player_latest_ticket(*, player: Player) -> Ticket:
    """The player's newest ticket, whatever its status (404 when they never asked)."""
    ticket = (
        Ticket.objects.select_related("queue__room", "seat")
        .filter(player=player)
        .order_by("-joined_at", "-pk")
        .first()
    )
    if ticket is None:
        raise NotFoundProblem(gettext("You have not asked for a quick seat."))
    return ticket


def ticket_get(*, ticket_id: int) -> Ticket:
    return Ticket.objects.select_related("queue__room", "seat", "player").get(pk=ticket_id)


def queue_get(*, queue_id: int) -> Queue:
    return Queue.objects.select_related("room").get(pk=queue_id)


def queue_waiting(*, queue_id: int) -> list[Ticket]:
    """The queue's waiting tickets with their players, oldest first."""
    return list(
        Ticket.objects.select_related("player__operator")
        .filter(queue_id=queue_id, status=Ticket.Status.WAITING)
        .order_by("joined_at", "pk")
    )


def queues_with_waiting() -> list[int]:
    """Every queue with a waiting ticket (the beat re-examines them: bands widen with time)."""
    waiting = Ticket.objects.filter(status=Ticket.Status.WAITING)
    return sorted(set(waiting.values_list("queue_id", flat=True)))


def tickets_waiting_since(*, joined_before: datetime, limit: int) -> list[int]:
    """Waiting tickets that joined before ``joined_before`` (the ones to expire)."""
    waiting = Ticket.objects.filter(status=Ticket.Status.WAITING, joined_at__lt=joined_before)
    return list(waiting.order_by("joined_at", "pk").values_list("pk", flat=True)[:limit])
