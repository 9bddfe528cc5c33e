"""Row locks of matchmaking (one lock helper module per app).

The order, always: a Queue row, then its Ticket rows in primary-key order, then whatever
games' seating locks (``games.locks``: the Table first) and the wallet's after it. Seating a
pair takes them all in that order inside ``games.services.pair_seat``'s transaction;
cancelling and expiring lock one Ticket row alone, and nothing of games or the wallet ever
waits for a matchmaking row while holding its own, so the order cannot invert.
"""

from __future__ import annotations

from collections.abc import Iterable

from gin_platform.models import Player
from matchmaking.models import Queue, Ticket


def lock_queue(queue_id: int) -> Queue:
    """The queue's row: one matcher seats a pair of this queue at a time."""
    return Queue.objects.select_for_update().get(pk=queue_id)


def lock_tickets(ticket_ids: Iterable[int]) -> list[Ticket]:
    """The tickets, locked in primary-key order."""
    return list(
        Ticket.objects.select_for_update(of=("self",))
        .select_related("player")
        .filter(pk__in=sorted(set(ticket_ids)))
        .order_by("pk")
    )


def lock_waiting_ticket_of(player: Player) -> Ticket | None:
    """The player's waiting ticket, locked (None: none waits)."""
    return (
        Ticket.objects.select_for_update(of=("self",))
        .select_related("queue__room")
        .filter(player=player, status=Ticket.Status.WAITING)
        .first()
    )


def lock_ticket(ticket_id: int) -> Ticket:
    return Ticket.objects.select_for_update(of=("self",)).select_related("player").get(pk=ticket_id)
