"""Row locks of the games app (ARCHITECTURE §8: one lock helper module per app).

Every games service takes its locks in this one order, so two services can never wait for
each other (no deadlocks):

    Table  ->  Match  ->  Hand  ->  Seat (several seats: in primary-key order)

- Seating (sit, leave before the start) serialises on the Table row: it owns the table's
  ``waiting`` match and its seats.
- Playing (actions, forfeits, turn timers) serialises on the Match row, then the Hand row;
  it never touches the Table row.
Wallet services take their own locks after ours; they never lock games rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.models import Hand, Match, Seat, Table


def lock_table(table_id: int) -> Table:
    return Table.objects.select_for_update(of=("self",)).select_related("room").get(pk=table_id)


def lock_match(match_id: int) -> Match:
    return Match.objects.select_for_update().get(pk=match_id)


def lock_current_hand(match: Match) -> Hand | None:
    """The match's hand in progress, locked (None when no hand is being played)."""
    return (
        Hand.objects.select_for_update().filter(match=match, status=Hand.Status.IN_PROGRESS).first()
    )


def lock_seats(seat_ids: Iterable[int]) -> list[Seat]:
    """Lock seats in primary-key order."""
    return list(
        Seat.objects.select_for_update(of=("self",))
        .select_related("player")
        .filter(pk__in=sorted(set(seat_ids)))
        .order_by("pk")
    )
