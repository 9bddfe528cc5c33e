"""A process's match sockets beat together (games/realtime/beats.py): one statement and, on
Redis, one round trip for a whole batch, each socket's answer what its own beat read, and a
socket released meanwhile renews nothing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.realtime import beats, liveness, presence
from games.realtime.audience import Audience
from gin_platform.models import PlayerSession
from gin_platform.request_path.cache import redis_client
from gin_platform.tenancy.principals import PlayerPrincipal
from gin_platform.tenancy.services import player_session_create
from tests.factories import SYSTEM, PlayerFactory
from tests.games.realtime.helpers import pipelines_sent

pytestmark = pytest.mark.django_db
LOCAL_MEMORY = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
MATCH_ID = 876_543_210


@dataclass(eq=False)
class Socket:
    """A match socket (an audience), or the player's own socket (none)."""

    audience: Audience | None
    principal: PlayerPrincipal | None
    inbox: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    released: bool = False

    def beat_subject(self):
        return None if self.released else (self.audience, self.principal)


def sockets_of_three_players() -> list[Socket]:
    sockets = []
    for seat in (0, 1, None):  # two seats and a watcher
        player = PlayerFactory()
        session = player_session_create(player=player, actor=SYSTEM).session
        principal = PlayerPrincipal(player=player, session=session)
        sockets.append(Socket(audience=Audience(MATCH_ID, seat), principal=principal))
    return sockets


def own_socket_of(socket: Socket) -> Socket:
    """The same player's own socket (``/ws/v1/me``): no match."""
    return Socket(audience=None, principal=socket.principal)


def forget(sockets: list[Socket]) -> None:
    keys = [presence.seq_key(MATCH_ID)]
    for socket in sockets:
        assert socket.audience is not None and socket.principal is not None
        keys.append(presence.listen_key(socket.audience))
        keys.append(presence.player_key(socket.principal.player.pk))
        if socket.audience.seat is not None:
            keys.append(presence.seat_key(MATCH_ID, socket.audience.seat))
    cache.delete_many(keys)


def beats_as_each_socket_would_read_them():
    sockets = sockets_of_three_players()
    forget(sockets)
    for socket in sockets:  # each counted as when it opened
        presence.socket_opened(player_id=socket.principal.player.pk)
        if socket.audience.seat is not None:
            presence.seat_joined(match_id=MATCH_ID, seat=socket.audience.seat)
    presence.seq_pushed(match_id=MATCH_ID, seq=41)
    PlayerSession.objects.filter(pk=sockets[1].principal.session.pk).update(
        revoked_at=timezone.now()
    )
    released = sockets_of_three_players()[0]
    held_audience = Audience(MATCH_ID + 1, 0)
    released.audience = held_audience
    cache.delete(presence.listen_key(held_audience))
    released.released = True  # released while its batch was being read
    own = own_socket_of(sockets[1])
    with CaptureQueriesContext(connection) as statements:
        answers = beats.beats_read([sockets[0], own, *sockets[1:], released])
    assert len(statements) == 1  # every session of the batch in one statement
    assert answers == [
        {"type": "socket.heartbeat", "valid": True, "pushed": 41},
        {"type": "socket.heartbeat", "valid": False, "pushed": None},  # no match; revoked
        {"type": "socket.heartbeat", "valid": False, "pushed": 41},  # its session revoked
        {"type": "socket.heartbeat", "valid": True, "pushed": 41},
        None,
    ]
    # Renewed as each socket's own beat renews: its audience listened, its counts kept.
    for socket in sockets:
        assert cache.get(presence.listen_key(socket.audience)) == 1
        assert cache.get(presence.player_key(socket.principal.player.pk)) == 1
    seats = presence.connected_seats(match_id=MATCH_ID)
    assert [seat["connected"] for seat in seats] == [True, True]
    assert cache.get(presence.listen_key(held_audience)) is None  # the released: nothing
    # The cache lost the match's seq: None, and the socket repairs from the database.
    cache.delete(presence.seq_key(MATCH_ID))
    assert [answer["pushed"] for answer in beats.beats_read(sockets)] == [None, None, None]
    # The player's own socket alone: no match read.
    answered = beats.beats_read([own])
    assert answered == [{"type": "socket.heartbeat", "valid": False, "pushed": None}]
    forget(sockets)
    return sockets


