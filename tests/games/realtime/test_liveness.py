"""R13's presence and the processes that hold the sockets (games/realtime/liveness.py): a
socket of a process killed without closing it (SIGKILL) keeps its seat's count in Redis for
up to three socket heartbeats, but no longer makes the seat connected. Found on real
processes by tests/benchmarks/bench_interrupted.py --scenario kill-web: a player whose socket
died with its web worker ran the time bank instead of getting the reconnect grace."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache

from games.realtime import liveness, presence
from games.services.turn_clock import seat_disconnected
from gin_platform.request_path.cache import redis_client

MATCH_ID = 987_654_323
LOCAL_MEMORY = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def seats():
    yield
    cache.delete_many([presence.seat_key(MATCH_ID, seat) for seat in (0, 1)])
    client = redis_client()
    if client is not None:
        client.delete(*(liveness.seat_processes_key(MATCH_ID, seat) for seat in (0, 1)))


def _a_killed_process_held_a_socket(seat: int) -> None:
    """What a worker killed with a socket open on ``seat`` leaves: its count, under a
    process name whose word that it is alive has run out."""
    cache.add(presence.seat_key(MATCH_ID, seat), 0, presence.listen_ttl())
    cache.incr(presence.seat_key(MATCH_ID, seat))
    redis_client().hincrby(liveness.seat_processes_key(MATCH_ID, seat), "gone:4242:dead", 1)


@pytest.mark.redis
def test_a_socket_of_a_live_process_keeps_its_seat_connected(seats):
    player = uuid.uuid4()
    presence.seat_joined(match_id=MATCH_ID, seat=0)
    assert liveness.live_sockets(match_id=MATCH_ID, seat=0, counted=1) == 1
    assert not seat_disconnected(match_id=MATCH_ID, seat=0, player_id=player)
    presence.seat_left(match_id=MATCH_ID, seat=0)
    assert seat_disconnected(match_id=MATCH_ID, seat=0, player_id=player)


@pytest.mark.redis
def test_the_socket_of_a_killed_process_does_not_keep_its_seat_connected(seats):
    player = uuid.uuid4()
    _a_killed_process_held_a_socket(1)
    assert presence.seat_sockets(match_id=MATCH_ID, seat=1) == 1  # still counted
    assert liveness.live_sockets(match_id=MATCH_ID, seat=1, counted=1) == 0
    assert seat_disconnected(match_id=MATCH_ID, seat=1, player_id=player)
    # The player comes back on a socket of a live process: connected again.
    presence.seat_joined(match_id=MATCH_ID, seat=1)
    assert presence.seat_sockets(match_id=MATCH_ID, seat=1) == 2
    assert liveness.live_sockets(match_id=MATCH_ID, seat=1, counted=2) == 1
    assert not seat_disconnected(match_id=MATCH_ID, seat=1, player_id=player)


def test_without_redis_the_seats_count_answers(settings, seats):
    settings.CACHES = LOCAL_MEMORY
    presence.seat_joined(match_id=MATCH_ID, seat=0)
    assert liveness.live_sockets(match_id=MATCH_ID, seat=0, counted=1) == 1
    assert not seat_disconnected(match_id=MATCH_ID, seat=0, player_id=uuid.uuid4())
    presence.seat_left(match_id=MATCH_ID, seat=0)
