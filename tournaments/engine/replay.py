"""R14 the whole bracket replayed from the revealed seed and the published match results.

What an auditor runs once the tournament has ended, and what the live bracket must equal:
the draw (:func:`draw_order`), then round after round the plan (:func:`plan_round`), each
played table sending on the first ``advance`` players of its published ranking, until one
player or none is left; the places follow (:mod:`tournaments.engine.places`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tournaments.engine.draw import draw_order
from tournaments.engine.places import PlaceGroup, places_of_final, places_of_round
from tournaments.engine.rounds import RoundPlan, check_format, plan_round

T = TypeVar("T", bound=Hashable)
# A played table (its players, in draw order) -> its ranking, best first, of the players who
# played it: the first `advance` go on (the final: places 1, 2, ...). A player left out never
# played it (absent): out, and in the final sharing the places after the ranked ones.
Results = Callable[[tuple[T, ...]], Sequence[T]] | Mapping[tuple[T, ...], Sequence[T]]


@dataclass(frozen=True, slots=True)
class Bracket(Generic[T]):
    """A tournament replayed: the draw, every round, and the places (best first)."""

    draw: tuple[T, ...]
    rounds: tuple[RoundPlan[T], ...]
    places: tuple[PlaceGroup[T], ...]

    @property
    def winner(self) -> T | None:
        """The player alone in 1st place; None when nobody won (everybody out by absence)."""
        first = self.places[0] if self.places else None
        return first.players[0] if first is not None and len(first.players) == 1 else None


def _ranking(table: tuple[T, ...], result: Sequence[T]) -> tuple[T, ...]:
    """A table's published result: some of that table's players, each once, best first."""
    players = tuple(result)
    if len(set(players)) != len(players) or not set(players) <= set(table):
        raise ValueError(f"a table's result ranks its own players once each: {players!r}")
    return players


def bracket_replay(
    *, seed: str, entries: Sequence[T], seats: int, advance: int, advancing: Results[T]
) -> Bracket[T]:
    """R14: the bracket of a knockout from its revealed ``seed``, its ``entries`` in order of
    registration and ``advancing``, the published result of each played table (its ranking
    of the players who played it; see :data:`Results`)."""
    check_format(seats=seats, advance=advance)
    result = advancing.__getitem__ if isinstance(advancing, Mapping) else advancing
    registered = {player: index for index, player in enumerate(entries)}
    draw = draw_order(seed=seed, entries=entries)
    left, had_bye = draw, set[T]()
    rounds: list[RoundPlan[T]] = []
    places: list[PlaceGroup[T]] = []
    while len(left) >= 2:
        plan = plan_round(players=left, seats=seats, advance=advance, had_bye=had_bye)
        rounds.append(plan)
        if plan.final:
            (table,) = plan.tables
            ranking = _ranking(table, result(table))
            absent = sorted(set(table) - set(ranking), key=registered.__getitem__)
            places[:0] = places_of_final(ranking=ranking, absent=absent)
            left = ()
            break
        going_on = set(plan.byes)
        for table in plan.tables:
            going_on.update(_ranking(table, result(table))[:advance])
        had_bye.update(plan.byes)
        out = sorted(set(left) - going_on, key=registered.__getitem__)
        left = tuple(player for player in left if player in going_on)
        places.insert(0, places_of_round(eliminated=out, still_in=len(left)))
    if len(left) == 1:
        places.insert(0, PlaceGroup(first_place=1, players=left))
    return Bracket(draw=draw, rounds=tuple(rounds), places=tuple(places))
