"""The knockout's bracket (R14): its shape from the number of entries, the first round's
tables from the draw, which tables feed which, and the places each round decides.

The bracket is a tree fixed at the start. Every table sends ``advance`` players on, and
``seats // advance`` tables feed each table of the next round, so a table of round 2 or later
can be seated the moment the tables feeding it have finished, whatever the rest of the round
is doing. The first round has as many tables as a full bracket of that many rounds would;
the entries are dealt to them in the draw's order, the smaller tables first, so the
first places of the draw take the byes (a table with no more players than it sends on is not
played: they all go on), and nobody has a second bye: every later table is full unless
players were absent (R14 "Absence"). A tournament seeded by rating deals round 1 from its
seeds instead (``bracket_opening``, tournaments/engine/seeding.py): the same tables and
sizes, the byes to the best seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tournaments.engine.draw import draw_order
from tournaments.engine.seeding import seeded_first_round, seeding_order

T = TypeVar("T")


@dataclass(frozen=True)
class BracketShape:
    entries: int
    seats: int  # per table: 2 heads-up, 3 or 4 (R12)
    advance: int  # players each table sends on
    tables: tuple[int, ...]  # tables per round, round 1 first; the last round is the final
    first_round_sizes: tuple[int, ...]  # players at each table of round 1, in table order

    @property
    def rounds(self) -> int:
        return len(self.tables)

    @property
    def branching(self) -> int:
        """How many tables of one round feed each table of the next."""
        return self.seats // self.advance

    def is_final(self, round_number: int) -> bool:
        return round_number == self.rounds

    def feeders(self, *, round_number: int, number: int) -> range:
        """The numbers (from 1) of the tables of ``round_number - 1`` feeding a table."""
        if not 2 <= round_number <= self.rounds or not 1 <= number <= self.tables[round_number - 1]:
            raise ValueError(f"no table {number} in round {round_number}")
        first = (number - 1) * self.branching + 1
        return range(first, first + self.branching)

    def fed(self, *, round_number: int, number: int) -> int | None:
        """The number of the table of the next round this table feeds (None: the final)."""
        if self.is_final(round_number):
            return None
        return (number - 1) // self.branching + 1


def ranking_by_draw(*, groups: Sequence[Sequence[T]], draw: Sequence[T]) -> tuple[T, ...]:
    """R14: a table's ranking with the ties a match leaves (R12: a shared place) broken by
    the draw, the player earlier in it ranking higher; ``groups`` best first."""
    position = {player: index for index, player in enumerate(draw)}
    players = [player for group in groups for player in group]
    if len(set(players)) != len(players) or not set(players) <= position.keys():
        raise ValueError("each player ranked is in the draw and ranked once")
    return tuple(player for group in groups for player in sorted(group, key=position.__getitem__))


def check_format(*, seats: int, advance: int) -> None:
    """R14's formats: 2 to 4 seats, each table sending on a whole share of the next table."""
    if type(seats) is not int or not 2 <= seats <= 4:
        raise ValueError("a tournament table has 2 to 4 seats")
    if type(advance) is not int or not 1 <= advance < seats or seats % advance:
        raise ValueError("advance is at least 1, below the seats, and divides them")


def bracket_shape(*, entries: int, seats: int, advance: int = 1) -> BracketShape:
    """The bracket for ``entries`` players: the fewest rounds whose full bracket holds them."""
    check_format(seats=seats, advance=advance)
    if type(entries) is not int or entries < 2:
        raise ValueError("a tournament needs at least 2 entries")
    branching = seats // advance
    rounds, capacity = 1, seats
    while capacity < entries:
        rounds += 1
        capacity *= branching
    tables = tuple(branching ** (rounds - round_number) for round_number in range(1, rounds + 1))
    size, larger = divmod(entries, tables[0])
    sizes = (size,) * (tables[0] - larger) + (size + 1,) * larger
    return BracketShape(
        entries=entries, seats=seats, advance=advance, tables=tables, first_round_sizes=sizes
    )


