"""Request and response shapes of the linked-accounts endpoints (the operator's)."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.inputs import StrictInput

LINK_SOURCES = ("operator", "platform", "risk_team")


class PlayerLinkInput(StrictInput):
    player_id = serializers.UUIDField(
        help_text="The other player: one of your own (another operator's player is answered "
        "like an unknown one, 422 link-invalid)."
    )
    kind = serializers.ChoiceField(
        choices=("household", "associate"),
        help_text="household: they live together; associate: known to play together.",
    )


class PlayerLinkOutput(serializers.Serializer):
    id = serializers.IntegerField()
    player_id = serializers.UUIDField(help_text="The player of the path.")
    other_player_id = serializers.UUIDField(help_text="The other player: always one of yours.")
    kind = serializers.ChoiceField(
        choices=(
            "device",
            "address",
            "payment_instrument",
            "household",
            "associate",
            "transfers",
            "case_block",
        ),
        help_text="Why they are linked: an identifier both were seen with, a link you "
        "declared, or the risk team's.",
    )
    made_by = serializers.ChoiceField(
        choices=LINK_SOURCES,
        help_text="operator: you declared it (you may end it); platform: found from shared "
        "identifiers; risk_team: set from a case.",
    )
    seen_at = serializers.DateTimeField(
        allow_null=True,
        help_text="For a link found from an identifier: when it was seen. The identifier "
        "itself is never stored.",
    )
    created_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True, help_text="Null while in force.")


class PlayerIdentifierInput(StrictInput):
    kind = serializers.ChoiceField(
        choices=("payment_instrument", "device", "address"),
        help_text="payment_instrument: your payment provider's fingerprint of a card or account "
        "(never a card number); device: your device id; address: a client IP address.",
    )
    value = serializers.CharField(
        max_length=200,
        help_text="The identifier, kept only as a keyed hash (HMAC-SHA256); never stored, logged "
        "or returned.",
    )


class PlayerIdentifierOutput(serializers.Serializer):
    player_id = serializers.UUIDField()
    kind = serializers.CharField()
    first_seen_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField()
