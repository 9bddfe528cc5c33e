"""The operator event log: reading it (the events API), webhook subscriptions and retention
(docs/webhooks.md "Events API", "Subscriptions"). Events are written by
``gin_platform.events.webhooks.webhook_enqueue``.

The feed is ascending by ``(created_at, id)`` with a keyset cursor. ``created_at`` is the
start of the transaction that recorded the event (``TransactionNow``), so an event committed
later can carry an earlier time than one already read. To never let one appear behind a
cursor, the feed (on PostgreSQL) stops just before the start of the oldest transaction still
running in the database: whatever such a transaction records is dated at or after it. A
transaction older than ``WEBHOOK_EVENT_FEED_MAX_LAG_SECONDS`` (a forgotten console, not the
application) is not waited for, so the feed never stalls for longer than that.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import ALL, EVENT_TYPES
from gin_platform.http.problems import NotFoundProblem, ValidationProblem
from gin_platform.locks import lock_operator_row
from gin_platform.models import (
    Operator,
    OperatorEvent,
    OperatorWebhookSubscription,
    WebhookDelivery,
)
from gin_platform.tenancy.principals import Actor

DEFAULT_LIMIT = 100
MAX_LIMIT = 500


def retention_days() -> int:
    return settings.WEBHOOK_EVENT_RETENTION_DAYS


def _retention_cutoff(now: datetime) -> datetime:
    return now - timedelta(days=retention_days())


# --- The feed -------------------------------------------------------------------------------
@dataclass(frozen=True)
class EventPage:
    events: list[OperatorEvent]
    next_cursor: str | None  # where to continue; None only when nothing was ever read
    has_more: bool


def encode_cursor(event: OperatorEvent) -> str:
    raw = f"{event.created_at.isoformat()}|{event.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The position a cursor stands for; anything else is a validation error (400)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment_text, _, id_text = raw.partition("|")
        moment = parse_datetime(moment_text)
        event_id = uuid.UUID(id_text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        moment = None
    if moment is None or timezone.is_naive(moment):
        raise ValidationProblem(
            "cursor is not one this API gave out", errors={"cursor": ["invalid cursor"]}
        )
    return moment, event_id


def event_types_parse(values: list[str]) -> list[str]:
    """The ``type`` filter: repeated and/or comma-separated names from the catalogue."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    unknown = sorted(set(names) - set(EVENT_TYPES))
    if unknown:
        raise ValidationProblem(
            f"unknown event type: {', '.join(unknown)}",
            errors={"type": [f"unknown event type {name!r}" for name in unknown]},
        )
    return names


def _feed_horizon(now: datetime) -> datetime | None:
    """The start of the oldest other transaction still running here (PostgreSQL), or None.

    Events dated at or after it may still be committed; the feed shows only older ones."""
    if connection.vendor != "postgresql":
        return None  # SQLite: one writer at a time, committed in order
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid() "
            "AND xact_start IS NOT NULL AND xact_start > %s",
            [now - timedelta(seconds=settings.WEBHOOK_EVENT_FEED_MAX_LAG_SECONDS)],
        )
        (oldest,) = cursor.fetchone()
    return oldest


