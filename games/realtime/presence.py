"""Who is listening, kept in the cache (Redis in production; one process's memory on the
embedded default, where one process serves everything).

- An audience is *listened to* while a socket (or a long poll) of it has announced itself
  within ``listen_ttl()``: the publisher renders only for those. A socket renews it at every
  heartbeat, so an entry lost from the cache comes back within one heartbeat (and the socket
  repairs any gap from the database meanwhile).
- A seat is *connected* while it holds at least one socket: a counter per seat. A server that
  dies without closing its sockets leaves its counts behind until they expire (three
  heartbeats without renewal); R13's presence leaves them out at once (``liveness``).
- A player holds at most ``REALTIME_MAX_SOCKETS_PER_PLAYER`` sockets at once; those of a
  server that died without closing them stop counting once it is silent (``liveness``).
- ``rt:seq:<match>`` is the match's latest pushed sequence number, so a long poll waits on
  the cache instead of querying the database over and over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.core.cache import cache

from games.realtime import liveness
from games.realtime.audience import Audience
from gin_platform.request_path.cache import redis_client

# A socket's counts are one cache (Redis) call each, not database work: consumers run them on
# threads of their own, so a closed socket stops counting at once even while the sockets'
# database work is queued. Under load it was, for seconds, and a player finishing short
# games back to back was refused a socket (too-many-sockets) by sockets already closed.
_COUNT_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="socket-counts")


def on_count_threads(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (counting only: no database) as a coroutine on the counts' own threads."""
    return SyncToAsync(func, thread_sensitive=False, executor=_COUNT_THREADS)


def heartbeat_seconds() -> int:
    return settings.REALTIME_HEARTBEAT_SECONDS


def listen_ttl() -> int:
    return 3 * heartbeat_seconds()


def listen_key(audience: Audience) -> str:
    """The cache key that says an audience's group has a listening socket (with a TTL)."""
    return f"rt:listen:{audience.group}"


def seat_key(match_id: int, seat: int) -> str:
    """The Redis key counting the sockets of one seat of a match."""
    return f"rt:seat:{match_id}:{seat}"


def player_key(player_id: object) -> str:
    """The Redis key counting a player's open sockets (the per-player cap)."""
    return f"rt:player:{player_id}"


SEQ_TTL = 3600  # seconds: a long poll only waits on a match being played


def seq_key(match_id: int) -> str:
    """The Redis key of the last sequence number pushed for a match."""
    return f"rt:seq:{match_id}"


def listen(audience: Audience, *, seconds: int | None = None) -> None:
    cache.set(listen_key(audience), 1, seconds or listen_ttl())


def listened(audiences: list[Audience]) -> list[Audience]:
    found = cache.get_many([listen_key(audience) for audience in audiences])
    return [audience for audience in audiences if listen_key(audience) in found]


def _increment(key: str) -> int:
    cache.add(key, 0, listen_ttl())
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, listen_ttl())
        return 1


def _decrement(key: str) -> int:
    try:
        value = cache.decr(key)
    except ValueError:
        return 0
    if value <= 0:
        cache.delete(key)
    return max(value, 0)


def socket_opened(*, player_id: object) -> int:
    """Count a socket of the player; the count after it, without the sockets of processes
    killed while holding them (the caller refuses over the cap)."""
    counted = _increment(player_key(player_id))
    liveness.player_socket_counted(player_id=player_id, delta=1, ttl=listen_ttl())
    if counted <= settings.REALTIME_MAX_SOCKETS_PER_PLAYER:
        return counted
    return liveness.dead_sockets_released(
        player_id=player_id, counter=player_key(player_id), counted=counted
    )


def socket_closed(*, player_id: object) -> None:
    _decrement(player_key(player_id))
    liveness.player_socket_counted(player_id=player_id, delta=-1, ttl=listen_ttl())


def seat_joined(*, match_id: int, seat: int) -> None:
    _increment(seat_key(match_id, seat))
    liveness.seat_socket_counted(match_id=match_id, seat=seat, delta=1, ttl=listen_ttl())


def seat_left(*, match_id: int, seat: int) -> None:
    _decrement(seat_key(match_id, seat))
    liveness.seat_socket_counted(match_id=match_id, seat=seat, delta=-1, ttl=listen_ttl())


def renew(*, audience: Audience, player_id: object | None) -> None:
    """A heartbeat of a match socket: the socket is still here."""
    listen(audience)
    if audience.seat is not None:
        cache.touch(seat_key(audience.match_id, audience.seat), listen_ttl())
        liveness.seat_renewed(match_id=audience.match_id, seat=audience.seat, ttl=listen_ttl())
    if player_id is not None:
        player_sockets_renew(player_id=player_id)


