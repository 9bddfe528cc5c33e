"""What a socket shows its viewer: built by the presenters of the REST answers
(``games.api.presenters``), so a socket never carries more than ``GET .../view``,
``GET .../watch`` or the events feed would show the same viewer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.api import presenters
from games.api.serializers import EventOutput
from games.models import HandEvent, Match
from games.realtime.audience import Audience
from games.selectors import match_seats


def audience_view(*, match: Match, audience: Audience) -> dict[str, Any] | None:
    """The seat's game view (None when nobody holds that seat), or the watch view."""
    if audience.seat is None:
        return presenters.watch_view(match=match)
    seat = next((s for s in match_seats(match) if s.position == audience.seat), None)
    if seat is None:
        return None
    return presenters.game_view(match=match, seat=seat.position, player=seat.player)


def audience_events(rows: Iterable[HandEvent], *, audience: Audience) -> list[dict[str, Any]]:
    """Feed events as the audience may see them, formatted as the events feed formats them."""
    events = [
        presenters.event_for_viewer(row, hand_number=row.hand.number, viewer=audience.seat)
        for row in rows
    ]
    return EventOutput(events, many=True).data
