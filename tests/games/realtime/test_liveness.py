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


@pytest.fixture
def a_player(settings):
    settings.REALTIME_MAX_SOCKETS_PER_PLAYER = 2
    player = uuid.uuid4()
    yield player
    cache.delete(presence.player_key(player))
    client = redis_client()
    if client is not None:
        client.delete(liveness.player_processes_key(player))


def _a_killed_process_held_sockets_of(player, count: int) -> None:
    """What a web worker killed with ``count`` of the player's sockets open leaves: their
    count, under a process name whose word that it is alive has run out."""
    cache.add(presence.player_key(player), 0, presence.listen_ttl())
    cache.incr(presence.player_key(player), count)
    redis_client().hincrby(liveness.player_processes_key(player), "gone:4243:dead", count)


@pytest.mark.redis
def test_the_sockets_of_a_killed_process_do_not_hold_the_players_cap(a_player):
    """A chaos run with web workers SIGKILLed: the players whose sockets died with them
    were refused every new socket (too-many-sockets) while another of their sockets kept
    the count alive, and were auto-played to a forfeit. The dead sockets now stop counting
    as soon as a new one would be over the cap."""
    _a_killed_process_held_sockets_of(a_player, 2)
    assert presence.socket_opened(player_id=a_player) == 1  # under the cap of 2: let in
    assert cache.get(presence.player_key(a_player)) == 1  # released for good
    assert presence.socket_opened(player_id=a_player) == 2
    assert presence.socket_opened(player_id=a_player) == 3  # a live third is over the cap
    for _ in range(3):
        presence.socket_closed(player_id=a_player)
    assert not cache.get(presence.player_key(a_player))


@pytest.mark.redis
def test_a_dead_process_is_taken_off_the_count_once(a_player):
    """Two sockets opening at once both see the dead process: only one subtracts it."""
    _a_killed_process_held_sockets_of(a_player, 2)
    cache.incr(presence.player_key(a_player))  # this socket, counted under no process yet
    counter = presence.player_key(a_player)
    first = liveness.dead_sockets_released(player_id=a_player, counter=counter, counted=3)
    second = liveness.dead_sockets_released(player_id=a_player, counter=counter, counted=1)
    assert (first, second) == (1, 1)
    assert cache.get(counter) == 1


@pytest.mark.redis
def test_the_sockets_of_live_processes_keep_counting(a_player):
    for _ in range(2):
        presence.socket_opened(player_id=a_player)
    assert presence.socket_opened(player_id=a_player) == 3  # refused by the caller
    presence.socket_closed(player_id=a_player)
    assert cache.get(presence.player_key(a_player)) == 2


def test_without_redis_the_players_count_answers(settings, a_player):
    settings.CACHES = LOCAL_MEMORY
    for expected in (1, 2, 3):
        assert presence.socket_opened(player_id=a_player) == expected
    for _ in range(3):
        presence.socket_closed(player_id=a_player)