def first_round(shape: BracketShape, players: Sequence[T]) -> tuple[tuple[T, ...], ...]:
    """Round 1's tables: the players, in the draw's order, dealt to the tables in turn."""
    if len(players) != shape.entries:
        raise ValueError("the first round seats every entry once")
    tables, start = [], 0
    for size in shape.first_round_sizes:
        tables.append(tuple(players[start : start + size]))
        start += size
    return tuple(tables)


H = TypeVar("H", bound=Hashable)


def bracket_opening(
    shape: BracketShape,
    *,
    seed: str,
    entries: Sequence[H],
    ratings: Mapping[H, float] | None = None,
) -> tuple[tuple[H, ...], tuple[tuple[H, ...], ...]]:
    """The order that breaks a tournament's ties (R14: the draw; seeded, the seeds) and
    round 1's tables: without ``ratings``, the draw dealt in its order; with them, the seeding
    by rating (tournaments/engine/seeding.py). ``entries`` in order of registration."""
    if ratings is None:
        drawn = draw_order(seed=seed, entries=entries)
        return drawn, first_round(shape, drawn)
    seeds = seeding_order(seed=seed, entries=entries, ratings=ratings)
    return seeds, seeded_first_round(shape, seeds)


def table_from_feeders(advancing: Sequence[Sequence[T]]) -> tuple[T, ...]:
    """A later round's table: the players its feeders send, feeder by feeder, best first."""
    return tuple(player for sent in advancing for player in sent)


def is_played(shape: BracketShape, *, round_number: int, players: int) -> bool:
    """Whether a table with ``players`` is played; if not, every one of them goes on (a bye),
    and a final of one player is won without playing."""
    if shape.is_final(round_number):
        return players >= 2
    return players > shape.advance


def going_on(shape: BracketShape, *, round_number: int, ranking: Sequence[T]) -> tuple[T, ...]:
    """Who a played table sends on: the best ``advance`` of the players who played, by the
    match's ranking (absent players are not in it, R14); the final's winner alone."""
    return tuple(ranking[: 1 if shape.is_final(round_number) else shape.advance])


@dataclass(frozen=True)
class ReplayedTable(Generic[T]):
    round: int
    number: int
    players: tuple[T, ...]  # in seat order
    ranking: tuple[T, ...]  # a played table's result, best first (absent players left out)
    going_on: tuple[T, ...]
    played: bool


def bracket_replay(
    *,
    seed: str,
    entries: Sequence[H],
    seats: int,
    advance: int,
    ranking: Callable[[int, int, tuple[H, ...]], Sequence[H]],
    ratings: Mapping[H, float] | None = None,
) -> tuple[ReplayedTable[H], ...]:
    """The whole bracket again from the revealed seed (docs/fairness.md "The tournament
    draw"): ``entries`` in order of registration; ``ranking(round, number, players)`` gives a
    played table's published result, the players who played best first (absent ones left
    out); ``ratings``, a tournament seeded by rating's published seed ratings. Every table,
    round by round; an auditor compares it with the published bracket."""
    shape = bracket_shape(entries=len(entries), seats=seats, advance=advance)
    seated: tuple[tuple[H, ...], ...]
    _, seated = bracket_opening(shape, seed=seed, entries=entries, ratings=ratings)
    replayed: list[ReplayedTable[H]] = []
    for round_number in range(1, shape.rounds + 1):
        sent = []
        for number, players in enumerate(seated, 1):
            played = is_played(shape, round_number=round_number, players=len(players))
            ranked = tuple(ranking(round_number, number, players)) if played else ()
            on = going_on(shape, round_number=round_number, ranking=ranked) if played else players
            replayed.append(ReplayedTable(round_number, number, players, ranked, on, played))
            sent.append(on)
        if not shape.is_final(round_number):
            seated = tuple(
                table_from_feeders(sent[number - 1 : number - 1 + shape.branching])
                for number in range(1, len(sent) + 1, shape.branching)
            )
    return tuple(replayed)
