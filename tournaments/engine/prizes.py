"""R14 prizes: the prize table in basis points, and each player's prize in minor units.

- :func:`default_prize_table`: pays about a quarter of the field, ``max(1, entries // 4)``
  places (so two to seven entries: winner takes all), at most 1,000. Place ``p`` weighs
  ``1 / p``: with ``k`` paid places its basis points are
  ``floor(10,000 * (1/p) / (1 + 1/2 + ... + 1/k))``, computed exactly, and what the floors
  leave goes one basis point each to places 1, 2, 3, ... Eight entries pay 6,667 and 3,333;
  sixteen 4,800, 2,400, 1,600 and 1,200.
- :func:`place_shares`: place ``p`` is worth ``floor(pool * bps_p / 10,000)``, and what those
  floors leave goes one minor unit each to places 1, 2, 3, ..., so the places add up to the
  pool. With fewer entries than the table has places, the table is cut to the places that
  exist and renormalised: ``floor(pool * bps_p / (their bps added up))``, the rest as
  before. Places past the table's end pay nothing.
- :func:`prize_amounts`: a group sharing places gets the sum of their shares, divided
  equally; the minor units the division leaves go one each to the earliest registrations.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from itertools import pairwise
from typing import TypeVar

from tournaments.engine.places import PlaceGroup

T = TypeVar("T", bound=Hashable)
BPS = 10_000
MAX_PAID_PLACES = 1_000


def default_prize_table(*, entries: int) -> tuple[int, ...]:
    """The default prize table for ``entries`` entries: basis points per place, best first,
    adding up to 10,000 (weights ``1 / place``; the floors' remainder to the best places)."""
    if type(entries) is not int or entries < 1:
        raise ValueError(f"a tournament has one or more entries, got {entries!r}")
    paid = min(max(1, entries // 4), MAX_PAID_PLACES)
    # Exact weights: 1/p as L/p over the common denominator L = lcm(1..paid).
    common = math.lcm(*range(1, paid + 1))
    weights = [common // place for place in range(1, paid + 1)]
    total = sum(weights)
    return _with_remainder([BPS * weight // total for weight in weights], BPS)


def _with_remainder(floors: list[int], whole: int) -> tuple[int, ...]:
    """Floored shares made to add up to ``whole``: what the floors leave (fewer units than
    there are shares) goes one unit each to the best places, 1st first. Adding to a prefix
    keeps the shares best first, never less than a worse place."""
    left = whole - sum(floors)
    return tuple(share + (1 if place < left else 0) for place, share in enumerate(floors))


def check_prize_table(table_bps: Sequence[int]) -> tuple[int, ...]:
    """A prize table: non-negative integer basis points, best place first and never less
    than a worse one, adding up to 10,000 (``ValueError`` otherwise)."""
    table = tuple(table_bps)
    if not table or any(type(bps) is not int or bps < 0 for bps in table):
        raise ValueError(f"a prize table is basis points per place, got {table!r}")
    if sum(table) != BPS or any(better < worse for better, worse in pairwise(table)):
        raise ValueError(f"a prize table adds up to 10,000 bps, best first, got {table!r}")
    return table


def place_shares(*, pool: int, table_bps: Sequence[int], entries: int) -> tuple[int, ...]:
    """What each of places ``1 .. entries`` is worth, in minor units of ``pool``; they add up
    to the pool exactly."""
    if type(pool) is not int or pool < 0:
        raise ValueError(f"a prize pool is a non-negative int of minor units, got {pool!r}")
    if type(entries) is not int or entries < 1:
        raise ValueError(f"a tournament has one or more entries, got {entries!r}")
    used = check_prize_table(table_bps)[:entries]
    # The whole table when it fits (10,000), else renormalised over the places that exist.
    total = sum(used)
    shares = _with_remainder([pool * bps // total for bps in used], pool)
    return (*shares, *([0] * (entries - len(shares))))


def prize_amounts(
    *, pool: int, table_bps: Sequence[int], entries: int, groups: Sequence[PlaceGroup[T]]
) -> dict[T, int]:
    """R14: each player's prize for the place groups given (any part of places
    ``1 .. entries``, each place in at most one group). Paying the groups as their places
    become final adds up, over the tournament, to the pool exactly."""
    shares = place_shares(pool=pool, table_bps=table_bps, entries=entries)
    places = [place for group in groups for place in range(group.first_place, group.last_place + 1)]
    if len(set(places)) != len(places) or any(place > entries for place in places):
        raise ValueError(f"each of places 1..{entries} is in one group at most")
    players = [player for group in groups for player in group.players]
    if len(set(players)) != len(players):
        raise ValueError("each player holds one place group")
    amounts: dict[T, int] = {}
    for group in groups:
        money = sum(shares[group.first_place - 1 : group.last_place])
        each, left = divmod(money, len(group.players))
        for position, player in enumerate(group.players):
            amounts[player] = each + (1 if position < left else 0)
    return amounts


def satellite_prizes(
    *, pool: int, ticket_value: int, entries: int, groups: Sequence[PlaceGroup[T]]
) -> dict[T, tuple[bool, int]]:
    """R14: a satellite's prizes are tickets to its target tournament, worth ``ticket_value``
    each: as many as the pool holds go to places 1, 2, 3, ...; what is left of the pool is
    paid in money to the next place. Players sharing places share what those places hold:
    the tickets go to the earlier registrations among them, the money to the others, equally
    (a remainder one unit each to the earlier registrations). Each player gets
    ``(a ticket, money)``; over every place, the tickets' value and the money add up to the
    pool. Nobody wins two tickets: with more tickets in the pool than ``entries``, the
    places that exist take one each and the rest is money."""
    if type(pool) is not int or pool < 0 or type(ticket_value) is not int or ticket_value < 1:
        raise ValueError("a pool and a ticket's value are whole minor units")
    if type(entries) is not int or entries < 1:
        raise ValueError(f"a tournament has one or more entries, got {entries!r}")
    tickets = min(pool // ticket_value, entries)
    money = pool - tickets * ticket_value
    if tickets == entries:  # every place has a ticket: the money goes to the last place
        tickets, money = entries - 1, pool - (entries - 1) * ticket_value
    prizes: dict[T, tuple[bool, int]] = {}
    for group in groups:
        places = range(group.first_place, group.last_place + 1)
        won = sum(1 for place in places if place <= tickets)
        cash = money if tickets + 1 in places else 0
        with_money = group.players[won:]
        each, left = divmod(cash, len(with_money)) if with_money else (0, 0)
        for index, player in enumerate(group.players):
            if index < won:
                prizes[player] = (True, 0)
            else:
                position = index - won
                prizes[player] = (False, each + (1 if position < left else 0))
    return prizes
