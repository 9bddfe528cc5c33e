"""Operator events and outgoing webhooks: signed, retried with exponential backoff, every
attempt logged.

Every event is recorded (``OperatorEvent``, the events API reads it:
gin_platform/events/event_log.py) in the transaction that made it true, webhook URL or not; its type
must be in the catalogue (gin_platform/events/catalogue.py). A delivery, whose id is the event id,
is made only when the operator has a URL and subscribes to the type.

Delivery is at least once; receivers drop duplicates by the event ``id``. The body is
``{"id", "type", "created_at", "data"}`` and the header ``X-Gin-Signature`` carries
``t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`` made with the operator's webhook secret
(requests operators sign to us use a canonical string that also covers the method, path,
Idempotency-Key and body hash: gin_platform/signing.py; docs/webhooks.md has both snippets).
The Standard Webhooks headers ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature``
sign the same body with the same key (``standard_signature``).

Where a webhook may go (gin_platform/events/webhook_targets.py): the URL is checked when it is set,
and at every attempt the host is resolved and every address must be public (no loopback,
private, link-local or metadata address) unless ``WEBHOOK_ALLOW_PRIVATE_TARGETS`` allows it
(development and test only); the request goes to the checked address, redirects are never
followed (a 3xx is a failed attempt), and the attempt log keeps only the status code and a
short generic error, never what the target sent back.

A delivery is claimed with a lease (a conditional update of ``next_attempt_at``), so two
workers never post the same attempt, and a worker that dies mid-attempt only delays the
retry by the lease. A beat job re-enqueues deliveries whose retry is due, so a lost
message costs time, never an event. The delivery task (``DELIVER_TASK``) calls
``webhook_attempt``; this module queues it by its name, never importing the task module.
"""

from __future__ import annotations

import http.client
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from gin_platform.enqueue import enqueue_on_commit
from gin_platform.events.catalogue import ALL as ALL_EVENT_TYPES
from gin_platform.events.catalogue import event_type_get
from gin_platform.events.webhook_targets import (
    TargetRefused,
    connection_error_class,
    pinned_connection,
    resolve_target,
)
from gin_platform.locks import lock_webhook_delivery
from gin_platform.models import (
    Operator,
    OperatorEvent,
    OperatorWebhookSubscription,
    WebhookAttempt,
    WebhookDelivery,
)
from gin_platform.request_path.precompiled import insert_rows
from gin_platform.signing import signature_header, standard_signature

SIGNATURE_HEADER = "X-Gin-Signature"
# Standard Webhooks (https://www.standardwebhooks.com/), sent beside X-Gin-Signature.
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"
MAX_ATTEMPTS = 10
BASE_DELAY_SECONDS = 30
MAX_DELAY_SECONDS = 6 * 3600
LEASE_SECONDS = 60
TIMEOUT_SECONDS = 10
# The Celery task that attempts a delivery (gin_platform/tasks.py); queued by name after the
# commit (gin_platform/enqueue.py), since the task module imports this one.
DELIVER_TASK = "gin_platform.tasks.deliver_webhook"


def retry_delay(attempt: int, *, rng: random.Random | None = None) -> float:
    """Seconds before attempt ``attempt + 1``: 30 s doubling per attempt, capped at 6 h,
    with up to 10% jitter so a recovering receiver is not hit by every retry at once."""
    delay = min(BASE_DELAY_SECONDS * 2 ** max(attempt - 1, 0), MAX_DELAY_SECONDS)
    jitter = (rng or random).uniform(0, delay * 0.1)
    return delay + jitter


def webhook_enqueue(
    *, operator: Operator, event_type: str, data: dict[str, Any]
) -> WebhookDelivery | None:
    """Record an event (``OperatorEvent``) and, if the operator has a webhook URL and is
    subscribed to its type, a delivery with the event's id, sent once the caller commits.

    Call inside the transaction that makes the event true. The type must be in the catalogue
    (gin_platform.events.catalogue): an unknown type raises ``UnknownEventType``.
    """
    return _event_record(operator=operator, event_type=event_type, data=data)


