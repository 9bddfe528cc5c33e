"""What player protection reads of the tables (docs/player-protection.md "At the table"):
who holds a seat, who plays at a running real-money table, and the matches a session's end
stopped after their hand that are not voided yet. Reads only."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from games.models import Match, Seat, Table
from gin_platform.models import Player


def players_seated(*, player_ids: Iterable[UUID]) -> set[UUID]:
    """Those of ``player_ids`` who hold a seat at a real-money table (waiting or playing)."""
    return set(
        Seat.objects.filter(
            player_id__in=list(player_ids),
            state__in=Seat.ACTIVE_STATES,
            match__is_practice=False,
        ).values_list("player_id", flat=True)
    )


def players_playing(*, player_ids: Iterable[UUID]) -> set[UUID]:
    """Those of ``player_ids`` playing at a running real-money table: their reality checks
    come at the table's next turn boundary."""
    return set(
        Seat.objects.filter(
            player_id__in=list(player_ids),
            state__in=Seat.ACTIVE_STATES,
            match__status=Match.Status.RUNNING,
            match__is_practice=False,
        ).values_list("player_id", flat=True)
    )


def matches_stopped() -> list[tuple[int, str]]:
    """Matches a player's session stopped after their hand (suspended, not voided yet), with
    the reason: the sweep voids them again in case their queued void was lost (voiding is
    idempotent: a voided match is not suspended any more)."""
    return [
        (match_id, str(clocks.get("stop_after_hand")))
        for match_id, clocks in Match.objects.filter(
            status=Match.Status.SUSPENDED, clocks__has_key="stop_after_hand"
        ).values_list("pk", "clocks")
    ]


def player_waiting_tables(*, player: Player) -> list[Table]:
    """The real-money tables where the player sits waiting for the match to start."""
    return [
        seat.table
        for seat in Seat.objects.filter(
            player=player,
            state__in=Seat.ACTIVE_STATES,
            match__status=Match.Status.WAITING,
            match__is_practice=False,
        ).select_related("table")
    ]
