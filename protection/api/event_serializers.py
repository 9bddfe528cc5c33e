"""The ``data`` of the ``session.*`` events (gin_platform/events/catalogue.py names them;
protection/services builds them): the player's play session, for operators who render
their own client (docs/player-protection.md "Events"); and of ``player.flagged``, a marker
of harm's flag (docs/player-protection.md "Markers of harm")."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.event_serializers import PlayerRefData
from gin_platform.api.serializers import Money
from protection.api.harm_serializers import EVIDENCE_HELP
from protection.models import HarmRuleCode


class SessionStartedEventData(PlayerRefData):
    session_id = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    duration_limit_minutes = serializers.IntegerField(allow_null=True)
    loss_limit = Money(allow_null=True)
    reality_check_minutes = serializers.IntegerField(
        allow_null=True, help_text="Minutes between reality checks (null: none)"
    )


class SessionRealityCheckEventData(PlayerRefData):
    session_id = serializers.IntegerField()
    reality_check_id = serializers.IntegerField(
        help_text="Answer it: POST /api/v1/me/reality-checks/{id} (the player's token)"
    )
    due_at = serializers.DateTimeField()
    shown_at = serializers.DateTimeField(help_text="The turn boundary it was shown at")
    elapsed_seconds = serializers.IntegerField()
    net_position = Money(help_text="Wins minus losses this session (negative: down)")


class SessionLimitReachedEventData(PlayerRefData):
    session_id = serializers.IntegerField()
    limit = serializers.ChoiceField(choices=["duration", "loss"])
    reached_at = serializers.DateTimeField()
    elapsed_seconds = serializers.IntegerField()
    net_position = Money()
    session_ended = serializers.BooleanField(
        help_text="Whether the profile ends the session now (else it only takes no buy-in)"
    )


class SessionEndedEventData(PlayerRefData):
    session_id = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=["player", "duration_limit", "loss_limit", "idle", "break"]
    )
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField()
    net_position = Money()


class PlayerFlaggedEventData(PlayerRefData):
    flag_id = serializers.IntegerField()
    rule = serializers.ChoiceField(choices=HarmRuleCode.choices)
    day = serializers.DateField(help_text="The UTC day the job looked at")
    evidence = serializers.DictField(help_text=EVIDENCE_HELP)
    flagged_at = serializers.DateTimeField()
