"""Which processes holding sockets are alive, for R13's presence (docs/games.md
"Interrupted play", "Presence").

A seat's count of sockets (``presence.seat_key``) is kept by the processes that hold them;
one killed without closing its sockets (SIGKILL, out of memory) leaves its counts behind
until they expire, three socket heartbeats (60 s) after their last renewal. R13 must not
count those sockets: a player whose socket died with a web worker has no socket open, and is
owed the reconnect grace, not a run of their time bank.

So, on Redis, every process that holds a seat's socket also counts it under its own name
(``rt:seatproc:<match>:<seat>``, a hash: process -> sockets, renewed with the seat's count)
and says it is alive every third of ``PRESENCE_TIMEOUT_SECONDS`` (``rt:proc:<process>``,
which expires after ``PRESENCE_TIMEOUT_SECONDS``) from a daemon thread it starts with its
first socket. ``live_sockets`` leaves out the sockets of processes not heard from within the
presence timeout. A process wrongly taken for dead (its thread starved for seconds) only
makes a seat look disconnected, which gives the grace: presence only ever protects a player.

Sockets, moves and pushes pay nothing for it: one more Redis command when a socket joins or
leaves a seat and at each socket heartbeat; the reads are the turn timer's, when a turn's own
clock runs out. Without Redis (one process serves everything) the seat's count is the answer.
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

from gin_platform.request_path.cache import CACHE_ERRORS, redis_client

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
    client = redis_client()
    if client is None:
        return
    try:
        if delta > 0:
            _alive_thread_ensure(client)
        key = seat_processes_key(match_id, seat)
        client.hincrby(key, process_name(), delta)
        client.expire(key, ttl)
    except CACHE_ERRORS as exc:  # the seat's own count still stands
        logger.warning("socket process count of match %s seat %s: %s", match_id, seat, exc)


def seat_renewed(*, match_id: int, seat: int, ttl: int) -> None:
    """A heartbeat of a socket on the seat: the per-process counts live on with the count."""
    client = redis_client()
    if client is not None:
        client.expire(seat_processes_key(match_id, seat), ttl)


def live_sockets(*, match_id: int, seat: int, counted: int) -> int:
    """Of the seat's ``counted`` sockets, those not held by a process gone silent."""
    client = redis_client()
    if client is None or counted <= 0:
        return max(counted, 0)
    held = {
        name.decode(): int(count)
        for name, count in client.hgetall(seat_processes_key(match_id, seat)).items()
        if int(count) > 0
    }
    if not held:
        return counted
    alive = client.mget([process_key(name) for name in held])
    untracked = max(0, counted - sum(held.values()))
    return untracked + sum(n for (name, n), up in zip(held.items(), alive, strict=True) if up)
