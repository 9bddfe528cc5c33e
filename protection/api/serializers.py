"""Request and answer shapes of player protection's API (docs/player-protection.md)."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.fields import DecimalString
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import Money
from gin_platform.tenancy.jurisdictions import JURISDICTIONS
from protection.models import EndReason, PlaySession, RealityCheck
from protection.services.sessions import MAX_DURATION_MINUTES


class SessionStartInput(StrictInput):
    duration_minutes = serializers.IntegerField(
        allow_null=True,
        required=False,
        default=None,
        help_text=f"How long the session may last, 1 to {MAX_DURATION_MINUTES} minutes",
    )
    loss_limit = DecimalString(
        allow_null=True,
        required=False,
        default=None,
        help_text="The most the session may lose, in the wallet currency (decimal string)",
    )


class RealityCheckAnswerInput(StrictInput):
    answer = serializers.ChoiceField(choices=RealityCheck.Answer.choices)


class RealityCheckLinksOutput(serializers.Serializer):
    history = serializers.CharField()
    limits = serializers.CharField()


class RealityCheckOutput(serializers.Serializer):
    id = serializers.IntegerField()
    session_id = serializers.IntegerField()
    due_at = serializers.DateTimeField()
    shown_at = serializers.DateTimeField()
    elapsed_seconds = serializers.IntegerField(help_text="Time played this session")
    net_position = Money(help_text="Wins minus losses this session (negative: down)")
    answer = serializers.ChoiceField(choices=RealityCheck.Answer.choices, allow_null=True)
    answered_at = serializers.DateTimeField(allow_null=True)
    answers = serializers.ListField(child=serializers.CharField())
    links = RealityCheckLinksOutput()


class SessionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    state = serializers.ChoiceField(choices=PlaySession.State.choices)
    jurisdiction = serializers.ChoiceField(choices=JURISDICTIONS)
    started_at = serializers.DateTimeField()
    elapsed_seconds = serializers.IntegerField()
    duration_limit_minutes = serializers.IntegerField(allow_null=True)
    duration_ends_at = serializers.DateTimeField(allow_null=True)
    loss_limit = Money(allow_null=True)
    net_position = Money(
        help_text="Wins minus losses of this session's games that are over, from the ledger"
    )
    in_play = Money(help_text="Stakes at tables now (games not settled yet)")
    limits_set_at = serializers.DateTimeField(allow_null=True)
    first_buy_in_at = serializers.DateTimeField(allow_null=True)
    reality_check_minutes = serializers.IntegerField(allow_null=True)
    next_reality_check_at = serializers.DateTimeField(allow_null=True)
    reality_check = RealityCheckOutput(allow_null=True, help_text="Waiting for an answer")
    limit_reached = serializers.ChoiceField(choices=["duration", "loss"], allow_null=True)
    limit_reached_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    end_reason = serializers.ChoiceField(choices=EndReason.choices, allow_null=True)


class ProfileOutput(serializers.Serializer):
    jurisdiction = serializers.ChoiceField(choices=JURISDICTIONS)
    session_limits_required = serializers.BooleanField()
    limit_reached = serializers.ChoiceField(choices=["end_of_hand", "finish_match"])
    session_ends_on_limit = serializers.BooleanField()
    reality_check_minutes = serializers.IntegerField(allow_null=True)
    time_out_days = serializers.ListField(child=serializers.IntegerField())
    self_exclusion_min_days = serializers.IntegerField()


class SessionStateOutput(serializers.Serializer):
    profile = ProfileOutput()
    session = SessionOutput(allow_null=True, help_text="The open session; null: none")
