"""Celery tasks of matchmaking. Thin: one service call each.

- ``queue_match``: a player joined a queue (queued by ``quick_seat_join`` on commit): the
  queue's matcher runs.
- ``quick_seat_tick``: beat job (``CELERY_BEAT_SCHEDULE["quick-seat-tick"]``, every 2 s):
  tickets past their lifetime expire and every queue with waiting tickets is matched again
  (bands widen with time); it also seats whatever a lost ``queue_match`` message left.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from matchmaking import services

TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=10,
    retry_jitter=True,
    max_retries=5,
    ignore_result=True,
)
def queue_match(queue_id: int) -> int:
    return services.queue_match(queue_id=queue_id)


# A tick is not acks_late: one that dies mid-way is simply run again at the next tick.
@shared_task(ignore_result=True, acks_late=False)
def quick_seat_tick() -> int:
    return services.quick_seat_tick().seated