def webhook_enqueue_many(events: Sequence[tuple[Operator, str, dict[str, Any]]]) -> None:
    """``webhook_enqueue`` for many ``(operator, event type, data)`` at once: one INSERT of
    the events and one of their deliveries, whatever their number (a tournament's round
    tells hundreds of players they are out, under the tournament's lock)."""
    if not events:
        return
    rows = [
        webhook_event_build(operator=operator, event_type=event_type, data=data)
        for operator, event_type, data in events
    ]
    OperatorEvent.objects.bulk_create(rows)
    subscribed: dict[tuple[Any, str], bool] = {}
    deliveries = []
    for event in rows:
        operator = event.operator
        if not operator.webhook_url:
            continue
        key = (operator.pk, event.type)
        if key not in subscribed:
            subscribed[key] = event_subscribed(operator=operator, event_type=event.type)
        if subscribed[key]:
            deliveries.append(
                WebhookDelivery(
                    id=event.pk,
                    operator=operator,
                    event_type=event.type,
                    payload=event.data,
                    url=operator.webhook_url,
                    created_at=event.created_at,
                )
            )
    WebhookDelivery.objects.bulk_create(deliveries)
    for delivery in deliveries:
        enqueue_on_commit(DELIVER_TASK, str(delivery.pk))  # logged, never raised: swept


def _event_record(
    *, operator: Operator, event_type: str, data: dict[str, Any]
) -> WebhookDelivery | None:
    event = webhook_event_build(operator=operator, event_type=event_type, data=data)
    # Every event of every game and posting: INSERTs built once per process (precompiled.py).
    insert_rows([event])  # the database's transaction time comes back in created_at
    return webhook_event_inserted(event)


def webhook_event_build(
    *, operator: Operator, event_type: str, data: dict[str, Any]
) -> OperatorEvent:
    """``webhook_enqueue`` in two halves, for a caller that writes the event row in a
    statement of its own (settlement writes it with the Settlement): the row, unsaved, of
    a type in the catalogue (``UnknownEventType`` otherwise)..."""
    event_type_get(event_type)
    return OperatorEvent(operator=operator, type=event_type, data=data)


def webhook_event_inserted(event: OperatorEvent) -> WebhookDelivery | None:
    """... and, once the caller has inserted it, its delivery: recorded and sent after the
    commit if the operator has a webhook URL and is subscribed to its type."""
    operator = event.operator
    if not operator.webhook_url or not event_subscribed(operator=operator, event_type=event.type):
        return None
    delivery = WebhookDelivery(
        id=event.pk,
        operator=operator,
        event_type=event.type,
        payload=event.data,
        url=operator.webhook_url,
        created_at=event.created_at,
    )
    insert_rows([delivery])
    enqueue_on_commit(DELIVER_TASK, str(delivery.pk))  # logged, never raised: swept
    return delivery


AFTER_ROLLBACK = "_events_after_rollback"


def webhook_enqueue_after_rollback(
    *, refusal: BaseException, operator: Operator, event_type: str, data: dict[str, Any]
) -> None:
    """Record an event about a refusal, whose own transaction is rolling back with it.

    Outside any transaction it is recorded at once, in its own. Inside one (an operator
    write runs inside its Idempotency-Key's transaction) it rides on the exception:
    ``run_after_rollback`` records it in the transaction that stores the refusal as the
    key's answer (gin_platform.http.idempotency), so it is recorded once per request and never
    for a replay. A caller that swallows the refusal inside a transaction records nothing.
    """

    def record() -> None:
        with transaction.atomic():
            _event_record(operator=operator, event_type=event_type, data=data)

    if not transaction.get_connection().in_atomic_block:
        record()
        return
    pending = getattr(refusal, AFTER_ROLLBACK, None)
    if pending is None:
        pending = []
        setattr(refusal, AFTER_ROLLBACK, pending)
    pending.append(record)


def run_after_rollback(refusal: BaseException) -> None:
    """Record the events ``webhook_enqueue_after_rollback`` attached to ``refusal``."""
    for record in getattr(refusal, AFTER_ROLLBACK, ()):
        record()


def event_subscribed(*, operator: Operator, event_type: str) -> bool:
    """Does the operator's webhook receive events of this type? (No subscription: all.)"""
    types = (
        OperatorWebhookSubscription.objects.filter(operator=operator)
        .values_list("event_types", flat=True)
        .first()
    )
    return types is None or ALL_EVENT_TYPES in types or event_type in types


def event_envelope(*, event_id: Any, event_type: str, created_at: Any, data: Any) -> dict:
    """The webhook body and the events API item: ``{"id", "type", "created_at", "data"}``."""
    return {"id": str(event_id), "type": event_type, "created_at": created_at, "data": data}


