"""Celery tasks of ratings. Thin: one service call each.

- ``match_rate``: a rated match ended (queued by the receiver of
  ``games.signals.match_finished``): rated, after any earlier one still unrated.
- ``ratings_sweep``: beat job (``CELERY_BEAT_SCHEDULE["ratings-sweep"]``): rates any match
  no task rated (a lost message, a worker killed mid-task).
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from gin_platform.tenancy.principals import Actor
from ratings import services

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
ACTOR = "ratings"


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=10,
    ignore_result=True,
)
def match_rate(match_id: int) -> int:
    return len(services.finished_match_rate(match_id=match_id, actor=Actor.system(ACTOR)))


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def ratings_sweep() -> int:
    return len(services.ratings_sweep(actor=Actor.system(ACTOR)))
