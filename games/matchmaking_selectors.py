"""What matchmaking (R15's quick seat, docs/matchmaking.md) reads of games: the rooms where a
player may be seated heads-up for money at a variant and stake. games never imports
matchmaking: it asks here, and seats pairs through ``games.services.pair_seat``."""

from __future__ import annotations

from django.db.models import Q

from games.models import Room, Variant
from games.selectors import network_rooms_offered
from gin_platform.models import Player


def quick_seat_rooms(
    *,
    player: Player,
    variant: str,
    currency: str,
    stake: int | None,
    stake_per_point: int | None,
) -> list[Room]:
    """The active heads-up real-money rooms of the lobby (never practice, never a
    tournament's) in the player's lobby that play ``variant`` in ``currency`` at ``stake``
    (First To Knock, Match Play) or offer ``stake_per_point`` (Money Play): the operator's own
    rooms first, then the network's it offers; the oldest room first in each."""
    operator = player.operator
    rooms = Room.objects.filter(
        Q(operator=operator) | Q(pk__in=network_rooms_offered(operator=operator).values("pk")),
        active=True,
        purpose=Room.Purpose.CASH,
        is_practice=False,
        seats=2,
        variant=variant,
        currency=currency,
    )
    if variant != Variant.MONEY:
        rooms = rooms.filter(stake=stake)
    found = [
        room
        for room in rooms.select_related("operator").order_by("pk")
        if variant != Variant.MONEY or stake_per_point in room.stake_per_point_choices
    ]
    return sorted(found, key=lambda room: room.operator_id != operator.pk)
