"""R14 places in a knockout: who holds which places, final once the round that decides them
has ended.

- The players out in one round share that round's places equally: ``k`` players out with
  ``m`` still in after the round hold places ``m + 1 .. m + k`` (the two losers of the
  semi-finals share 3rd-4th). When nobody is left after a round (everybody out by absence),
  its players share places ``1 .. k``: the pool not yet paid is theirs, equally.
- The final's ranking decides places ``1 .. k``, one player each; a player of the final who
  never played it (absent) shares the places after those ranked.
- Every group lists its players in order of registration: that order takes the minor units
  a division leaves over (:func:`tournaments.engine.prize_amounts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True, slots=True)
class PlaceGroup(Generic[T]):
    """Players sharing places ``first_place .. last_place`` equally, in registration order."""

    first_place: int
    players: tuple[T, ...]

    def __post_init__(self) -> None:
        if type(self.first_place) is not int or self.first_place < 1:
            raise ValueError(f"places start at 1, got {self.first_place!r}")
        if not self.players or len(set(self.players)) != len(self.players):
            raise ValueError("a place group holds one or more players, each once")

    @property
    def last_place(self) -> int:
        return self.first_place + len(self.players) - 1


def places_of_round(*, eliminated: Sequence[T], still_in: int) -> PlaceGroup[T]:
    """R14: the players out in a round (in registration order) share places
    ``still_in + 1 .. still_in + len(eliminated)``, ``still_in`` being the players left
    after the round (0 when nobody is)."""
    if type(still_in) is not int or still_in < 0:
        raise ValueError(f"the players still in are a count, got {still_in!r}")
    return PlaceGroup(first_place=still_in + 1, players=tuple(eliminated))


def places_of_final(*, ranking: Sequence[T], absent: Sequence[T] = ()) -> tuple[PlaceGroup[T], ...]:
    """R14: the final's ranking takes places 1, 2, ... in order; its ``absent`` players (in
    registration order; they never played it) share the places after them."""
    ranked = tuple(
        PlaceGroup(first_place=place, players=(player,))
        for place, player in enumerate(ranking, start=1)
    )
    if not absent:
        return ranked
    return (*ranked, places_of_round(eliminated=absent, still_in=len(ranked)))
