"""R15's rating periods (docs/rules.md): one rated match is one period, in which every
player who played it has played one game against each of the others, scored by their
places (a better place wins, a shared place draws). Everybody is rated from where they
stood before the match; nobody else's rating moves.

Also R15's provisional rating: while its RD is above ``PROVISIONAL_RD``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ratings.engine.glicko2 import DRAW, LOSS, START, WIN, Game, Rating, rate

P = TypeVar("P", bound=Hashable)

PROVISIONAL_RD = 110.0


def is_provisional(rating: Rating) -> bool:
    """R15: a rating is provisional while its RD is above 110."""
    return rating.rd > PROVISIONAL_RD


@dataclass(frozen=True, slots=True)
class PeriodResult:
    """One player's period: their place (1-based; a shared place has one number), the
    games it gave them, and their rating before and after."""

    place: int
    wins: int
    draws: int
    losses: int
    before: Rating
    after: Rating


def pairwise_games(places: Sequence[Sequence[P]]) -> dict[P, list[tuple[P, float]]]:
    """Each player's games of the period: one against every other player, won against a
    worse place, drawn within a shared one, lost against a better one."""
    check_places(places)
    games: dict[P, list[tuple[P, float]]] = {player: [] for place in places for player in place}
    for rank, place in enumerate(places):
        for player in place:
            for other_rank, other_place in enumerate(places):
                score = WIN if rank < other_rank else DRAW if rank == other_rank else LOSS
                games[player].extend((other, score) for other in other_place if other != player)
    return games


def rate_period(
    *, places: Sequence[Sequence[P]], before: Mapping[P, Rating]
) -> dict[P, PeriodResult]:
    """Every player's rating after a match that ranked them as ``places`` (best first, a
    shared place holding several), from ``before`` (a player missing there is unrated:
    ``START``). A match with fewer than two players who played rates nobody."""
    games = pairwise_games(places)
    if len(games) < 2:
        return {}
    rating = {player: before.get(player, START) for player in games}
    place_of: dict[P, int] = {}
    first = 1
    for place in places:
        place_of.update((player, first) for player in place)
        first += len(place)
    results = {}
    for player, played in games.items():
        scores = [score for _, score in played]
        results[player] = PeriodResult(
            place=place_of[player],
            wins=scores.count(WIN),
            draws=scores.count(DRAW),
            losses=scores.count(LOSS),
            before=rating[player],
            after=rate(rating[player], [Game(rating[other], score) for other, score in played]),
        )
    return results


def check_places(places: Sequence[Sequence[P]]) -> None:
    """Places are non-empty and name each player once (``ValueError`` otherwise)."""
    players = [player for place in places for player in place]
    if any(not place for place in places):
        raise ValueError("a place holds at least one player")
    if len(set(players)) != len(players):
        raise ValueError("a player holds one place only")
