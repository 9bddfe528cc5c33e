"""R14 a knockout round: who sits at which table, who has a bye, and whether it is the final.

The players left are always listed in draw order (:func:`tournaments.engine.draw_order`) and
keep it from round to round, so the bracket is the classical one: tables take consecutive
players of the draw, and the players tables 1 and 2 send on meet next when heads-up.

- Two to ``seats`` players left: one table with all of them, the final.
- More: the fewest byes that let everybody else sit at a table that is played (more than
  ``advance`` players: a smaller table would send everybody on), then
  ``t = ceil(m / seats)`` tables for the ``m`` players who sit, sizes as equal as possible
  (differing by at most one), larger tables first. Heads-up that is one bye when an odd
  number is left; with three or four seats and ``advance`` 1 there is never a bye.
- The byes go to the first players of the draw who have had no bye yet (all had one: the
  first of the draw). They are set aside first; the others are dealt to the tables
  consecutively, in draw order.
- One player left has won; none left (everybody out by absence) has no plan either: the
  players of the last round played share its places (:mod:`tournaments.engine.places`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)
SEATS = (2, 3, 4)


@dataclass(frozen=True, slots=True)
class RoundPlan(Generic[T]):
    """One round: its tables (each in draw order), the byes, and whether it is the final."""

    tables: tuple[tuple[T, ...], ...]
    byes: tuple[T, ...]
    final: bool

    @property
    def players(self) -> tuple[T, ...]:
        """Everybody in the round: the tables' players, then the byes."""
        return (*(player for table in self.tables for player in table), *self.byes)


def check_format(*, seats: int, advance: int) -> None:
    """R14: tables of 2, 3 or 4 seats, each sending on ``1 <= advance < seats`` players."""
    if type(seats) is not int or seats not in SEATS:
        raise ValueError(f"a table has 2, 3 or 4 seats, got {seats!r}")
    if type(advance) is not int or not 1 <= advance < seats:
        raise ValueError(f"a table sends on 1 to seats - 1 players, got {advance!r}")


def table_sizes(players: int, *, seats: int) -> tuple[int, ...]:
    """``ceil(players / seats)`` tables, sizes as equal as possible, larger ones first."""
    count = -(-players // seats)
    size, larger = divmod(players, count)
    return tuple(size + 1 if index < larger else size for index in range(count))


def bye_count(players: int, *, seats: int, advance: int) -> int:
    """The fewest byes that leave every table played (more than ``advance`` players).

    Heads-up: ``players % 2``. Fewer tables would overflow them and more would only make
    them smaller, so ``ceil(m / seats)`` tables is the one split to try for ``m`` seated.
    ``m = advance + 1`` (one table) always works, so this ends.
    """
    byes = 0
    while min(table_sizes(players - byes, seats=seats)) <= advance:
        byes += 1
    return byes


def plan_round(
    *, players: Sequence[T], seats: int, advance: int, had_bye: Collection[T] = ()
) -> RoundPlan[T]:
    """R14: the round the players left (in draw order) play; ``had_bye`` holds the players
    who have had a bye in an earlier round."""
    check_format(seats=seats, advance=advance)
    left = tuple(players)
    if len(set(left)) != len(left):
        raise ValueError("each player is in a round once")
    if len(left) < 2:
        return RoundPlan(tables=(), byes=(), final=False)
    if len(left) <= seats:
        return RoundPlan(tables=(left,), byes=(), final=True)
    byes_needed = bye_count(len(left), seats=seats, advance=advance)
    before = set(had_bye)
    # First among those without a bye: a stable sort keeps draw order within each kind.
    byes = set(sorted(left, key=lambda player: player in before)[:byes_needed])
    seated = [player for player in left if player not in byes]
    tables = []
    for size in table_sizes(len(seated), seats=seats):
        tables.append(tuple(seated[:size]))
        seated = seated[size:]
    return RoundPlan(
        tables=tuple(tables),
        byes=tuple(player for player in left if player in byes),
        final=False,
    )


def ranking_by_draw(*, groups: Sequence[Sequence[T]], draw: Sequence[T]) -> tuple[T, ...]:
    """R14: a table's ranking with the ties a match leaves (R12: a shared place) broken by
    the draw, the player earlier in it ranking higher; ``groups`` best first."""
    position = {player: index for index, player in enumerate(draw)}
    players = [player for group in groups for player in group]
    if len(set(players)) != len(players) or not set(players) <= position.keys():
        raise ValueError("each player ranked is in the draw and ranked once")
    return tuple(player for group in groups for player in sorted(group, key=position.__getitem__))
