"""The operator's event log, webhook subscriptions and webhook deliveries (docs/webhooks.md
"Events API", "Subscriptions"): thin views over gin_platform.events."""

from __future__ import annotations

import json

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import event_examples as examples
from gin_platform.api import examples as platform_examples
from gin_platform.api.event_serializers import (
    OperatorEventOutput,
    OperatorEventPageOutput,
    WebhookSubscriptionInput,
    WebhookSubscriptionOutput,
)
from gin_platform.api.inputs import NoBody, text_filter, validated
from gin_platform.api.serializers import (
    WebhookDeliveryOutput,
)
from gin_platform.events import event_log
from gin_platform.events.selectors import webhook_delivery_get, webhook_delivery_list
from gin_platform.events.webhooks import event_json, webhook_redeliver
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator
from gin_platform.http.problems import (
    ValidationProblem,
)
from gin_platform.tenancy.principals import operator_principal


def _item(event) -> dict:
    """The event exactly as its webhook body (the same JSON, created_at to the millisecond)."""
    return json.loads(
        event_json(
            event_id=event.pk, event_type=event.type, created_at=event.created_at, data=event.data
        )
    )


def _limit(request: Request) -> int:
    text = request.query_params.get("limit")
    if text is None:
        return event_log.DEFAULT_LIMIT
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= event_log.MAX_LIMIT):
        raise ValidationProblem(
            f"limit is a whole number from 1 to {event_log.MAX_LIMIT}",
            errors={"limit": [f"a whole number from 1 to {event_log.MAX_LIMIT}"]},
        )
    return int(text)


class OperatorEventListView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "cursor",
                str,
                description="The `next_cursor` of the previous page; none: from the oldest "
                "event kept (30 days)",
            ),
            OpenApiParameter(
                "limit", int, description=f"Events per page, 1 to {event_log.MAX_LIMIT} (100)"
            ),
            OpenApiParameter(
                "type",
                str,
                many=True,
                explode=True,
                description="Only these types: repeat it, or separate with commas",
            ),
        ],
        responses={200: OperatorEventPageOutput, 400: examples.EVENT_LIST_INVALID},
        tags=["webhooks"],
        operation_id="operators_me_events",
        summary="List events (catch up after downtime)",
        description="Every event of the operator in the last WEBHOOK_EVENT_RETENTION_DAYS (30) "
        "days, webhook URL or not, subscribed or not: oldest first by (created_at, id), each "
        "exactly the body its webhook has. Read on with `cursor` = `next_cursor` until "
        "`has_more` is false; keep the last `next_cursor` and poll with it later: no event "
        "is skipped or listed twice, even while new ones are recorded.",
        examples=examples.EVENT_LIST,
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        page = event_log.event_feed(
            operator=caller.operator,
            cursor=request.query_params.get("cursor") or None,
            types=event_log.event_types_parse(request.query_params.getlist("type")),
            limit=_limit(request),
        )
        body = {
            "results": [_item(event) for event in page.events],
            "next_cursor": page.next_cursor,
            "has_more": page.has_more,
        }
        return Response(body)  # items as their webhook bodies (OperatorEventPageOutput)


class OperatorEventDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses={200: OperatorEventOutput, 404: examples.EVENT_NOT_FOUND},
        tags=["webhooks"],
        operation_id="operators_me_event",
        summary="Show an event",
        description="One event by its id (the webhook's `id` and webhook-id header), as its "
        "webhook body. 404 for another operator's event or one past the retention.",
        examples=examples.EVENT_DETAIL,
    )
    def get(self, request: Request, event_id: str) -> Response:
        caller = operator_principal(request)
        event = event_log.event_get(operator=caller.operator, event_id=event_id)
        return Response(_item(event))  # as its webhook body (OperatorEventOutput)


class WebhookSubscriptionView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=WebhookSubscriptionOutput,
        tags=["webhooks"],
        operation_id="operators_me_webhook_subscriptions",
        summary="Show which events the webhook receives",
        description='The event types posted to the webhook URL; ["*"] (the default) is every '
        "type, including types added later.",
        examples=examples.SUBSCRIPTION,
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        types = event_log.subscription_get(operator=caller.operator)
        return Response(WebhookSubscriptionOutput({"event_types": types}).data)

    @extend_schema(
        request=WebhookSubscriptionInput,
        responses={200: WebhookSubscriptionOutput, 400: examples.SUBSCRIPTION_INVALID},
        tags=["webhooks"],
        operation_id="operators_me_webhook_subscriptions_set",
        summary="Choose which events the webhook receives",
        description='Replace the list: type names from the catalogue, ["*"] for every type '
        "or [] for none. Only deliveries are filtered: every event is still recorded and "
        "listed by GET /operators/me/events. Audited.",
        examples=examples.SUBSCRIPTION,
    )
    @idempotent
    def put(self, request: Request) -> Response:
        caller = operator_principal(request)
        data = validated(WebhookSubscriptionInput, request.data)
        types = event_log.subscription_set(
            operator=caller.operator,
            event_types=data["event_types"],
            actor=caller.actor,
        )
        return Response(WebhookSubscriptionOutput({"event_types": types}).data)


class WebhookDeliveryListView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = WebhookDeliveryOutput

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=["pending", "delivered", "failed"]),
            OpenApiParameter("event_type", str, description="An event type (docs/webhooks.md)"),
        ],
        responses=WebhookDeliveryOutput(many=True),
        tags=["webhooks"],
        summary="List webhook deliveries",
        description="Every event sent (or being sent) to the operator's webhook URL, newest "
        "first, with each attempt's status code, duration and error.",
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        deliveries = webhook_delivery_list(
            operator=caller.operator,
            status=text_filter(request, "status"),
            event_type=text_filter(request, "event_type"),
        )
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(WebhookDeliveryOutput(page, many=True).data)


class WebhookDeliveryDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=WebhookDeliveryOutput,
        tags=["webhooks"],
        summary="Show a webhook delivery",
        description="One event sent to the operator's webhook URL: its payload and every attempt.",
    )
    def get(self, request: Request, delivery_id: str) -> Response:
        caller = operator_principal(request)
        delivery = webhook_delivery_get(operator=caller.operator, delivery_id=delivery_id)
        return Response(WebhookDeliveryOutput(delivery).data)


class WebhookRedeliverView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={202: WebhookDeliveryOutput, 404: platform_examples.REDELIVER_NOT_FOUND},
        tags=["webhooks"],
        summary="Send a webhook again",
        description="Queue one more attempt at once, e.g. after fixing the receiving "
        "endpoint; a failed delivery becomes pending again. No body.",
        examples=platform_examples.REDELIVER,
    )
    @idempotent
    def post(self, request: Request, delivery_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        delivery = webhook_delivery_get(operator=caller.operator, delivery_id=delivery_id)
        delivery = webhook_redeliver(delivery=delivery)
        return Response(WebhookDeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)
