"""The webhooks of the event catalogue (gin_platform/events/catalogue.py) in the OpenAPI
document's ``webhooks`` (OpenAPI 3.1; listed in SPECTACULAR_SETTINGS ``WEBHOOKS``), one per
type but ``game.finished`` and ``game.settled`` (settlement/api/webhooks.py documents those).

Each body is the envelope ``{"id", "type", "created_at", "data"}`` with the type's ``data``
serializer; the postprocessing hook (gin_platform.http.openapi) adds the headers we send.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    OpenApiWebhook,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers

from gin_platform.api.event_examples import envelope
from gin_platform.events.catalogue import event_type_get, payload_serializer

# The examples carry no request_only: drf-spectacular builds a webhook's body as the
# receiving end's request, which it files under "response" (plumbing.process_webhooks).
ANSWERS = {
    200: OpenApiResponse(
        description="Any 2xx: delivered. Anything else, a redirect or no answer within 10 s "
        "is retried after 30 s, doubling up to 6 h, 10 attempts in all."
    )
}


def _component_name(name: str) -> str:
    """``deposit.completed`` -> ``DepositCompleted``."""
    return "".join(part.capitalize() for part in name.replace("_", ".").split("."))


def _envelope_serializer(name: str) -> type[serializers.Serializer]:
    type_field = extend_schema_field({"type": "string", "const": name})(
        type(f"{_component_name(name)}EventType", (serializers.CharField,), {})
    )
    return type(
        f"{_component_name(name)}Webhook",
        (serializers.Serializer,),
        {
            "__doc__": event_type_get(name).description,
            "id": serializers.UUIDField(
                help_text="The event id (webhook-id, X-Gin-Delivery): drop duplicates by it"
            ),
            "type": type_field(help_text=f"Always {name}; also in the X-Gin-Event header"),
            "created_at": serializers.DateTimeField(),
            "data": payload_serializer(name)(),
        },
    )


def _webhook(name: str) -> OpenApiWebhook:
    event = event_type_get(name)
    return OpenApiWebhook(
        name=name,
        decorator=extend_schema(
            summary=event.summary,
            description=event.description + " The events API lists it too "
            "(GET /api/v1/operators/me/events); docs/webhooks.md.",
            request=_envelope_serializer(name),
            responses=ANSWERS,
            examples=[OpenApiExample(event.summary, value=envelope(name))],
        ),
    )


DEPOSIT_COMPLETED = _webhook("deposit.completed")
DEPOSIT_REFUSED = _webhook("deposit.refused")
WITHDRAWAL_COMPLETED = _webhook("withdrawal.completed")
WITHDRAWAL_REFUSED = _webhook("withdrawal.refused")
LIMIT_CHANGED = _webhook("limit.changed")
SELF_EXCLUSION_STARTED = _webhook("self_exclusion.started")
TIME_OUT_STARTED = _webhook("time_out.started")
SEAT_TAKEN = _webhook("seat.taken")
SEAT_LEFT = _webhook("seat.left")
HAND_ENDED = _webhook("hand.ended")
GAME_VOIDED = _webhook("game.voided")
SETTLEMENT_FAILED = _webhook("settlement.failed")
WALLET_CALL_FAILED = _webhook("wallet.call_failed")
INTEGRITY_CASE_OPENED = _webhook("integrity.case_opened")
INTEGRITY_CASE_ACTION = _webhook("integrity.case_action")
INTEGRITY_CASE_CLOSED = _webhook("integrity.case_closed")
INTEGRITY_REPORT_RECEIVED = _webhook("integrity.report_received")
SESSION_STARTED = _webhook("session.started")
SESSION_REALITY_CHECK = _webhook("session.reality_check")
SESSION_LIMIT_REACHED = _webhook("session.limit_reached")
SESSION_ENDED = _webhook("session.ended")
PLAYER_FLAGGED = _webhook("player.flagged")
TOURNAMENT_REGISTERED = _webhook("tournament.registered")
TOURNAMENT_UNREGISTERED = _webhook("tournament.unregistered")
TOURNAMENT_STARTED = _webhook("tournament.started")
TOURNAMENT_MATCH_READY = _webhook("tournament.match_ready")
TOURNAMENT_ELIMINATED = _webhook("tournament.eliminated")
TOURNAMENT_PRIZE_PAID = _webhook("tournament.prize_paid")
TOURNAMENT_FINISHED = _webhook("tournament.finished")
TOURNAMENT_CANCELLED = _webhook("tournament.cancelled")
