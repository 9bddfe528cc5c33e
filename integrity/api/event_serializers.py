"""The ``data`` of the ``integrity.*`` events (gin_platform/events/catalogue.py names them;
integrity/services/events.py builds them). A player is named in full only to their own
operator; any other operator's player by screen name and an opaque id."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.serializers import Money


class IntegrityPlayerData(serializers.Serializer):
    own = serializers.BooleanField(help_text="Whether the player is one of yours")
    player_id = serializers.UUIDField(required=False, help_text="Your player's id (own only)")
    external_ref = serializers.CharField(
        required=False, help_text="Your own reference for the player (own only)"
    )
    masked_id = serializers.CharField(
        required=False,
        help_text="Another operator's player: an opaque id, stable in your events only",
    )
    screen_name = serializers.CharField(allow_null=True)


class RefundLineData(IntegrityPlayerData):
    amount = Money()


class CaseOpenedEventData(serializers.Serializer):
    case_id = serializers.IntegerField()
    signals = serializers.ListField(
        child=serializers.CharField(), help_text="What raised it (soft_play, player_report...)"
    )
    players = IntegrityPlayerData(many=True)
    opened_at = serializers.DateTimeField()


class ColluderData(IntegrityPlayerData):
    operator_recovers = serializers.BooleanField(
        required=False,
        help_text="Seamless wallet, your player: the amount was taken from your outside "
        "account; recover it from the player's balance, which you keep",
    )


class CaseActionEventData(serializers.Serializer):
    case_id = serializers.IntegerField()
    action = serializers.ChoiceField(
        choices=[
            "warn",
            "suspend",
            "lift_suspension",
            "block_pairing",
            "ban",
            "confiscation_proposed",
            "confiscation_executed",
            "confiscation_rejected",
            "confiscation_failed",
        ]
    )
    player = IntegrityPlayerData(allow_null=True)
    other_player = IntegrityPlayerData(allow_null=True)
    at = serializers.DateTimeField()
    message = serializers.CharField(required=False, help_text="warn: what to tell the player")
    shared_with_network = serializers.BooleanField(
        required=False, help_text="ban: every network member is told"
    )
    confiscation_id = serializers.IntegerField(required=False)
    status = serializers.CharField(required=False, help_text="The confiscation's status")
    amount = Money(required=False, help_text="The confiscation's total")
    colluder = ColluderData(required=False)
    refunds = RefundLineData(many=True, required=False)


class CaseClosedEventData(serializers.Serializer):
    case_id = serializers.IntegerField()
    players = IntegrityPlayerData(many=True)
    actions = serializers.ListField(child=serializers.CharField(), help_text="The actions taken")
    closed_at = serializers.DateTimeField()


class ReportReceivedEventData(serializers.Serializer):
    report_id = serializers.IntegerField()
    reporter = IntegrityPlayerData()
    reported = IntegrityPlayerData()
    match_id = serializers.IntegerField()
    category = serializers.CharField(help_text="collusion, chip_dumping, bot, abuse or other")
    status = serializers.CharField(help_text="received, or under_review once in a case")
    received_at = serializers.DateTimeField()
