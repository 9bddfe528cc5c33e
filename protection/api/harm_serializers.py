"""Request and response shapes of the markers of harm's staff endpoints (the
``player.flagged`` webhook's data is in event_serializers.py, with the other events')."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.inputs import StrictInput
from protection.models import HarmRuleCode

EVIDENCE_HELP = (
    'The figures that met the rule, by rule (docs/player-protection.md "Markers of harm"): '
    "amounts as decimal strings with their currency, times in UTC"
)


# --- Staff: inputs ------------------------------------------------------------------------------
class HarmRuleUpdateInput(StrictInput):
    enabled = serializers.BooleanField(required=False)
    params = serializers.DictField(
        required=False,
        help_text="The parameters to change (the others keep their values); each rule names "
        "its own, with their bounds",
    )


class HarmFlagFilterInput(serializers.Serializer):
    player_id = serializers.UUIDField(required=False)
    rule = serializers.ChoiceField(choices=HarmRuleCode.choices, required=False)
    day_from = serializers.DateField(required=False, help_text="The first UTC day, included")
    day_to = serializers.DateField(required=False, help_text="The last UTC day, included")

    def validate(self, attrs: dict) -> dict:
        first, last = attrs.get("day_from"), attrs.get("day_to")
        if first is not None and last is not None and first > last:
            raise serializers.ValidationError({"day_to": ["day_to is before day_from"]})
        return attrs


# --- Staff: outputs -----------------------------------------------------------------------------
class HarmRuleOutput(serializers.Serializer):
    code = serializers.ChoiceField(choices=HarmRuleCode.choices)
    summary = serializers.CharField()
    enabled = serializers.BooleanField()
    params = serializers.DictField(help_text="The parameters in force")
    defaults = serializers.DictField(help_text="The documented defaults")
    updated_at = serializers.DateTimeField()
    updated_by = serializers.CharField(
        allow_null=True, help_text="The staff user of the last change; null: never changed"
    )


class FlaggedPlayerOutput(serializers.Serializer):
    player_id = serializers.UUIDField()
    operator_id = serializers.UUIDField()
    external_ref = serializers.CharField()
    screen_name = serializers.CharField(allow_null=True)


class HarmFlagOutput(serializers.Serializer):
    id = serializers.IntegerField()
    player = FlaggedPlayerOutput()
    rule = serializers.ChoiceField(choices=HarmRuleCode.choices)
    day = serializers.DateField(help_text="The UTC day the job looked at")
    evidence = serializers.DictField(help_text=EVIDENCE_HELP)
    created_at = serializers.DateTimeField()
