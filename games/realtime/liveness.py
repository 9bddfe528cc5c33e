"""Which processes holding sockets are alive, for R13's presence and the player's socket
cap (docs/games.md "Interrupted play", "Presence").

A seat's count of sockets (``presence.seat_key``) and a player's (``presence.player_key``)
are kept by the processes that hold them; one killed without closing its sockets (SIGKILL,
out of memory) leaves its counts behind until they expire, three socket heartbeats (60 s)
after their last renewal, and a player's count never expires while another of their sockets
beats. Neither may count those sockets: a player whose socket died with a web worker has no
socket open, and is owed the reconnect grace, not a run of their time bank; and their new
socket must be let in, not refused as one too many (a chaos run with web workers killed saw
players refused every socket, auto-played to a forfeit).

So, on Redis, every process that holds a counted socket also counts it under its own name
(``rt:seatproc:<match>:<seat>`` and ``rt:playerproc:<player>``, hashes: process -> sockets,
renewed with the count) and says it is alive every third of ``PRESENCE_TIMEOUT_SECONDS``
(``rt:proc:<process>``, which expires after ``PRESENCE_TIMEOUT_SECONDS``) from a daemon
thread it starts with its first socket. ``live_sockets`` leaves out the sockets of processes
not heard from within the presence timeout, and ``dead_sockets_released`` takes them off a
player's count for good. A process wrongly taken for dead (its thread starved for seconds)
only makes a seat look disconnected, which gives the grace, or lets a player hold a socket
over the cap until its sockets close: either way only in the player's favour.

Sockets, moves and pushes pay nothing for it: one more Redis command when a socket opens,
closes, joins or leaves a seat and at each socket heartbeat; the reads are the turn timer's,
when a turn's own clock runs out, and a new socket's only when it would be over the cap.
Without Redis (one process serves everything) the count is the answer.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time

from django.conf import settings
from django.core.cache import cache

from gin_platform.request_path.cache import CACHE_ERRORS, redis_client, redis_script

logger = logging.getLogger(__name__)

_state: dict[str, object] = {}  # this process's name and its thread, per pid (forks)
_lock = threading.Lock()


def alive_seconds() -> float:
    """How long a process's word that it is alive holds: the presence timeout (R13)."""
    return float(max(1, int(settings.PRESENCE_TIMEOUT_SECONDS)))


def process_name() -> str:
    """This process, unique across hosts, pids and restarts."""
    pid = os.getpid()
    if _state.get("pid") != pid:
        with _lock:
            if _state.get("pid") != pid:
                _state.clear()
                _state["name"] = f"{socket.gethostname()}:{pid}:{secrets.token_hex(4)}"
                _state["pid"] = pid
    return str(_state["name"])


def process_key(name: str) -> str:
    return cache.make_and_validate_key(f"rt:proc:{name}")


def seat_processes_key(match_id: int, seat: int) -> str:
    return cache.make_and_validate_key(f"rt:seatproc:{match_id}:{seat}")


def player_processes_key(player_id: object) -> str:
    return cache.make_and_validate_key(f"rt:playerproc:{player_id}")


def _say_alive(client) -> None:
    client.set(process_key(process_name()), 1, px=int(alive_seconds() * 1000))


def _alive_forever(pid: int) -> None:
    while os.getpid() == pid:
        time.sleep(alive_seconds() / 3)
        try:
            client = redis_client()
            if client is not None:
                _say_alive(client)
        except CACHE_ERRORS as exc:  # missed once; the next beat tries again
            logger.debug("socket process liveness not written: %s", exc)


def _alive_thread_ensure(client) -> None:
    process_name()  # a forked child forgets its parent's thread
    _say_alive(client)  # now too: the key may have been lost (a flushed cache)
    if _state.get("thread") is None:
        with _lock:
            if _state.get("thread") is None:
                thread = threading.Thread(
                    target=_alive_forever, args=(os.getpid(),), name="socket-liveness", daemon=True
                )
                thread.start()
                _state["thread"] = thread


