"""A tournament's room and matches for the games tests (R14), made with the services the
tournaments app calls: ``tournament_room_open``, ``tournament_match_open``,
``tournament_seat_claim``, ``tournament_no_shows_sweep``."""

from __future__ import annotations

import itertools
from datetime import timedelta

from games import services
from games.models import Match, Room
from tests.factories import SYSTEM, PlayerFactory

NO_SHOW_SECONDS = 120  # R14's default
# R13 off: a turn that runs out forfeits at once (R10), as the time-out tests expect.
TIMEOUTS_FORFEIT = {"time_bank_seconds": 0, "reconnect_grace_seconds": 0, "auto_play_turns": 0}
_references = itertools.count(1)


def room_open(operator, *, variant: str = "match", seats: int = 2, **options) -> Room:
    return services.tournament_room_open(
        operator=operator,
        name="Sunday Cup",
        variant=variant,
        rules=options.pop("rules", None),
        seats=seats,
        currency="EUR",
        actor=SYSTEM,
        **options,
    )


def players_of(operator, count: int) -> list:
    return [PlayerFactory(operator=operator) for _ in range(count)]


def match_open(
    room: Room, players, *, variant: str = "match", target: int | None = 100, reference=None
) -> Match:
    return services.tournament_match_open(
        room=room,
        players=players,
        variant=variant,
        target=None if variant == "ftk" else target,
        reference=reference or f"cup:round-1:table-{next(_references)}",
        no_show_seconds=NO_SHOW_SECONDS,
        actor=SYSTEM,
    )


def claim(player, match: Match):
    return services.tournament_seat_claim(player=player, match=match, actor=SYSTEM)


def past_the_deadline(match: Match) -> int:
    """The no-show sweep, run just after ``match``'s deadline."""
    match.refresh_from_db()
    return services.tournament_no_shows_sweep(now=match.no_show_deadline + timedelta(seconds=1))


def running(players, room: Room, **fields) -> Match:
    """A tournament's match every player sat down at: running, its first hand dealt."""
    match = match_open(room, players, **fields)
    for player in players:
        claim(player, match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match
