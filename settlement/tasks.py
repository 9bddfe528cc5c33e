"""Settlement's Celery tasks. Thin: ids in, one service call, nothing else.

Money tasks are acks_late with reject-on-worker-lost: a worker that dies mid-task gets its
message redelivered (after the broker's visibility timeout), and ``game_settle`` makes the
second run a no-op. Only transient database errors are retried (with exponential backoff); a
domain error is final.

A game whose message is lost or held by a dead worker does not wait for the visibility
timeout: ``settle_stragglers`` (beat, every ``SETTLEMENT_SWEEP_INTERVAL_SECONDS``) queues
every game finished more than ``SETTLEMENT_STRAGGLER_AGE_SECONDS`` ago and still unsettled,
so a finished game is settled at most about their sum after it ended (docs/settlement.md
"Recovery times").
"""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from gin_platform.enqueue import enqueue
from settlement import services

TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=10,
    ignore_result=True,
)
def settle_game(match_id: int) -> None:
    services.game_settle(match_id=match_id)


@shared_task(ignore_result=True, acks_late=False)
def settle_ready() -> int:
    """The games waiting in the batch set, settled a batch at a time (settlement.ready).
    Not acks_late: what a dying worker had taken is found by ``settle_stragglers``."""
    return services.ready_games_settle()


# Sweeps are not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def settle_stragglers() -> int:
    """Beat: queue finished games that should have been settled by now (a lost message, a
    message held by a worker that died). Settling is idempotent, so a game whose first
    message is merely slow is settled once and the second message finds it settled."""
    ids = services.unsettled_match_ids(older_than_seconds=settings.SETTLEMENT_STRAGGLER_AGE_SECONDS)
    for match_id in ids:
        enqueue(settle_game, match_id)
    return len(ids)


@shared_task(ignore_result=True, acks_late=False)
def reconcile_ledger() -> bool:
    """Beat: the ledger check; drift is logged as an alert and kept for the back office."""
    return services.reconciliation_run().ok
