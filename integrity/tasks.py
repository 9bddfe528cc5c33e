"""Celery tasks of integrity. Thin: ids in, one service call.

- ``links_derive``: the links a mark's sighting implies, queued on commit by
  ``integrity.services.mark_record`` (by name). Idempotent: a link is made once per pair and
  kind.
- ``links_derive_pending``: beat job (``CELERY_BEAT_SCHEDULE["derive-player-links"]``): the
  marks whose sighting was never derived (a lost message).
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from integrity import services

TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    max_retries=5,
    ignore_result=True,
)
def links_derive(mark_id: int) -> int:
    return services.links_derive(mark_id=mark_id)


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def links_derive_pending() -> int:
    return services.links_derive_pending()
