"""Side effects after a commit: they never turn a committed success into an error.

Once a state change has committed (a game finished, a deposit recorded, a webhook delivery
written), the request has succeeded: the answer must say so. What follows the commit - a
Celery message to the broker, a signal to another app - may fail (Redis down, a network
blip, a bug in a receiver); if that failure reached the view, the client would get a 500 for
a change that is in the database, retry, and get a 409. So every such side effect goes
through this module:

- ``enqueue(task, *ids)`` sends a task now; a failure is logged (ERROR, with the task name
  and its ids) and swallowed, and the call returns False. ``task`` is the task or its
  registered name (``"gin_platform.tasks.deliver_webhook"``).
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

Tasks take ids only, so the log line names exactly what the sweeper will pick up.

One direction between services and tasks: a task's body imports and calls its service; a
service queues its task by the task's name (``task_named``), never importing the task
module, so the two never import each other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import transaction
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


def task_named(task: Any) -> Any:
    """The Celery task ``task`` names: its registered name, which is the dotted path of the
    function (``"games.tasks.bot_move"``), imported on first use; a task is returned as it
    is. A name that is no task raises LookupError at once: that is a bug in the caller, not
    an outage to leave to a sweeper."""
    if not isinstance(task, str):
        return task
    try:
        found = import_string(task)
    except ImportError as exc:
        raise LookupError(f"no task {task!r}") from exc
    if getattr(found, "name", None) != task:
        raise LookupError(f"{task!r} is not a task registered under that name")
    return found


def enqueue(task: Any, *args: Any, countdown: float | None = None) -> bool:
    """Send ``task`` (a task or its name: ``task_named``) with positional ``args`` (ids) to
    the broker; True if it was sent.

    Never raises for the broker: a broker error (kombu ``OperationalError``, redis
    ``ConnectionError``, a timeout) or any other exception is logged with the task and its
    ids, and the work is left to the task's sweeper. With eager Celery (demo, tests) the
    task runs here, and an error it raises is logged the same way."""
    task = task_named(task)
    options: dict[str, Any] = {} if countdown is None else {"countdown": countdown}
    try:
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
    back; at once outside a transaction). Never raises for the broker, then or now; a name
    that is no task raises now (``task_named``)."""
    task = task_named(task)
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
