"""Celery tasks of the platform app. Thin: they take ids and call one function."""

from celery import shared_task
from django.conf import settings

from gin_platform.enqueue import enqueue
from gin_platform.events.event_log import events_prune
from gin_platform.events.webhooks import due_deliveries, webhook_attempt
from gin_platform.heartbeat import BEAT, heartbeat_write
from gin_platform.tenancy.services import expired_records_prune

# A message waiting for its countdown is held unacknowledged by a worker; the Redis broker
# hands it out again once it is older than the visibility timeout. So a retry is queued with
# a countdown only when it is due well within that timeout; a longer wait is left to the
# redeliver-due-webhooks beat job, which queues deliveries whose retry is due.
COUNTDOWN_MARGIN_SECONDS = 60


def max_countdown_seconds() -> float:
    return settings.BROKER_VISIBILITY_TIMEOUT_SECONDS - COUNTDOWN_MARGIN_SECONDS


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver_webhook(delivery_id: str) -> None:
    retry_in = webhook_attempt(delivery_id=delivery_id)
    if retry_in is not None and retry_in <= max_countdown_seconds():
        enqueue(deliver_webhook, delivery_id, countdown=retry_in)


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def redeliver_due_webhooks() -> int:
    """Beat: re-enqueue deliveries whose retry is due (covers lost or expired messages)."""
    due = due_deliveries()
    for delivery_id in due:
        enqueue(deliver_webhook, delivery_id)
    return len(due)


@shared_task(ignore_result=True, acks_late=False)
def prune_expired_records() -> int:
    """Beat: delete Idempotency-Key records older than IDEMPOTENCY_RETENTION_SECONDS, socket
    tickets used or expired and launch tokens expired."""
    return expired_records_prune()


@shared_task(ignore_result=True, acks_late=False)
def prune_operator_events() -> int:
    """Beat: delete operator events older than WEBHOOK_EVENT_RETENTION_DAYS and deliveries as
    old that are done (gin_platform.events.event_log.events_prune)."""
    return events_prune()


@shared_task(ignore_result=True, acks_late=False)
def platform_heartbeat() -> None:
    """Beat: the ``beat`` heartbeat (gin_platform/heartbeat.py): beat and a worker are up."""
    heartbeat_write(source=BEAT)
