"""Row locks of the games app (one lock helper module per app: README "Architecture").

Every ``select_for_update`` of the games app is here. Every games service takes its locks in
this one order, so two services can never wait for each other (no deadlocks):

    Room  ->  Table  ->  Match  ->  Hand  ->  Seat (several rows of a kind: primary-key order)

- Renaming or closing a room locks the Room row alone.
- Seating (sit, leave before the start) serialises on the Table row: it owns the table's
  ``waiting`` match and its seats.
- Playing (actions, forfeits, turn timers) serialises on the Match row, then the Hand row;
  it never touches the Table row.
- A tournament's match (R14) waiting for its players: taking a reserved seat and the
  no-show sweep lock its Table row, then its Match row (``lock_tournament_match``).
- The waiting list locks one WaitingListEntry row alone (joining, leaving, expiring); it
  seats players through ``seat_take``, in a transaction of its own.
Wallet services take their own locks after ours; they never lock games rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from games.models import Hand, Match, Room, Seat, Table, WaitingListEntry
from gin_platform.models import Player
from gin_platform.request_path.precompiled import PrecompiledQuery, fetch_then
from gin_platform.tenancy.selectors import network_operator_id


def lock_room(room_id: int) -> Room:
    return Room.objects.select_for_update().get(pk=room_id)


def lock_table(table_id: int) -> Table:
    return Table.objects.select_for_update(of=("self",)).select_related("room").get(pk=table_id)


def lock_tournament_match(match_id: int) -> Match:
    """A tournament's match (R14) locked as seating locks a table's game: its Table row,
    then its Match row (the order above). ``Match.DoesNotExist`` when there is none."""
    table_id = Match.objects.values_list("table_id", flat=True).get(pk=match_id)
    Table.objects.select_for_update().filter(pk=table_id).values_list("pk").get()
    return lock_match(match_id)


def lock_match(match_id: int) -> Match:
    # Compiled once (settlement, forfeits and timers run it on every game; get()'s extra
    # bookkeeping is measurable there too: docs/benchmarks.md).
    matches = _MATCH_FOR_UPDATE.fetch(match_id)
    if not matches:
        raise Match.DoesNotExist(f"no match {match_id}")
    return matches[0]


def lock_match_with_seats(match_id: int) -> tuple[Match, list[Seat]]:
    """The match row locked, with its seats and their players, in ONE statement (settlement
    pays the players it reads under the lock). Only the Match row is locked (FOR UPDATE
    OF), so the order above holds. A match without seats is locked on its own."""
    seats = _SEATS_FOR_UPDATE.fetch(match_id)
    if not seats:
        return lock_match(match_id), []
    match = seats[0].match
    for seat in seats:
        seat.match = match  # one instance, as filter(match=match) would give
    return match, seats


def lock_matches_with_seats(match_ids: Iterable[int]) -> list[tuple[Match, list[Seat]]]:
    """``lock_match_with_seats`` for several matches, in ONE statement: the Match rows
    locked in primary-key order (a batch of settlements), each with its seats and their
    players, in that order. A match without seats is left out (and not locked)."""
    seats = (
        Seat.objects.select_for_update(of=("match",))
        .select_related("match", "player")
        .filter(match_id__in=sorted(set(match_ids)))
        .order_by("match_id", "pk")
    )
    locked: dict[int, tuple[Match, list[Seat]]] = {}
    for seat in seats:
        match, seated = locked.setdefault(seat.match_id, (seat.match, []))
        seat.match = match  # one instance per match, as filter(match=match) would give
        seated.append(seat)
    return list(locked.values())


def lock_match_seats_and_hands(*, match_id: int, player: Player) -> tuple[list[Seat], list[Hand]]:
    """The action path's locks in ONE statement: the seats of a match ``player`` holds a seat
    in, in primary-key order, each with its player, and the match row locked (FOR UPDATE OF
    the match alone); then, only when the player holds a seat there, the match's two
    newest hands, newest first, locked after it (``lock_newest_hands``; the order above).
    Both empty, and nothing locked, when the player has no seat there (or the match is
    another operator's: neither the player's operator's nor the network's). The hands'
    ``match`` is left for the caller to set."""
    operators = [player.operator_id]
    network_id = network_operator_id()  # cached: no statement on the action path
    if network_id is not None:
        operators.append(network_id)
    seats, hands = fetch_then(
        _SEATS_OF_MATCH_FOR_UPDATE,
        (match_id, player.pk, operators),
        _NEWEST_HANDS_FOR_UPDATE,
        (match_id,),
    )
    seats.sort(key=lambda seat: seat.pk)
    hands.sort(key=lambda hand: hand.number, reverse=True)
    return seats, hands


# The action path's statements, compiled once per process thread
# (gin_platform/request_path/precompiled.py).
_MATCH_FOR_UPDATE = PrecompiledQuery(
    lambda match_id: Match.objects.select_for_update().filter(pk=match_id)[:1]
)
_SEATS_OF_MATCH_FOR_UPDATE = PrecompiledQuery(
    lambda match_id, player_id, operators: (
        Seat.objects.select_for_update(of=("match",))
        .select_related("match", "player")
        .filter(
            Exists(Seat.objects.filter(match_id=OuterRef("match_id"), player_id=player_id)),
            match_id=match_id,
            match__operator_id__in=operators,
        )
        .order_by("pk")
    )
)
_SEATS_FOR_UPDATE = PrecompiledQuery(
    lambda match_id: (
        Seat.objects.select_for_update(of=("match",))
        .select_related("match", "player")
        .filter(match_id=match_id)
        .order_by("pk")
    )
)
_NEWEST_HANDS_FOR_UPDATE = PrecompiledQuery(
    lambda match_id: (
        Hand.objects.select_for_update().filter(match_id=match_id).order_by("-number")[:2]
    )
)


def lock_current_hand(match: Match) -> Hand | None:
    """The match's hand in progress, locked (None when no hand is being played). At most one
    per match (constraint ``hand_one_in_progress_per_match``), so no ORDER BY is needed."""
    hands = Hand.objects.select_for_update().filter(match=match, status=Hand.Status.IN_PROGRESS)
    return next(iter(hands.order_by()[:1]), None)


def lock_newest_hands(match: Match) -> list[Hand]:
    """The match's two newest hands, newest first, both locked. In a running match the newest
    is the hand in progress; the one before has ended and never changes again, and is read
    in the same statement only so that a move's answer can show its showdown (the action
    path reads nothing twice). Taken under the match's lock, in the order above."""
    hands = _NEWEST_HANDS_FOR_UPDATE.fetch(match.pk)
    for hand in hands:
        hand.match = match  # as filter(match=match) would have set it: no query to reach it
    return hands


def lock_seats(seat_ids: Iterable[int]) -> list[Seat]:
    """Lock seats in primary-key order."""
    return list(
        Seat.objects.select_for_update(of=("self",))
        .select_related("player")
        .filter(pk__in=sorted(set(seat_ids)))
        .order_by("pk")
    )


def lock_waiting_entry(*, entry_id: int, status: str | None = None) -> WaitingListEntry | None:
    """A waiting-list entry, locked (None when it is gone or, with ``status``, no longer in
    that status). Alone: no other games row is locked with it."""
    entries = WaitingListEntry.objects.select_for_update().filter(pk=entry_id)
    if status is not None:
        entries = entries.filter(status=status)
    return entries.first()


def lock_waiting_entry_of(*, player: Player, room: Room, status: str) -> WaitingListEntry | None:
    """The player's entry in ``status`` for the room, locked (None when there is none)."""
    return (
        WaitingListEntry.objects.select_for_update()
        .filter(player=player, room=room, status=status)
        .first()
    )