@pytest.mark.redis
def test_on_redis_a_batch_is_one_round_trip(monkeypatch):
    client = redis_client()
    assert client is not None
    sockets = sockets_of_three_players()
    round_trips = pipelines_sent(client, monkeypatch)
    beats.beats_read(sockets)
    assert len(round_trips) == 1  # a SET, the EXPIREs and one MGET for the three
    forget(sockets)
    monkeypatch.undo()
    beats_as_each_socket_would_read_them()
    # Each key renewed with the heartbeats' time to live, as ``presence.renew`` does, and
    # by the player's own socket its count.
    sockets = sockets_of_three_players()
    for socket in sockets:
        presence.socket_opened(player_id=socket.principal.player.pk)
        cache.touch(presence.player_key(socket.principal.player.pk), 2)
    beats.beats_read([sockets[0], own_socket_of(sockets[1])])
    for key in (
        presence.listen_key(sockets[0].audience),
        presence.player_key(sockets[0].principal.player.pk),
        presence.player_key(sockets[1].principal.player.pk),
    ):
        ttl = client.ttl(cache.make_and_validate_key(key))
        assert presence.listen_ttl() - 2 <= ttl <= presence.listen_ttl(), key
    assert (
        client.ttl(cache.make_and_validate_key(presence.player_key(sockets[2].principal.player.pk)))
        <= 2
    )
    forget(sockets)


@pytest.mark.redis
def test_on_redis_a_batch_renews_every_key_a_beat_of_its_own_renews():
    """The batch's commands are written out for Redis beside ``presence.renew`` (which the
    embedded default runs): both renew the same keys, the process-held counts included
    (games/realtime/liveness.py), so the two cannot drift apart unseen."""
    client = redis_client()
    assert client is not None

    def renewed(renew) -> set[str]:
        """Which of a seated socket's keys a beat gave the heartbeats' time to live again."""
        socket = sockets_of_three_players()[0]
        audience, player_id = socket.audience, socket.principal.player.pk
        presence.socket_opened(player_id=player_id)  # its counts, and its process's
        presence.seat_joined(match_id=MATCH_ID, seat=audience.seat)
        presence.listen(audience)
        keys = {
            "listened": cache.make_and_validate_key(presence.listen_key(audience)),
            "seat count": cache.make_and_validate_key(presence.seat_key(MATCH_ID, audience.seat)),
            "player count": cache.make_and_validate_key(presence.player_key(player_id)),
            "seat's processes": liveness.seat_processes_key(MATCH_ID, audience.seat),
            "player's processes": liveness.player_processes_key(player_id),
        }
        for key in keys.values():
            assert client.expire(key, 2), key  # each exists, about to expire
        renew(audience, player_id)
        found = {name for name, key in keys.items() if client.ttl(key) > 2}
        presence.seat_left(match_id=MATCH_ID, seat=audience.seat)
        presence.socket_closed(player_id=player_id)
        client.delete(*keys.values())
        return found

    on_its_own = renewed(
        lambda audience, player_id: presence.renew(audience=audience, player_id=player_id)
    )
    in_a_batch = renewed(
        lambda audience, player_id: presence.beats_renewed([(audience, player_id)])
    )
    assert (
        on_its_own
        == in_a_batch
        == {
            "listened",
            "seat count",
            "player count",
            "seat's processes",
            "player's processes",
        }
    )


@override_settings(CACHES=LOCAL_MEMORY)
def test_without_redis_the_same_answers():
    beats_as_each_socket_would_read_them()


@pytest.mark.asyncio
@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_the_loops_sockets_beat_in_one_batch_into_their_inboxes(monkeypatch):
    """Sockets that joined within the same second beat together, a second later (never
    early, at most a tick late); one that left gets nothing more."""
    read: list[int] = []

    def answered(sockets):
        read.append(len(sockets))
        return [{"type": "socket.heartbeat", "valid": True, "pushed": 1} for _ in sockets]

    monkeypatch.setattr(beats, "beats_read", answered)
    sockets = [Socket(audience=Audience(MATCH_ID, seat), principal=None) for seat in (0, 1)]
    sockets.append(own_socket_of(sockets[0]))
    joined = asyncio.get_running_loop().time()
    for socket in sockets:
        beats.join(socket)
    beats.leave(sockets[2])
    first = await asyncio.wait_for(sockets[0].inbox.get(), timeout=3)
    waited = asyncio.get_running_loop().time() - joined
    assert 1.0 <= waited <= 1.0 + beats.TICK_SECONDS / 2 + 0.4
    assert first == {"type": "socket.heartbeat", "valid": True, "pushed": 1}
    assert await asyncio.wait_for(sockets[1].inbox.get(), timeout=1) == first
    assert read[0] == 2
    assert sockets[2].inbox.empty() and not beats.beats_for(sockets[2])
    for socket in sockets[:2]:
        beats.leave(socket)
