"""R14's seeding by rating (the tournament option ``seeding`` = ``rating``, R15): the bracket's
first round from the players' ratings instead of the draw alone, still replayable from
public data (docs/fairness.md "Seeded by rating").

The seeds are the entries by rating, best first; equal ratings keep the draw's order (R14's
shuffle from the committed seed), so nothing is left to the server. Round 1's tables are the
standard seeding generalised to any branching: the best ``branching`` seeds go to different
branches of the final, the best ``branching ** 2`` to different branches of the round before,
and so on, so the best players meet as late as possible (heads-up, eight tables: seeds 1, 8,
4, 5, 2, 7, 3, 6 head them). The seeds are dealt to the tables snake-wise, one row of tables
at a time (heads-up: 1 plays 16, 8 plays 9, ...). The tables are as equal in size as the
draw makes them, the smaller ones the best seeds'; when the smaller ones are byes (no more
players than a table sends on), they are dealt first, so the byes go to the best seeds, and
the other tables then take the rest.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from tournaments.engine.draw import draw_order

if TYPE_CHECKING:  # the bracket's module deals round 1 with these functions
    from tournaments.engine.bracket import BracketShape

T = TypeVar("T", bound=Hashable)


def seeding_order(*, seed: str, entries: Sequence[T], ratings: Mapping[T, float]) -> tuple[T, ...]:
    """The seeds, best first: ``entries`` (in order of registration) by rating, highest
    first, equal ratings in the order the draw from ``seed`` gives them.

    >>> seeding_order(seed="0" * 64, entries="abc", ratings={"a": 1500, "b": 1600, "c": 1500})
    ('b', 'c', 'a')
    """
    if set(ratings) != set(entries):
        raise ValueError("every entry has one rating")
    if not all(
        isinstance(value, int | float) and math.isfinite(value) for value in ratings.values()
    ):
        raise ValueError("a rating is a finite number")
    drawn = draw_order(seed=seed, entries=entries)
    return tuple(sorted(drawn, key=ratings.__getitem__, reverse=True))  # stable: the draw's ties


def seed_slots(*, tables: int, branching: int) -> tuple[int, ...]:
    """The best seed at each table of round 1, in table order, for ``tables`` tables of which
    each ``branching`` consecutive ones feed one table of the next round: each step splits
    every slot in ``branching``, the next row of seeds dealt to them snake-wise.

    >>> seed_slots(tables=8, branching=2)
    (1, 8, 4, 5, 2, 7, 3, 6)
    >>> seed_slots(tables=4, branching=4)
    (1, 2, 3, 4)
    """
    if branching < 2 or tables < 1:
        raise ValueError("at least one table, and two tables feeding each of the next round")
    slots = [1]
    while len(slots) < tables:
        slots = _split(slots, branching)
    if len(slots) != tables:
        raise ValueError(f"{tables} tables are not a power of {branching}")
    return tuple(slots)


def _split(slots: list[int], parts: int) -> list[int]:
    """Each slot of seed ``x`` becomes ``parts`` slots: ``x``, then one seed from each
    following row of ``len(slots)`` seeds, the rows dealt snake-wise (back to front, then
    front to back, ...)."""
    count = len(slots)
    return [
        count * row + (seed if row % 2 == 0 else count + 1 - seed)
        for seed in slots
        for row in range(parts)
    ]


def seeded_first_round(shape: BracketShape, seeds: Sequence[T]) -> tuple[tuple[T, ...], ...]:
    """Round 1's tables from ``seeds`` (best first), each table's players by seed: the tables
    of a bye dealt first, to the best seeds, then the others, each group snake-wise."""
    if len(seeds) != shape.entries:
        raise ValueError("the first round seats every entry once")
    count = shape.tables[0]
    slots = seed_slots(tables=count, branching=shape.branching)
    by_best = sorted(range(count), key=slots.__getitem__)  # the tables, by their best seed
    size, larger = divmod(shape.entries, count)
    room = {table: size + (rank >= count - larger) for rank, table in enumerate(by_best)}
    byes = [t for t in by_best if not shape.is_final(1) and room[t] <= shape.advance]
    seated: list[list[T]] = [[] for _ in range(count)]
    left = list(reversed(seeds))  # the next seed is the last
    for group in (byes, [table for table in by_best if table not in byes]):
        row = 0
        while any(len(seated[table]) < room[table] for table in group):
            for table in group if row % 2 == 0 else reversed(group):
                if len(seated[table]) < room[table]:
                    seated[table].append(left.pop())
            row += 1
    return tuple(tuple(players) for players in seated)