def event_json(*, event_id: Any, event_type: str, created_at: Any, data: Any) -> bytes:
    """The envelope as JSON bytes: the webhook body; the events API answers the same."""
    envelope = event_envelope(
        event_id=event_id, event_type=event_type, created_at=created_at, data=data
    )
    return json.dumps(envelope, cls=DjangoJSONEncoder, separators=(",", ":")).encode()


def webhook_body(delivery: WebhookDelivery) -> bytes:
    return event_json(
        event_id=delivery.pk,
        event_type=delivery.event_type,
        created_at=delivery.created_at,
        data=delivery.payload,
    )


def webhook_headers(
    *, delivery: WebhookDelivery, body: bytes, timestamp: int | None = None
) -> dict[str, str]:
    """Every header of one attempt: ours (X-Gin-*) and the Standard Webhooks ones, signed
    with the same timestamp."""
    moment = int(time.time()) if timestamp is None else timestamp
    secret = delivery.operator.webhook_secret
    return {
        "Content-Type": "application/json",
        "User-Agent": "gin-platform-webhooks/1",
        "X-Gin-Event": delivery.event_type,
        "X-Gin-Delivery": str(delivery.pk),
        SIGNATURE_HEADER: signature_header(secret=secret, body=body, timestamp=moment),
        STANDARD_ID_HEADER: str(delivery.pk),
        STANDARD_TIMESTAMP_HEADER: str(moment),
        STANDARD_SIGNATURE_HEADER: standard_signature(
            secret=secret, msg_id=str(delivery.pk), timestamp=moment, body=body
        ),
    }


@dataclass(frozen=True)
class AttemptResult:
    """What an attempt logs: the status code and a short generic error, never the
    receiver's body, headers or socket error text (those would tell an operator what
    answered at an address they chose)."""

    delivered: bool
    status: int | None
    error: str


def _post(url: str, body: bytes, headers: dict[str, str]) -> AttemptResult:
    """POST once to the checked address of ``url``. Redirects are never followed: a 3xx is
    a failed attempt like any other non-2xx answer."""
    try:
        target = resolve_target(url)
    except TargetRefused as refused:
        return AttemptResult(False, None, refused.reason)
    connection = pinned_connection(target, timeout=TIMEOUT_SECONDS)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        status = response.status
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return AttemptResult(False, None, connection_error_class(exc))
    finally:
        connection.close()
    if 200 <= status < 300:
        return AttemptResult(True, status, "")
    return AttemptResult(False, status, f"HTTP {status}")


def _claim(delivery_id: str) -> bool:
    now = timezone.now()
    return bool(
        WebhookDelivery.objects.filter(
            pk=delivery_id, status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now
        ).update(next_attempt_at=now + timedelta(seconds=LEASE_SECONDS))
    )


def webhook_attempt(*, delivery_id: str) -> float | None:
    """Make one attempt if the delivery is due; return seconds until a retry, else None."""
    if not _claim(delivery_id):
        return None
    delivery = WebhookDelivery.objects.select_related("operator").get(pk=delivery_id)
    body = webhook_body(delivery)
    headers = webhook_headers(delivery=delivery, body=body)
    started = timezone.now()
    clock = time.monotonic()
    result = _post(delivery.url, body, headers)
    number = delivery.attempt_count + 1
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=number,
            started_at=started,
            duration_ms=int((time.monotonic() - clock) * 1000),
            response_status=result.status,
            error=result.error,
        )
        delivery.attempt_count = number
        if result.delivered:
            delivery.status = WebhookDelivery.Status.DELIVERED
            delivery.delivered_at = timezone.now()
            delivery.last_error = ""
            retry_in = None
        elif number >= MAX_ATTEMPTS:
            delivery.status = WebhookDelivery.Status.FAILED
            delivery.last_error = result.error
            retry_in = None
        else:
            retry_in = retry_delay(number)
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=retry_in)
            delivery.last_error = result.error
        delivery.save(
            update_fields=[
                "attempt_count",
                "status",
                "delivered_at",
                "last_error",
                "next_attempt_at",
            ]
        )
    return retry_in


def webhook_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send an event again on the operator's request (e.g. after fixing their endpoint)."""
    with transaction.atomic():
        locked = lock_webhook_delivery(delivery.pk)
        locked.status = WebhookDelivery.Status.PENDING
        locked.next_attempt_at = timezone.now()
        locked.save(update_fields=["status", "next_attempt_at"])
        enqueue_on_commit(DELIVER_TASK, str(locked.pk))
    return locked


def due_deliveries(*, limit: int = 500) -> list[str]:
    return [
        str(pk)
        for pk in WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=timezone.now()
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    ]