def beats_renewed(beats: Sequence[tuple[Audience | None, object]]) -> list[int | None]:
    """For each ``(audience, player_id)`` of a batch of heartbeats: ``renew`` and the
    match's ``last_pushed_seq`` (None when the cache has lost it), or for the player's own
    socket (no audience) ``player_sockets_renew`` and None. On Redis one round trip for the
    whole batch (games/realtime/beats.py), else one call at a time."""
    client = redis_client()
    if client is None:
        pushed: list[int | None] = []
        for audience, player_id in beats:
            if audience is None:
                player_sockets_renew(player_id=player_id)
                pushed.append(None)
                continue
            renew(audience=audience, player_id=player_id)
            pushed.append(last_pushed_seq(match_id=audience.match_id))
        return pushed
    key, ttl = cache.make_and_validate_key, listen_ttl()
    matches = [audience.match_id for audience, _ in beats if audience is not None]
    with client.pipeline(transaction=False) as pipe:
        for audience, player_id in beats:  # what renew does, command for command
            if audience is not None:
                pipe.set(key(listen_key(audience)), 1, ex=ttl)
                if audience.seat is not None:
                    pipe.expire(key(seat_key(audience.match_id, audience.seat)), ttl)
                    pipe.expire(liveness.seat_processes_key(audience.match_id, audience.seat), ttl)
            if player_id is not None:
                pipe.expire(key(player_key(player_id)), ttl)
                pipe.expire(liveness.player_processes_key(player_id), ttl)
        if matches:
            pipe.mget([key(seq_key(match_id)) for match_id in matches])
        replies = pipe.execute()
    # As Django's Redis cache reads an int it stored (stored as is, not pickled).
    found = iter(replies[-1] if matches else ())
    pushed = []
    for audience, _ in beats:
        value = None if audience is None else next(found)
        pushed.append(None if value is None else int(value))
    return pushed


def player_sockets_renew(*, player_id: object) -> None:
    """A heartbeat of one of the player's sockets: their socket count lives on."""
    cache.touch(player_key(player_id), listen_ttl())
    liveness.player_renewed(player_id=player_id, ttl=listen_ttl())


def seat_sockets(*, match_id: int, seat: int) -> int:
    """How many sockets the seat holds now (R13's presence reads it with the player's
    requests, gin_platform/request_path/seen.py)."""
    return int(cache.get(seat_key(match_id, seat)) or 0)


def connected_seats(
    *, match_id: int, seat_count: int = 2, bot_seats: Iterable[int] = ()
) -> list[dict[str, object]]:
    """Each seat and whether it is here: a socket of its player is open, or it is a house
    bot's (which plays from the server and is always here; R12: several at 3-4 seats)."""
    bots = set(bot_seats)
    keys = [seat_key(match_id, seat) for seat in range(seat_count)]
    counts = cache.get_many(keys)
    return [
        {"seat": seat, "connected": seat in bots or (counts.get(key) or 0) > 0}
        for seat, key in enumerate(keys)
    ]


def _poll_key(player_id: object) -> str:
    return f"rt:poll:{player_id}"


def long_poll_started(*, player_id: object) -> int:
    """Count a long poll of the player; the count after it (the caller refuses over the cap)."""
    return _increment(_poll_key(player_id))


def long_poll_ended(*, player_id: object) -> None:
    _decrement(_poll_key(player_id))


def seq_pushed(*, match_id: int, seq: int) -> None:
    cache.set(seq_key(match_id), seq, SEQ_TTL)


def seq_pushed_and_listened(
    *,
    match_id: int,
    seq: int | None,
    audiences: list[Audience],
    count_seats: Sequence[int] = (),
    first: Callable[[Any], None] | None = None,
) -> tuple[list[Audience], dict[int, int]]:
    """``seq_pushed`` (unless ``seq`` is None), then ``listened``: what every push does
    first, in one round trip on Redis (a move played over REST, with nobody listening, costs
    the cache nothing more). With ``count_seats``, also those seats' counts of open sockets
    (0 for a seat with none). ``first``: called with the pipeline before anything else is
    queued on it (the polled view's cache, games/realtime/view_cache.py), not called
    without Redis."""
    client = redis_client()
    if client is None:
        if seq is not None:
            seq_pushed(match_id=match_id, seq=seq)
        counted = {seat: cache.get(seat_key(match_id, seat)) or 0 for seat in count_seats}
        return listened(audiences), counted
    keys = [cache.make_and_validate_key(listen_key(audience)) for audience in audiences]
    keys += [cache.make_and_validate_key(seat_key(match_id, seat)) for seat in count_seats]
    with client.pipeline(transaction=False) as pipe:
        if first is not None:
            first(pipe)
        if seq is not None:  # stored as Django's Redis cache stores an int: as is
            pipe.set(cache.make_and_validate_key(seq_key(match_id)), seq, ex=SEQ_TTL)
        pipe.mget(keys)
        *_, found = pipe.execute()
    counts = found[len(audiences) :]  # counters, stored as an int is (as is)
    heard = [
        audience
        for audience, value in zip(audiences, found[: len(audiences)], strict=True)
        if value is not None
    ]
    return heard, {
        seat: 0 if value is None else int(value)
        for seat, value in zip(count_seats, counts, strict=True)
    }


def last_pushed_seq(*, match_id: int) -> int | None:
    return cache.get(seq_key(match_id))
