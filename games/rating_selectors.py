"""What ratings (R15) read of games: which finished matches count for a rating, and how each
ranked the players who played it. Reads only; the ratings app calls these when
``games.signals.match_finished`` tells it a match is over (and from its sweep). games never
imports ratings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db.models import QuerySet

from games import engine
from games.models import Match, Seat
from games.selectors import match_result
from gin_platform.models import Operator

# A match is over for R15 once its result is recorded; settling it changes nothing of that.
# A voided match (R13) never has a result, and an aborted one never started.
RATED_STATUSES = (Match.Status.FINISHED, Match.Status.SETTLED)


def rated_matches() -> QuerySet[Match]:
    """The matches R15 rates: finished real-money and tournament matches (never a practice
    one, so never one against the house bot, which only sits at practice tables)."""
    return Match.objects.filter(
        status__in=RATED_STATUSES,
        is_practice=False,
        bot_seat__isnull=True,
        finished_at__isnull=False,
    )


def counts_for_rating(match: Match) -> bool:
    """Whether ``match`` is rated once it finishes (or was): a real-money or tournament match
    that was not aborted or voided."""
    return (
        not match.is_practice
        and match.bot_seat is None
        and match.status not in (Match.Status.ABORTED, Match.Status.VOIDED)
    )


@dataclass(frozen=True)
class MatchStanding:
    """How a rated match ended for R15: its variant and seat count (the rating's family),
    when it ended, and ``places``: the players who played it, best first, a place shared by
    a tie holding several in seat order. Heads-up: the winner, then the loser; a forfeit is
    a loss even when no money moved (R10: Money Play's leaver still ahead); equal Money Play
    scores share the place. Three or four seats: the result's ranking (R12: forfeits last,
    ties shared). A player who never took their reserved seat (R14 "Absence") played
    nothing and is in no place."""

    match_id: int
    operator: Operator  # the match's (the network's at a network table)
    variant: str
    seat_count: int
    finished_at: datetime
    places: tuple[tuple[UUID, ...], ...]


def match_standing(*, match_id: int) -> MatchStanding | None:
    """The standing of ``match_id`` if R15 rates it (see ``rated_matches``), else None."""
    match = rated_matches().select_related("operator").filter(pk=match_id).first()
    if match is None or match.result is None or match.finished_at is None:
        return None
    absent = set(
        Seat.objects.filter(match_id=match.pk, state=Seat.State.ABSENT).values_list(
            "player_id", flat=True
        )
    )
    result = match_result(match.result)
    player_at = {seat.position: UUID(seat.player_id) for seat in result.seats}
    places = (
        tuple(player_at[seat] for seat in group if player_at[seat] not in absent)
        for group in _seat_places(result)
    )
    return MatchStanding(
        match_id=match.pk,
        operator=match.operator,
        variant=match.variant,
        seat_count=match.seat_count,
        finished_at=match.finished_at,
        places=tuple(place for place in places if place),
    )


def _seat_places(
    result: engine.MatchResult | engine.MultiMatchResult,
) -> tuple[tuple[int, ...], ...]:
    if isinstance(result, engine.MultiMatchResult):
        return result.ranking.groups
    if result.winner_seat is not None:
        return ((result.winner_seat,), (1 - result.winner_seat,))
    if result.forfeit is not None:  # Money Play: the leaver was ahead, so no money moved
        return ((1 - result.forfeit.seat,), (result.forfeit.seat,))
    return ((0, 1),)  # equal final scores (Money Play), or nobody played (R14)
