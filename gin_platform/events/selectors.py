"""Reads of the operator's webhook deliveries, scoped to the caller's operator (another
operator's delivery is reported exactly like a missing one: 404)."""

from __future__ import annotations

from django.db.models import QuerySet

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator, WebhookDelivery
from gin_platform.tenancy.selectors import as_uuid


def webhook_delivery_list(
    *, operator: Operator, status: str | None = None, event_type: str | None = None
) -> QuerySet[WebhookDelivery]:
    deliveries = WebhookDelivery.objects.filter(operator=operator).prefetch_related("attempts")
    if status:
        deliveries = deliveries.filter(status=status)
    if event_type:
        deliveries = deliveries.filter(event_type=event_type)
    return deliveries


def webhook_delivery_get(*, operator: Operator, delivery_id: object) -> WebhookDelivery:
    delivery_uuid = as_uuid(delivery_id)
    delivery = (
        WebhookDelivery.objects.filter(operator=operator, pk=delivery_uuid).first()
        if delivery_uuid
        else None
    )
    if delivery is None:
        raise NotFoundProblem(f"No webhook delivery {delivery_id} for this operator")
    return delivery
