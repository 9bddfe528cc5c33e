"""What a tournament (R14) reads of its matches (docs/games.md "Tournament matches"): the
match a reference names, and how it ended, by player. Reads only; the tournaments app calls
these when ``games.signals.match_finished`` or ``match_voided`` tells it a match is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from games import engine
from games.models import Match, Seat
from games.selectors import match_result


@dataclass(frozen=True)
class TournamentMatchOutcome:
    """How a tournament's match ended, by player id.

    - ``finished``: the match is over (a result recorded, or voided); else nothing below
      but ``absent`` is known yet.
    - ``ranking``: the players who played, best first (heads-up: the winner, then the loser;
      three or four seats: the result's ranking, R12). Forfeits rank the forfeiter below
      those still in (R10, R12: the latest to leave above the earlier). Empty when nobody
      played (no contest) or the match was voided.
    - ``places``: the same players by place: a place shared by a tie (R12: equal penalty
      totals and hands won) holds several, in seat order; R14 breaks such a tie by the draw.
    - ``absent``: the players who never took their reserved seat (R14 "Absence"), in seat
      order; they rank nowhere.
    - ``voided``: R13: interrupted past the limit (or stopped) and voided: no result.
    """

    finished: bool
    ranking: tuple[UUID, ...]
    places: tuple[tuple[UUID, ...], ...]
    absent: tuple[UUID, ...]
    voided: bool


_OVER = (Match.Status.FINISHED, Match.Status.SETTLED)


def tournament_match_get(*, reference: str) -> Match | None:
    """The tournament's match opened with ``reference`` (``Match.external_ref``), if any."""
    return Match.objects.filter(external_ref=reference).first()


def tournament_match_outcome(*, match: Match) -> TournamentMatchOutcome:
    """How ``match`` stands now (read afresh): see ``TournamentMatchOutcome``."""
    status, stored = Match.objects.values_list("status", "result").get(pk=match.pk)
    absent = tuple(
        Seat.objects.filter(match_id=match.pk, state=Seat.State.ABSENT)
        .order_by("position", "pk")
        .values_list("player_id", flat=True)
    )
    if status == Match.Status.VOIDED:
        return TournamentMatchOutcome(True, (), (), absent, True)
    if status not in _OVER or stored is None:
        return TournamentMatchOutcome(False, (), (), absent, False)
    places = _places(match_result(stored), absent=set(absent))
    ranking = tuple(player for place in places for player in place)
    return TournamentMatchOutcome(True, ranking, places, absent, False)


def _places(
    result: engine.MatchResult | engine.MultiMatchResult, *, absent: set[UUID]
) -> tuple[tuple[UUID, ...], ...]:
    """The result's places by player, without the absent (a walkover's result ranks them
    last, as forfeits, R14)."""
    player_at = {seat.position: UUID(seat.player_id) for seat in result.seats}
    if isinstance(result, engine.MultiMatchResult):
        groups = result.ranking.groups
    elif result.winner_seat is None:  # nobody won: every seat shares the one place
        groups = (tuple(sorted(player_at)),)
    else:
        groups = ((result.winner_seat,), (1 - result.winner_seat,))
    places = (
        tuple(player_at[seat] for seat in group if player_at[seat] not in absent)
        for group in groups
    )
    return tuple(place for place in places if place)
