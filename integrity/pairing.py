"""The one question games asks integrity (R10's seating, docs/integrity.md "Linked accounts"):
may these players share a table? Two players linked for any reason still in force never do.
Reads only, one indexed query; imports nothing of games, so the seating path can call it."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from integrity.models import PlayerLink


def linked_pairs(*, player_ids: Iterable[UUID]) -> set[tuple[UUID, UUID]]:
    """The pairs among ``player_ids`` that may not share a table, each as (low id, high id)."""
    ids = set(player_ids)
    if len(ids) < 2:
        return set()
    rows = PlayerLink.objects.filter(
        player_low__in=ids, player_high__in=ids, ended_at__isnull=True
    ).values_list("player_low_id", "player_high_id")
    return {(low, high) for low, high in rows}


def may_share_table(*, player_id: UUID, other_ids: Iterable[UUID]) -> bool:
    """Whether ``player_id`` may sit with every one of ``other_ids``."""
    others = set(other_ids) - {player_id}
    if not others:
        return True
    return not any(player_id in pair for pair in linked_pairs(player_ids=others | {player_id}))
