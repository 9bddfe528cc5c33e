"""When each player last sent a request: R13's presence for clients without a socket.

Every authenticated player request marks ``seen:<player id>`` in Redis for
``PRESENCE_TIMEOUT_SECONDS``: in the gate's own round trip when the session is remembered
(gin_platform/request_path/gate.py), else with one cache call once the session is accepted.
games reads it, with the seat's open sockets, to tell a disconnected seat (R13).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache

from gin_platform.request_path.cache import CACHE_ERRORS, warn_cache_unreachable


def seen_key(player_id: object) -> str:
    return f"seen:{player_id}"


def seen_seconds() -> int:
    return int(settings.PRESENCE_TIMEOUT_SECONDS)


def player_seen(player_id: object) -> None:
    """Mark a request of the player now (fail open: presence only ever protects them)."""
    key = seen_key(player_id)
    try:
        cache.set(key, 1, seen_seconds())
    except CACHE_ERRORS:
        warn_cache_unreachable(key)


def players_seen(player_ids: Iterable[object]) -> set[str]:
    """The players (as ``str`` of their ids) who sent a request within the presence timeout."""
    ids = [str(player_id) for player_id in player_ids]
    found = cache.get_many([seen_key(player_id) for player_id in ids])
    return {player_id for player_id in ids if seen_key(player_id) in found}
