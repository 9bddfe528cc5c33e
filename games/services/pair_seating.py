"""Two players seated at one table together, all or nothing (R15's quick seat: the
matchmaking app decides who meets whom, games seats them; docs/matchmaking.md).

- ``pair_seat``: a table of the room with no game, locked, and both seats taken there
  through ``seating.seat_take_locked`` (every check and the buy-in of a seat, exactly as
  ``seat_take``: funds, limits, the play session, a break, a suspension, the network's
  rules, linked players), the second seat starting the match. One durable transaction,
  which the caller's ``claim`` opens (it locks and checks its own rows first: may these two
  still be seated?) and ``record`` closes (its rows written with the seats). A refused seat
  refuses the pair: nothing is seated or charged, and ``PairSeatRefused`` names the player
  and the problem.
- A seamless player's buy-in is debited in the operator's wallet first, outside the
  transaction, as ``seat_take`` does, and rolled back when the pair is not seated.

Locks: the caller's rows (in ``claim``), then the Table row and the rest in games' order
(``games.locks``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction

from games.locks import lock_table
from games.models import Match, Room, Seat, Table
from games.realtime import publisher
from games.selectors import table_open_match
from games.services.seating import seamless_buy_in, seat_take_locked
from gin_platform.http.problems import Problem
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from wallet import services as wallet


@dataclass(frozen=True)
class PairSeat:
    """One of the two players, with what they sit down with (Money Play: the cashier amount
    and the stake per point, the same for both)."""

    player: Player
    cashier_amount: int | None = None
    stake_per_point: int | None = None


class PairSeatRefused(Exception):
    """A seat of the pair was refused (``problem``, the seat's own): nothing was seated."""

    def __init__(self, *, player_id: object, problem: Problem) -> None:
        super().__init__(f"the seat of player {player_id} was refused: {problem.type_uri()}")
        self.player_id = player_id
        self.problem = problem


def pair_seat(
    *,
    room: Room,
    pair: Sequence[PairSeat],
    actor: Actor,
    claim: Callable[[], bool],
    record: Callable[[list[Seat]], None],
) -> list[Seat] | None:
    """Seat the two players of ``pair`` together at a table of ``room`` (heads-up), in the
    order given. ``claim()`` runs first inside the transaction: False leaves everything as
    it was (None is returned). ``record(seats)`` runs once both seats are taken, inside the
    same transaction. Raises ``PairSeatRefused`` when a seat is refused."""
    if len(pair) != 2 or room.seats != 2:
        raise ValueError("a pair is two players at a heads-up room's table")
    debits: list = []
    try:
        for asking in pair:
            debits.append(_seamless_debit(asking, room=room, actor=actor))
        seats = _pair_seat(
            room=room, pair=pair, debits=debits, actor=actor, claim=claim, record=record
        )
    except BaseException:
        _rollback(debits, actor)
        raise
    if seats is None:
        _rollback(debits, actor)
    return seats


def _seamless_debit(asking: PairSeat, *, room: Room, actor: Actor):
    """The operator's wallet debit of a seamless player's buy-in (None in transfer mode)."""
    if not wallet.seamless_mode(player=asking.player, currency=room.currency):
        return None
    try:
        return seamless_buy_in(
            player=asking.player,
            table=_table_without_game(room),
            cashier_amount=asking.cashier_amount,
            stake_per_point=asking.stake_per_point,
            actor=actor,
        )
    except Problem as problem:
        raise PairSeatRefused(player_id=asking.player.pk, problem=problem) from problem


def _rollback(debits: list, actor: Actor) -> None:
    for debit in debits:
        if debit is not None:
            wallet.seamless_rollback(debit=debit, actor=actor)


def _pair_seat(
    *,
    room: Room,
    pair: Sequence[PairSeat],
    debits: list,
    actor: Actor,
    claim: Callable[[], bool],
    record: Callable[[list[Seat]], None],
) -> list[Seat] | None:
    with transaction.atomic(durable=True):
        if not claim():
            return None
        table = _locked_table_without_game(room)
        seats = []
        for asking, debit in zip(pair, debits, strict=True):
            try:
                result = seat_take_locked(
                    player=asking.player,
                    table=table,
                    cashier_amount=asking.cashier_amount,
                    stake_per_point=asking.stake_per_point,
                    actor=actor,
                    seamless_debit=debit,
                )
            except Problem as problem:
                raise PairSeatRefused(player_id=asking.player.pk, problem=problem) from problem
            seats.append(result.seat)
        for seat in seats:
            seat.refresh_from_db()
        publisher.match_changed(match_id=seats[0].match_id)
        record(seats)
    return seats


def _without_game(room: Room):
    open_matches = Match.objects.filter(status__in=(Match.Status.WAITING, Match.Status.RUNNING))
    return (
        Table.objects.filter(room=room, status=Table.Status.OPEN)
        .exclude(pk__in=open_matches.values("table_id"))
        .order_by("pk")
    )


def _table_without_game(room: Room) -> Table:
    """A table a seamless debit can be asked for (the seat itself may land at another one,
    should somebody sit there first); a new one when every table has a game."""
    return _without_game(room).first() or Table.objects.create(room=room)


def _locked_table_without_game(room: Room) -> Table:
    """A table of the room with no game, locked: the first one still free once locked (a
    player may have sat down there meanwhile), else a new one."""
    for table_id in list(_without_game(room).values_list("pk", flat=True)[:5]):
        table = lock_table(table_id)
        if table.status == Table.Status.OPEN and table_open_match(table) is None:
            return table
    return lock_table(Table.objects.create(room=room).pk)