def event_feed(
    *,
    operator: Operator,
    cursor: str | None = None,
    types: list[str] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> EventPage:
    """The operator's events after ``cursor``, oldest first, ``limit`` at most."""
    now = timezone.now()
    events = OperatorEvent.objects.filter(operator=operator, created_at__gte=_retention_cutoff(now))
    if cursor:
        moment, event_id = decode_cursor(cursor)
        events = events.filter(Q(created_at__gt=moment) | Q(created_at=moment, pk__gt=event_id))
    horizon = _feed_horizon(now)
    if horizon is not None:
        events = events.filter(created_at__lt=horizon)
    if types:
        events = events.filter(type__in=types)
    page = list(events.order_by("created_at", "pk")[: limit + 1])
    has_more = len(page) > limit
    page = page[:limit]
    next_cursor = encode_cursor(page[-1]) if page else cursor
    return EventPage(events=page, next_cursor=next_cursor, has_more=has_more)


def event_get(*, operator: Operator, event_id: object) -> OperatorEvent:
    try:
        key = uuid.UUID(str(event_id))
    except ValueError:
        key = None
    event = (
        OperatorEvent.objects.filter(
            operator=operator, pk=key, created_at__gte=_retention_cutoff(timezone.now())
        ).first()
        if key is not None
        else None
    )
    if event is None:
        raise NotFoundProblem(f"event {event_id} not found")
    return event


def event_recorded(*, operator: Operator, event_type: str, **data: object) -> bool:
    """Has an event of this type with these ``data`` values been recorded (kept)?"""
    lookups = {f"data__{name}": value for name, value in data.items()}
    return OperatorEvent.objects.filter(operator=operator, type=event_type, **lookups).exists()


# --- Subscriptions --------------------------------------------------------------------------
def subscription_get(*, operator: Operator) -> list[str]:
    """The types the operator's webhook receives: ``["*"]`` (every type) unless narrowed."""
    types = (
        OperatorWebhookSubscription.objects.filter(operator=operator)
        .values_list("event_types", flat=True)
        .first()
    )
    return [ALL] if types is None else list(types)


def _subscription_types(event_types: object) -> list[str]:
    if not isinstance(event_types, list) or not all(isinstance(t, str) for t in event_types):
        raise ValidationProblem(
            "event_types is a list of event types",
            errors={"event_types": ['a list of event type names, or ["*"]']},
        )
    if ALL in event_types:
        if len(event_types) != 1:
            raise ValidationProblem(
                '"*" means every type: send it alone',
                errors={"event_types": ['"*" cannot be combined with other types']},
            )
        return [ALL]
    unknown = sorted(set(event_types) - set(EVENT_TYPES))
    if unknown:
        raise ValidationProblem(
            f"unknown event type: {', '.join(unknown)}",
            errors={"event_types": [f"unknown event type {name!r}" for name in unknown]},
        )
    return sorted(set(event_types))


@transaction.atomic
def subscription_set(*, operator: Operator, event_types: object, actor: Actor) -> list[str]:
    """Choose the event types the operator's webhook receives (``["*"]``: all; ``[]``: none).
    Every event is still recorded and listed by the events API."""
    types = _subscription_types(event_types)
    lock_operator_row(operator.pk)  # serialises changes: the row may not exist yet
    old = subscription_get(operator=operator)
    subscription, _ = OperatorWebhookSubscription.objects.get_or_create(operator=operator)
    subscription.event_types = types
    subscription.updated_at = timezone.now()
    subscription.save()
    audit_record(
        actor=actor,
        action="webhook_subscription.changed",
        obj=operator,
        operator=operator,
        data={"old": old, "new": types},
    )
    return types


# --- Retention ------------------------------------------------------------------------------
def events_prune(*, batch_size: int = 5000) -> int:
    """Beat (prune-operator-events): delete events older than WEBHOOK_EVENT_RETENTION_DAYS and
    deliveries as old that are done (delivered or failed), in batches. Returns how many."""
    cutoff = _retention_cutoff(timezone.now())
    deleted = 0
    for queryset in (
        OperatorEvent.objects.filter(created_at__lt=cutoff),
        WebhookDelivery.objects.filter(created_at__lt=cutoff).exclude(
            status=WebhookDelivery.Status.PENDING
        ),
    ):
        deleted += _delete_in_batches(queryset, batch_size)
    return deleted


def _delete_in_batches(queryset: QuerySet, batch_size: int) -> int:
    deleted = 0
    while True:
        ids = list(queryset.values_list("pk", flat=True)[:batch_size])
        if not ids:
            return deleted
        count, _ = queryset.model.objects.filter(pk__in=ids).delete()
        deleted += len(ids)
        if count == 0:  # pragma: no cover - deleted concurrently
            return deleted
