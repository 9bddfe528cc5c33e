"""Finished games waiting to be settled, gathered into batches (docs/settlement.md
"Batches"): the batch set on Redis.

When a game finishes, its id goes into a Redis set, and one ``settle_ready`` task is queued
unless one is already due (a wake-up key set with NX); the task takes the ids out a batch at
a time and settles each batch in one transaction (``services.games_settle``). A backlog,
many games finishing while the worker is busy, is settled in batches of up to
``services.BATCH_SIZE`` games: a fraction of the statements and the broker messages of one
task per game.

Nothing can be lost that could not be lost before: the set lives on the Redis that holds
the broker's queues, and an id taken by a worker that dies before its batch commits, or
lost with Redis, is found by the ``settle-stragglers`` sweep (a finished game still unsettled
after ``SETTLEMENT_STRAGGLER_AGE_SECONDS``), as a lost message always was. Settling stays
exactly-once by the match's lock and status, whoever comes first.

This module only keeps the set and the wake-up; queueing the tasks is the services' part
(``services.game_payout_request``, the one entry point of a payout).
"""

from __future__ import annotations

import logging

from django.core.cache import cache
from redis import Redis
from redis.exceptions import RedisError

from gin_platform.request_path.cache import redis_client

logger = logging.getLogger(__name__)

WAKE_SECONDS = 60  # a wake-up whose task was never queued is retried after this


def ready_keys() -> tuple[str, str]:
    """The Redis keys of the batch set and of the wake-up."""
    return cache.make_key("settlement:ready"), cache.make_key("settlement:wake")


def ready_add(client: Redis, match_id: int) -> bool:
    """Put ``match_id`` in the batch set, and claim the wake-up: True when no task is due
    yet, so the caller must queue one. Raises RedisError."""
    ready, wake = ready_keys()
    pipe = client.pipeline(transaction=False)
    pipe.sadd(ready, match_id)
    pipe.set(wake, 1, nx=True, ex=WAKE_SECONDS)
    _, woken = pipe.execute()
    return bool(woken)


def ready_take(count: int) -> list[int]:
    """Up to ``count`` ids of the games waiting, taken out of the set (SPOP)."""
    client = redis_client()
    if client is None:
        return []
    ready, _ = ready_keys()
    return sorted(int(match_id) for match_id in client.spop(ready, count) or [])


def wake_clear() -> None:
    """Before a ``settle_ready`` task takes its first batch (and when the task a wake-up
    claimed could not be queued): a game that finishes from now on queues another task,
    and one added before is in the set the task drains."""
    client = redis_client()
    if client is None:
        return
    try:
        client.delete(ready_keys()[1])
    except RedisError:  # expires by itself after WAKE_SECONDS
        logger.warning("could not clear the settlement wake-up", exc_info=True)


def wake_claim() -> bool:
    """Claim the wake-up for another ``settle_ready`` task (a drain that stopped at its
    limit with games still waiting): True unless one is due already, or there is no Redis."""
    client = redis_client()
    return client is not None and bool(client.set(ready_keys()[1], 1, nx=True, ex=WAKE_SECONDS))
