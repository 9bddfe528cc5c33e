"""What tenancy tells other apps without importing them.

``identifiers_seen``: a player was seen with identifiers that may link them to other players
(docs/integrity.md): a device id or client address the operator sent with a launch or a
session, or the client address the platform itself saw when the player's session was
exchanged or used for a socket ticket. Sent inside the service's transaction with the raw
values; the receiver (integrity's) keeps only keyed hashes and does its work after the
commit. Arguments: ``player_id``, ``identifiers`` ({"device": ..., "address": ...}, the kinds
present only) and ``source`` ("operator:<id>" or "platform").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.dispatch import Signal

if TYPE_CHECKING:  # imported by AppConfig modules, before the models may load
    from gin_platform.models import Player

identifiers_seen = Signal()


def identifiers_announce(
    *,
    player: Player,
    source: str,
    device_id: str | None = None,
    address: str | None = None,
) -> None:
    """Send ``identifiers_seen`` for ``player`` with the identifiers given (none: nothing)."""
    identifiers = {
        kind: value for kind, value in (("device", device_id), ("address", address)) if value
    }
    if identifiers:
        identifiers_seen.send(
            sender=type(player), player_id=player.pk, identifiers=identifiers, source=source
        )
