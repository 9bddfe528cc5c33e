"""Celery tasks of the platform app. Thin: they take ids and call one function."""

from celery import shared_task

from gin_platform.webhooks import due_deliveries, webhook_attempt

# A countdown longer than the Redis broker's visibility timeout (1 h) would be redelivered
# while it waits; longer waits are left to the redeliver-due-webhooks beat job.
MAX_COUNTDOWN_SECONDS = 50 * 60


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver_webhook(delivery_id: str) -> None:
    retry_in = webhook_attempt(delivery_id=delivery_id)
    if retry_in is not None and retry_in <= MAX_COUNTDOWN_SECONDS:
        deliver_webhook.apply_async((delivery_id,), countdown=retry_in)


@shared_task(ignore_result=True)
def redeliver_due_webhooks() -> int:
    """Beat: re-enqueue deliveries whose retry is due (covers lost or expired messages)."""
    due = due_deliveries()
    for delivery_id in due:
        deliver_webhook.delay(delivery_id)
    return len(due)
