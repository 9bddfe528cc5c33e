"""Integrity's row locks (one module, as every app's locks.py)."""

from __future__ import annotations

from uuid import UUID

from integrity.models import LinkMark, PlayerLink


def lock_player_link(*, link_id: int) -> PlayerLink:
    """The link row, locked until the end of the transaction."""
    return PlayerLink.objects.select_for_update().get(pk=link_id)


def lock_player_link_of(*, low: UUID, high: UUID, kind: str) -> PlayerLink | None:
    """The pair's link of ``kind`` (``low`` < ``high``), locked; None when there is none."""
    return (
        PlayerLink.objects.select_for_update()
        .filter(player_low_id=low, player_high_id=high, kind=kind)
        .first()
    )


def lock_link_mark(*, mark_id: int) -> LinkMark:
    """The mark row, locked until the end of the transaction."""
    return LinkMark.objects.select_for_update().get(pk=mark_id)
