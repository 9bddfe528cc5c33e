"""The ``tournament.*`` operator events (gin_platform/events/catalogue.py), the pushes on
the player's socket and the pushes to the tournament's watchers, written inside the
transaction that makes them true.

An operator hears of its own players only; a tournament-wide event goes to every operator
with an entry in it (a network tournament's members), naming nobody. A watcher is sent the
bracket as its operator may see it (tournaments/realtime/).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from games.realtime.publisher import players_message
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue, webhook_enqueue_many
from gin_platform.models import Operator
from gin_platform.money import money_dict
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.realtime.publisher import bracket_changed


def entry_event(*, entry: Entry, event_type: str, **data: Any) -> None:
    """An event about one entry, to its player's operator."""
    webhook_enqueue(
        operator=entry.player.operator,
        event_type=event_type,
        data=_entry_event_data(entry=entry, event_type=event_type, data=data),
    )


def entries_tell(
    *, entries: Sequence[Entry], event_type: str, data_of: Callable[[Entry], dict[str, Any]]
) -> None:
    """``entry_event`` and a message on the player's own socket, of ``event_type``, for many
    entries at once (a round's players out or placed, a table's players seated): one INSERT
    of the events and one push after the commit, however many. Load the entries with their
    player's operator."""
    told = [(entry, data_of(entry)) for entry in entries]
    webhook_enqueue_many(
        [
            (
                entry.player.operator,
                event_type,
                _entry_event_data(entry=entry, event_type=event_type, data=data),
            )
            for entry, data in told
        ]
    )
    players_message(
        [
            (entry.player_id, {"type": event_type, "tournament_id": entry.tournament_id, **data})
            for entry, data in told
        ]
    )


def _entry_event_data(*, entry: Entry, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    paid = {}
    if event_type in ("tournament.registered", "tournament.unregistered"):
        paid = {
            "entry_number": entry.number,
            "payment": entry.payment,
            "paid": money_dict(entry.paid, entry.tournament.currency),
        }
    return {**player_ref(entry.player), "tournament_id": entry.tournament_id, **paid, **data}


def tournament_event(*, tournament: Tournament, event_type: str, data: dict[str, Any]) -> None:
    """A tournament-wide event, to every operator with an entry in it."""
    operator_ids = (
        Entry.objects.filter(tournament=tournament)
        .values_list("player__operator_id", flat=True)
        .distinct()
    )
    for operator in Operator.objects.filter(pk__in=list(operator_ids)).order_by("pk"):
        webhook_enqueue(
            operator=operator,
            event_type=event_type,
            data={"tournament_id": tournament.pk, **data},
        )


def watchers_tell(
    *, tournament: Tournament, change: str, tables: Iterable[BracketTable] = ()
) -> None:
    """What the tournament's watchers see changed (``change``: entries, the start, a table
    seated, a result, places paid, the end; the tables it touched): the one place a service
    says so. Pushed after the commit, the tournament's ``bracket_version`` one more once per
    transaction (docs/realtime.md "A tournament's bracket")."""
    bracket_changed(
        tournament_id=tournament.pk, change=change, table_ids=[table.pk for table in tables]
    )
