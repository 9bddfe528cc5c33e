"""R15's quick seat, the pairing decision: pure Python, standard library only (an import
contract), so it is tested without a database (docs/matchmaking.md "Bands").

A waiting player's **band** is the ratings around their own that they are ready to meet:
their rating +- ``band_width(waited)``, 100 at first, 50 wider at each full 10 s of waiting,
any rating at all from 60 s. Two waiting players **may meet** when the band of one holds
the other's rating (the two bands then overlap, at that rating), unless they are the same
player or linked (integrity: never at one table). ``pairs`` chooses who meets whom among a
queue's waiting players: the closest ratings first, a tie to the pair that has waited
longer; each player in one pair at most.

Why "one band holds the other's rating" and not any overlap of the two bands: two new
players' bands of +-100 overlap up to 200 points apart, and a steady queue then seats
about half its players more than 100 apart (docs/matchmaking.md "Why the band holds the
rating"); a band that must reach the other's rating keeps most pairs within 100 and still
seats a player who has waited 60 s with anybody at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from datetime import datetime

BAND_START = 100.0  # +- rating points at the start
BAND_STEP = 50.0  # wider by this at each full STEP_SECONDS of waiting
STEP_SECONDS = 10
ANY_OPPONENT_AFTER_SECONDS = 60  # the band holds every rating from then on


def band_width(waited_seconds: float) -> float:
    """Half the band (points each side of the player's rating) after ``waited_seconds``;
    ``math.inf`` from ``ANY_OPPONENT_AFTER_SECONDS``.

    >>> [band_width(s) for s in (0, 9.9, 10, 25, 59.9)]
    [100.0, 100.0, 150.0, 200.0, 350.0]
    >>> band_width(60)
    inf
    """
    if waited_seconds >= ANY_OPPONENT_AFTER_SECONDS:
        return math.inf
    steps = int(max(waited_seconds, 0.0) // STEP_SECONDS)
    return BAND_START + BAND_STEP * steps


@dataclass(frozen=True)
class Waiting:
    """A waiting ticket as the pairing sees it."""

    ticket: int
    player: Hashable
    rating: float
    joined_at: datetime

    def waited(self, now: datetime) -> float:
        return (now - self.joined_at).total_seconds()

    def band(self, now: datetime) -> tuple[float, float]:
        """The lowest and highest rating the band holds ``now``."""
        width = band_width(self.waited(now))
        return self.rating - width, self.rating + width


def may_meet(first: Waiting, second: Waiting, *, now: datetime) -> bool:
    """Whether the band of one of them holds the other's rating ``now`` (two tickets of one
    player never meet)."""
    if first.player == second.player:
        return False
    gap = abs(first.rating - second.rating)
    return gap <= max(band_width(first.waited(now)), band_width(second.waited(now)))


Linked = Callable[[Hashable, Hashable], bool]


def pairs(
    waiting: Iterable[Waiting], *, now: datetime, linked: Linked
) -> list[tuple[Waiting, Waiting]]:
    """Who meets whom ``now``: every two waiting players who may meet and are not
    ``linked``, the pair with the closest ratings first (then the pair that has waited
    longer: the earlier of its two joins, then the other's; then the tickets' order), each
    ticket in one pair at most. Each pair is given longer-waiting player first. What is left
    has nobody it may meet: no two of the players left over may meet."""
    tickets = sorted(waiting, key=lambda w: (w.joined_at, w.ticket))
    candidates = []
    for index, first in enumerate(tickets):
        for second in tickets[index + 1 :]:  # ``first`` joined no later than ``second``
            if may_meet(first, second, now=now) and not linked(first.player, second.player):
                gap = abs(first.rating - second.rating)
                order = (gap, first.joined_at, second.joined_at, first.ticket, second.ticket)
                candidates.append((order, first, second))
    candidates.sort(key=lambda candidate: candidate[0])
    taken: set[int] = set()
    chosen = []
    for _, first, second in candidates:
        if first.ticket in taken or second.ticket in taken:
            continue
        taken |= {first.ticket, second.ticket}
        chosen.append((first, second))
    return chosen
