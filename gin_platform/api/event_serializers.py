"""The operator events API, webhook subscriptions, and the ``data`` of each event type
(documentation of the webhooks and of the events feed: gin_platform/events/catalogue.py names
them; the payloads are built where each event is made true)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import Money
from gin_platform.events.catalogue import ALL, EVENT_TYPES


# --- Payloads -----------------------------------------------------------------------------
class PlayerRefData(serializers.Serializer):
    player_id = serializers.UUIDField(help_text="The player's id on the platform")
    external_ref = serializers.CharField(help_text="Your own reference for the player")


class CashierEventData(PlayerRefData):
    """deposit.completed, withdrawal.completed."""

    transaction_id = serializers.IntegerField(
        help_text="The ledger transaction (GET .../wallet/transactions lists it)"
    )
    reference = serializers.CharField(help_text="Your reference, by default the Idempotency-Key")
    amount = Money()
    balance = Money(help_text="The wallet balance after the movement")


class ProblemRefData(serializers.Serializer):
    type = serializers.CharField(help_text="The problem type, as the API answered it")
    title = serializers.CharField()
    detail = serializers.CharField()


class CashierRefusedEventData(PlayerRefData):
    """deposit.refused, withdrawal.refused."""

    reference = serializers.CharField(help_text="Your reference, by default the Idempotency-Key")
    amount = Money()
    problem = ProblemRefData(help_text="Why: the problem the request was answered with")


class LimitChangedEventData(PlayerRefData):
    kind = serializers.ChoiceField(choices=["deposit", "loss"])
    period = serializers.ChoiceField(choices=["day", "week", "month"])
    old = Money(allow_null=True, help_text="The limit in force before; null: none")
    new = Money(allow_null=True, help_text="The limit asked for; null: removed")
    effective_at = serializers.DateTimeField(
        help_text="When `new` applies: now for a decrease; for an increase or removal after "
        "the jurisdiction's cooling-off (24 h; es 3 days, it 7 days)"
    )
    pending = serializers.BooleanField(help_text="True until `effective_at` (an increase)")


class BreakEventData(PlayerRefData):
    """self_exclusion.started, time_out.started."""

    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    days = serializers.IntegerField()
    by = serializers.ChoiceField(
        choices=["player", "operator", "staff", "system"],
        help_text="Who took it: the player themselves (`/me/...`), you (your API key), the "
        "platform's staff or the platform",
    )


class SeatEventData(PlayerRefData):
    match_id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    room_id = serializers.IntegerField()
    position = serializers.IntegerField(help_text="Seat 0 or 1")
    is_practice = serializers.BooleanField()


class SeatTakenEventData(SeatEventData):
    buy_in = Money(help_text="Moved into the game's escrow (practice: chips)")


class SeatLeftEventData(SeatEventData):
    refunded = Money(allow_null=True, help_text="The buy-in returned; null after a forfeit")
    forfeited = serializers.BooleanField(
        help_text="Left a running game: the match is forfeited (game.finished follows)"
    )


class GamePlayerRefData(serializers.Serializer):
    """A player of a game: yours by id and reference; another operator's player at a network
    table by screen name only (docs/network.md "Tenancy")."""

    player_id = serializers.UUIDField(
        required=False, help_text="Your player's id; absent for another operator's player"
    )
    external_ref = serializers.CharField(
        required=False, help_text="Your own reference; absent for another operator's player"
    )
    screen_name = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="Another operator's player at a network table: the screen name",
    )
    operator = serializers.CharField(
        required=False,
        help_text="Another operator's player, when the network reveals operators: its name",
    )


class HandEndedEventData(serializers.Serializer):
    match_id = serializers.IntegerField()
    hand = serializers.IntegerField(help_text="The hand's number in the match, from 1")
    outcome = serializers.CharField(
        help_text="How it ended: knock, undercut, gin, big_gin or void (R7, no score)"
    )
    knocker_seat = serializers.IntegerField(allow_null=True)
    winner_seat = serializers.IntegerField(allow_null=True, help_text="Null: void")
    winner = GamePlayerRefData(allow_null=True, help_text="The player of winner_seat")
    points = serializers.IntegerField(help_text="Points the winner scored")
    score = serializers.ListField(
        child=serializers.IntegerField(), help_text="Match points after the hand, by seat"
    )


class VoidedStakeData(serializers.Serializer):
    seat = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="Minor units given back")
    currency = serializers.CharField()


class GameVoidedEventData(serializers.Serializer):
    match_id = serializers.IntegerField()
    reason = serializers.CharField(
        help_text="interrupted: a platform outage past the limit; a play session's end "
        "(duration_limit...); tournament_cancelled: the match's tournament was cancelled (R14)"
    )
    refunded = VoidedStakeData(many=True, help_text="What each seat put in, given back")


class SettlementFailedEventData(serializers.Serializer):
    match_id = serializers.IntegerField()
    problem = ProblemRefData(help_text="What went wrong (a generic internal-error if unknown)")


class WalletCallFailedEventData(PlayerRefData):
    """Built by wallet.services.seamless: the money is flat (``amount``, ``currency``)."""

    transaction_id = serializers.UUIDField(help_text="The call's id, sent to your wallet with it")
    kind = serializers.ChoiceField(choices=["debit", "credit", "rollback"])
    amount = serializers.CharField(help_text="Decimal string, in `currency`")
    currency = serializers.CharField()
    reason = serializers.CharField(help_text="buy_in, payout, refund, return or rollback")
    purpose = serializers.CharField(help_text="What the call is for (unique per call)")
    attempts = serializers.IntegerField(help_text="Attempts made so far")
    last_error = serializers.CharField(help_text="A short generic error class")
    since = serializers.DateTimeField(help_text="When the call was first made")


# --- The events API -------------------------------------------------------------------------
@extend_schema_field({"type": "string", "enum": sorted(EVENT_TYPES)})
class EventTypeField(serializers.CharField):
    pass


class OperatorEventOutput(serializers.Serializer):
    """An event, exactly as its webhook body (docs/webhooks.md)."""

    id = serializers.UUIDField(help_text="The event id: webhook-id, X-Gin-Delivery")
    type = EventTypeField()
    created_at = serializers.DateTimeField()
    data = serializers.JSONField(  # type: ignore[assignment]  # a declared field, not Serializer.data (DRF's metaclass moves it)
        help_text="The payload of the type, as in its webhook (OpenAPI `webhooks`)"
    )


class OperatorEventPageOutput(serializers.Serializer):
    results = OperatorEventOutput(many=True)
    next_cursor = serializers.CharField(
        allow_null=True,
        help_text="Pass as `cursor` to read on (also when has_more is false: new events "
        "come after it); null when nothing has been read yet",
    )
    has_more = serializers.BooleanField(help_text="True: read on at once")


@extend_schema_field(
    {"type": "string", "enum": [ALL, *sorted(EVENT_TYPES)]},
)
class SubscriptionTypeField(serializers.CharField):
    pass


class WebhookSubscriptionInput(StrictInput):
    event_types = serializers.ListField(
        child=SubscriptionTypeField(),
        allow_empty=True,
        help_text='The types your webhook receives: ["*"] for every type, [] for none',
    )


class WebhookSubscriptionOutput(serializers.Serializer):
    event_types = serializers.ListField(child=SubscriptionTypeField())
