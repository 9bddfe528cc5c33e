"""Settlement's Celery tasks. Thin: ids in, one service call, nothing else.

Money tasks are acks_late with reject-on-worker-lost: a worker that dies mid-task gets its
message redelivered, and ``game_settle`` makes the second run a no-op. Only transient
database errors are retried (with exponential backoff); a domain error is final.
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

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


@shared_task(ignore_result=True)
def settle_stragglers() -> int:
    """Beat: enqueue finished games that should have been settled by now."""
    ids = services.unsettled_match_ids()
    for match_id in ids:
        settle_game.delay(match_id)
    return len(ids)


@shared_task(ignore_result=True)
def reconcile_ledger() -> bool:
    """Beat: the ledger check; drift is logged as an alert and kept for the back office."""
    return services.reconciliation_run().ok
