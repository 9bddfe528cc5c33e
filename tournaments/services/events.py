"""The ``tournament.*`` operator events (gin_platform/events/catalogue.py), the pushes on
the player's socket and the pushes to the tournament's watchers, written inside the
transaction that makes them true.

An operator hears of its own players only; a tournament-wide event goes to every operator
with an entry in it (a network tournament's members), naming nobody. A watcher is sent the
bracket as its operator may see it (tournaments/realtime/).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.realtime.publisher import player_message
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.models import Operator
from gin_platform.money import money_dict
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.realtime.publisher import bracket_changed


def entry_event(*, entry: Entry, event_type: str, **data: Any) -> None:
    """An event about one entry, to its player's operator."""
    tournament = entry.tournament
    webhook_enqueue(
        operator=entry.player.operator,
        event_type=event_type,
        data={
            **player_ref(entry.player),
            "tournament_id": tournament.pk,
            **(
                {
                    "entry_number": entry.number,
                    "payment": entry.payment,
                    "paid": money_dict(entry.paid, tournament.currency),
                }
                if event_type in ("tournament.registered", "tournament.unregistered")
                else {}
            ),
            **data,
        },
    )


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


def player_push(*, entry: Entry, kind: str, **data: Any) -> None:
    """A message on the player's own socket (/ws/v1/me), after the commit: what the
    tournament says of them, nothing of anybody else."""
    player_message(
        player_id=entry.player_id,
        message={"type": kind, "tournament_id": entry.tournament_id, **data},
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
