"""Finished games waiting to be settled, gathered into batches (docs/settlement.md
"Batches").

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
exactly-once by the match's lock and status, whoever comes first. Without Redis (the demo,
eager Celery in the tests), or when Redis fails, each game is queued on its own as before.
"""

from __future__ import annotations

import logging

from django.core.cache import cache
from redis.exceptions import RedisError

from gin_platform.enqueue import enqueue
from gin_platform.request_path.cache import redis_client

logger = logging.getLogger(__name__)

WAKE_SECONDS = 60  # a wake-up whose task was never queued is retried after this


def ready_keys() -> tuple[str, str]:
    """The Redis keys of the batch set and of the wake-up."""
    return cache.make_key("settlement:ready"), cache.make_key("settlement:wake")


def settlement_request(match_id: int) -> None:
    """Ask for ``match_id`` to be settled (after the commit that finished it). Never
    raises: a broker or Redis error is logged, and the sweep settles the game."""
    from settlement.tasks import settle_game, settle_ready  # the tasks import this module

    client = redis_client()
    if client is None or settle_game.app.conf.task_always_eager:  # run here, one by one
        enqueue(settle_game, match_id)
        return
    ready, wake = ready_keys()
    try:
        pipe = client.pipeline(transaction=False)
        pipe.sadd(ready, match_id)
        pipe.set(wake, 1, nx=True, ex=WAKE_SECONDS)
        _, woken = pipe.execute()
    except RedisError:
        logger.warning("could not add match %s to the settlement batch", match_id, exc_info=True)
        enqueue(settle_game, match_id)
        return
    if woken and not enqueue(settle_ready):
        logger.error("match %s waits in the settlement batch for the sweep", match_id)
        _wake_clear(client, wake)  # the next finished game tries again


def ready_take(count: int) -> list[int]:
    """Up to ``count`` ids of the games waiting, taken out of the set (SPOP)."""
    client = redis_client()
    if client is None:
        return []
    ready, _ = ready_keys()
    return sorted(int(match_id) for match_id in client.spop(ready, count) or [])


def wake_clear() -> None:
    """Before a ``settle_ready`` task takes its first batch: a game that finishes from now
    on queues another task, and one added before is in the set the task drains."""
    client = redis_client()
    if client is not None:
        _wake_clear(client, ready_keys()[1])


def _wake_clear(client, wake: str) -> None:
    try:
        client.delete(wake)
    except RedisError:  # expires by itself after WAKE_SECONDS
        logger.warning("could not clear the settlement wake-up", exc_info=True)


def wake() -> None:
    """Queue a ``settle_ready`` task unless one is due (a drain that stopped at its limit
    with games still waiting)."""
    from settlement.tasks import settle_ready

    client = redis_client()
    if client is not None and client.set(ready_keys()[1], 1, nx=True, ex=WAKE_SECONDS):
        enqueue(settle_ready)
