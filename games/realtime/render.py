"""What a socket shows its viewer: built by the presenters of the REST answers
(``games.api.presenters``), so a socket never carries more than ``GET .../view``,
``GET .../watch`` or the events feed would show the same viewer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.api import presenters
from games.api.serializers import EventOutput
from games.models import Hand, HandEvent, Match, WaitingListEntry
from games.realtime.audience import Audience
from games.selectors import match_seats
from gin_platform.api.output import represent


def audience_view(
    *, match: Match, audience: Audience, latest_hands: Sequence[Hand] = ()
) -> dict[str, Any] | None:
    """The seat's game view (None when nobody holds that seat), or the watch view.
    ``latest_hands``: the match's newest hands when the caller has read them (a push reads
    them once for all its audiences)."""
    if audience.seat is None:
        return presenters.watch_view(match=match, latest_hands=latest_hands)
    seat = next((s for s in match_seats(match) if s.position == audience.seat), None)
    if seat is None:
        return None
    return presenters.game_view(
        match=match, seat=seat.position, player=seat.player, latest_hands=latest_hands
    )


def audience_events(rows: Iterable[HandEvent], *, audience: Audience) -> list[dict[str, Any]]:
    """Feed events as the audience may see them, formatted as the events feed formats them."""
    return [
        # One serializer for every push: building EventOutput's two dozen fields per
        # audience cost more than formatting the events (gin_platform/api/output.py).
        represent(
            EventOutput,
            presenters.event_for_viewer(row, hand_number=row.hand.number, viewer=audience.seat),
        )
        for row in rows
    ]


def waiting_list_message(*, entry_id: int) -> dict[str, Any] | None:
    """The player socket's ``waiting_list`` message: the entry as its player sees it."""
    entry = (
        WaitingListEntry.objects.select_related("room", "seat", "player")
        .filter(pk=entry_id)
        .first()
    )
    if entry is None:
        return None
    return {
        "type": "waiting_list",
        "entry": presenters.waiting_list_entry(entry, player=entry.player),
    }