def seat_socket_counted(*, match_id: int, seat: int, delta: int, ttl: int) -> None:
    """A socket of this process joined (+1) or left (-1) the seat."""
    _socket_counted(seat_processes_key(match_id, seat), delta=delta, ttl=ttl)


def player_socket_counted(*, player_id: object, delta: int, ttl: int) -> None:
    """A socket of this process opened (+1) or closed (-1) for the player."""
    _socket_counted(player_processes_key(player_id), delta=delta, ttl=ttl)


def _socket_counted(holders: str, *, delta: int, ttl: int) -> None:
    client = redis_client()
    if client is None:
        return
    try:
        if delta > 0:
            _alive_thread_ensure(client)
        client.hincrby(holders, process_name(), delta)
        client.expire(holders, ttl)
    except CACHE_ERRORS as exc:  # the count itself still stands
        logger.warning("socket process count %s: %s", holders, exc)


def seat_renewed(*, match_id: int, seat: int, ttl: int) -> None:
    """A heartbeat of a socket on the seat: the per-process counts live on with the count."""
    client = redis_client()
    if client is not None:
        client.expire(seat_processes_key(match_id, seat), ttl)


def player_renewed(*, player_id: object, ttl: int) -> None:
    """A heartbeat of one of the player's sockets: their per-process counts live on."""
    client = redis_client()
    if client is not None:
        client.expire(player_processes_key(player_id), ttl)


def _held(client, holders: str) -> dict[str, int]:
    return {
        name.decode(): int(count)
        for name, count in client.hgetall(holders).items()
        if int(count) > 0
    }


def live_sockets(*, match_id: int, seat: int, counted: int) -> int:
    """Of the seat's ``counted`` sockets, those not held by a process gone silent."""
    client = redis_client()
    if client is None or counted <= 0:
        return max(counted, 0)
    held = _held(client, seat_processes_key(match_id, seat))
    if not held:
        return counted
    alive = client.mget([process_key(name) for name in held])
    untracked = max(0, counted - sum(held.values()))
    return untracked + sum(n for (name, n), up in zip(held.items(), alive, strict=True) if up)


# Takes a dead process's sockets off a count, once: two sockets opening at once for one
# player both see the dead process, and only the one whose HDEL removes it subtracts.
_RELEASE_DEAD = """
local released = 0
for i, name in ipairs(ARGV) do
    local held = tonumber(redis.call('HGET', KEYS[2], name) or '0')
    if redis.call('HDEL', KEYS[2], name) == 1 and held > 0 then
        released = released + held
    end
end
if released == 0 then
    return tonumber(redis.call('GET', KEYS[1]) or '0')
end
local left = redis.call('DECRBY', KEYS[1], released)
if left <= 0 then
    redis.call('DEL', KEYS[1])
    return 0
end
return left
"""


def dead_sockets_released(*, player_id: object, counter: str, counted: int) -> int:
    """The player's count of sockets (``counted``, under the cache key ``counter``) without
    those of processes gone silent, which it gives up for good. Called only when a new
    socket would be over the cap: the count's common path pays nothing for it."""
    client = redis_client()
    if client is None:
        return counted
    holders = player_processes_key(player_id)
    try:
        held = _held(client, holders)
        if not held:
            return counted
        names = list(held)
        alive = client.mget([process_key(name) for name in names])
        dead = [name for name, up in zip(names, alive, strict=True) if not up]
        if not dead:
            return counted
        scripted = redis_script(cache, _RELEASE_DEAD, "gin_release_dead_sockets")
        if scripted is None:
            return counted
        left = int(scripted[1](keys=[cache.make_and_validate_key(counter), holders], args=dead))
    except CACHE_ERRORS as exc:  # the count stands as it is: the cap refuses
        logger.warning("dead sockets of player %s not released: %s", player_id, exc)
        return counted
    logger.info("player %s: sockets of %d silent process(es) released", player_id, len(dead))
    return left
