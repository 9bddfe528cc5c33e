"""Request and response shapes of integrity's endpoints (staff: cases; players: reports)."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import Money
from integrity.models import Alert, Case, CaseAction, Confiscation, PlayerReport

ACTION_KINDS = ("warn", "suspend", "lift_suspension", "block_pairing", "ban")


# --- Staff: inputs ------------------------------------------------------------------------------
class AlertFilterInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=Alert.Status.choices, required=False)


class CaseFilterInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=Case.Status.choices, required=False)


class AlertDismissInput(StrictInput):
    reason = serializers.CharField(max_length=4000)


class CaseOpenInput(StrictInput):
    title = serializers.CharField(max_length=200)
    alert_ids = serializers.ListField(
        child=serializers.IntegerField(), min_length=1, max_length=200
    )


class CaseAlertsInput(StrictInput):
    alert_ids = serializers.ListField(
        child=serializers.IntegerField(), min_length=1, max_length=200
    )


class CaseNoteInput(StrictInput):
    text = serializers.CharField(max_length=4000)


class CaseActionInput(StrictInput):
    kind = serializers.ChoiceField(choices=[(k, k) for k in ACTION_KINDS])
    player_id = serializers.UUIDField()
    other_player_id = serializers.UUIDField(
        required=False, help_text="block_pairing: the other player of the pair"
    )
    reason = serializers.CharField(max_length=4000)


class CaseCloseInput(StrictInput):
    resolution = serializers.CharField(max_length=4000)


class RefundInput(StrictInput):
    player_id = serializers.UUIDField()
    amount = serializers.CharField(help_text='Decimal string in `currency`, e.g. "12.50"')


class ConfiscationInput(StrictInput):
    colluder_id = serializers.UUIDField()
    currency = serializers.CharField(max_length=3)
    refunds = RefundInput(many=True)
    reason = serializers.CharField(max_length=500)


class ConfiscationDecisionInput(StrictInput):
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


# --- Staff: outputs -----------------------------------------------------------------------------
class PlayerShownOutput(serializers.Serializer):
    player_id = serializers.UUIDField(required=False, help_text="Only for a player in your scope")
    operator_id = serializers.UUIDField(required=False, help_text="Only for a player in your scope")
    external_ref = serializers.CharField(
        required=False, help_text="Only for a player in your scope"
    )
    screen_name = serializers.CharField(allow_null=True)
    masked_id = serializers.CharField(
        required=False, help_text="An opaque id for a player outside your operator scope"
    )


class AlertOutput(serializers.Serializer):
    id = serializers.IntegerField()
    signal = serializers.ChoiceField(choices=Alert.Signal.choices)
    player = PlayerShownOutput()
    other_player = PlayerShownOutput(allow_null=True)
    score = serializers.FloatField()
    threshold = serializers.FloatField()
    reasoning = serializers.JSONField(help_text="The statistic, its inputs and the hands behind it")
    status = serializers.ChoiceField(choices=Alert.Status.choices)
    case_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class CaseSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Case.Status.choices)
    title = serializers.CharField()
    opened_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)


class NoteOutput(serializers.Serializer):
    id = serializers.IntegerField()
    author = serializers.CharField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class ActionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=CaseAction.Kind.choices)
    player = PlayerShownOutput(allow_null=True)
    other_player = PlayerShownOutput(allow_null=True)
    reason = serializers.CharField()
    actor = serializers.CharField()
    created_at = serializers.DateTimeField()


class ConfiscationOutput(serializers.Serializer):
    id = serializers.IntegerField()
    case_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Confiscation.Status.choices)
    colluder = PlayerShownOutput()
    amount = Money()
    refunds = serializers.ListField(child=serializers.DictField())
    reason = serializers.CharField()
    proposed_by = serializers.CharField()
    proposed_at = serializers.DateTimeField()
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    decision_note = serializers.CharField()
    result_ref = serializers.CharField(
        help_text="ledger_transaction:<id> once executed; the problem's slug if it failed"
    )


class CaseOutput(CaseSummaryOutput):
    resolution = serializers.CharField()
    players = PlayerShownOutput(many=True)
    alerts = AlertOutput(many=True)
    notes = NoteOutput(many=True)
    actions = ActionOutput(many=True)
    sanctions = serializers.ListField(child=serializers.DictField())
    confiscations = ConfiscationOutput(many=True)
    evidence = serializers.JSONField(
        help_text="Per pair of the case: the money flow between them game by game (each "
        "player's net), the colluder's winnings from the other, and the matches they played "
        "together with each hand's replay URL"
    )


# --- Players ----------------------------------------------------------------------------------
class PlayerReportInput(StrictInput):
    match_id = serializers.IntegerField()
    reported = serializers.CharField(
        max_length=64,
        required=False,
        help_text="The opponent: their screen name (at a network table) or player id",
    )
    seat = serializers.IntegerField(
        min_value=0, max_value=3, required=False, help_text="Or the opponent's seat position"
    )
    category = serializers.ChoiceField(
        choices=PlayerReport.Reason.choices, help_text="What the report is about"
    )
    text = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")


class PlayerReportOutput(serializers.Serializer):
    id = serializers.IntegerField()
    match_id = serializers.IntegerField()
    reported = serializers.CharField(help_text="The reported player's screen name, if any")
    category = serializers.ChoiceField(choices=PlayerReport.Reason.choices)
    status = serializers.ChoiceField(
        choices=PlayerReport.Status.choices,
        help_text="received, under_review (a case is open) or closed; never the outcome",
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
