"""Side effects after a commit: they never turn a committed success into an error.

Once a state change has committed (a game finished, a deposit recorded, a webhook delivery
written), the request has succeeded: the answer must say so. What follows the commit - a
Celery message to the broker, a signal to another app - may fail (Redis down, a network
blip, a bug in a receiver); if that failure reached the view, the client would get a 500 for
a change that is in the database, retry, and get a 409. So every such side effect goes
through this module:

- ``enqueue(task, *ids)`` sends a task now; a failure is logged (ERROR, with the task name
  and its ids) and swallowed, and the call returns False. ``task`` is the task, or its
  dotted name (``"games.tasks.bot_move"``): a service queues its app's tasks by name, and
  the task's module is imported only when it is sent, so the one direction between services
  and tasks holds (a task's body imports its service, never the other way round).
- ``enqueue_on_commit(task, *ids)`` does the same once the current transaction commits (at
  once outside one). Django's ``on_commit(..., robust=True)`` would also swallow the error,
  but its log line names only the callback, not the work that was lost.
- ``on_commit_logged(callback, what=...)`` runs any other callback on commit the same way.

A lost message is never lost work: every kind of queued work has a beat sweeper that finds
it in the database and queues it again (docs/settlement.md "Recovery times"):

| task | sweeper (beat) | finds |
| --- | --- | --- |
| ``settlement.tasks.settle_game`` | ``settle-stragglers`` | finished games not settled |
| ``gin_platform.tasks.deliver_webhook`` | ``redeliver-due-webhooks`` | pending deliveries due |
| ``games.tasks.bot_move`` | ``expire-turns`` | bot turns past their deadline |
| ``wallet.tasks.seamless_call_retry`` | ``seamless-wallet-calls`` | wallet calls due (unacked) |
| ``ratings.tasks.match_rate`` | ``ratings-sweep`` | finished rated matches not rated |
| ``tournaments.tasks.*`` (4) | ``tournaments-sweep`` | results, seatings, starts, voids |
| ``matchmaking.tasks.queue_match`` | ``quick-seat-tick`` | queues with waiting tickets |

Tasks take ids only, so the log line names exactly what the sweeper will pick up.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import transaction

logger = logging.getLogger(__name__)


def enqueue(task: Any, *args: Any, countdown: float | None = None) -> bool:
    """Send ``task`` (a task, or its dotted name, imported now) with positional ``args`` (ids)
    to the broker; True if it was sent.

    Never raises: a broker error (kombu ``OperationalError``, redis ``ConnectionError``, a
    timeout) or any other exception is logged with the task and its ids, and the work is
    left to the task's sweeper. With eager Celery (demo, tests) the task runs here, and an
    error it raises is logged the same way."""
    options: dict[str, Any] = {} if countdown is None else {"countdown": countdown}
    try:
        if isinstance(task, str):  # "package.tasks.name": imported now, when it is sent
            module, _, name = task.rpartition(".")
            task = getattr(importlib.import_module(module), name)
        task.apply_async(args=args, **options)
    except Exception:
        logger.exception(
            "could not enqueue %s%r; left to its sweeper", getattr(task, "name", task), args
        )
        return False
    return True


def enqueue_on_commit(
    task: Any, *args: Any, countdown: float | None = None, using: str | None = None
) -> None:
    """``enqueue(task, *args)`` once the current transaction commits (never if it rolls
    back; at once outside a transaction). Never raises, then or now."""
    transaction.on_commit(partial(enqueue, task, *args, countdown=countdown), using=using)


def run_logged(callback: Callable[[], Any], *, what: str) -> bool:
    """Call ``callback``; an exception is logged with ``what`` (which work, which ids) and
    swallowed. True if it ran without one."""
    try:
        callback()
    except Exception:
        logger.exception("after commit: %s failed; left to its sweeper", what)
        return False
    return True


def on_commit_logged(callback: Callable[[], Any], *, what: str, using: str | None = None) -> None:
    """Run ``callback`` once the current transaction commits, through ``run_logged``."""
    transaction.on_commit(partial(run_logged, callback, what=what), using=using)
