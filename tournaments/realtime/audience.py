"""Who a tournament's push is for: the watchers of one operator (that operator's sockets and
its players'), each audience one channel-layer group, rendered once for all its sockets.

An audience is *listened to* while a socket of it has said so within three heartbeats (a
key in the cache with that lifetime, renewed at every beat): the publisher renders only for
those, so a tournament nobody watches costs a push one cache read.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.cache import cache

from games.realtime import presence


def watch_group(*, tournament_id: int, operator_id: object) -> str:
    return f"tournament.{tournament_id}.operator.{operator_id}"


def _listen_key(group: str) -> str:
    return f"rt:listen:{group}"


def listen(group: str) -> None:
    """A socket of ``group`` is here (at its hello and every heartbeat)."""
    cache.set(_listen_key(group), 1, presence.listen_ttl())


def listened(groups: Sequence[str]) -> list[str]:
    """The groups of ``groups`` somebody listens to, in their order."""
    found = cache.get_many([_listen_key(group) for group in groups])
    return [group for group in groups if _listen_key(group) in found]
