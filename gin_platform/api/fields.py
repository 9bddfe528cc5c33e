"""Fields shared by every app's serializers: request amounts, and JSON objects passed
through as stored."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from gin_platform.money import AMOUNT_PATTERN


@extend_schema_field(
    {
        "type": "string",
        "example": "12.50",
        "pattern": AMOUNT_PATTERN,
        "description": "A decimal string of ASCII digits with at most the currency's "
        "decimals; never a JSON number",
    }
)
class DecimalString(serializers.Field):
    """A money field of a request, kept exactly as the client sent it (the raw JSON value).

    The one rule for amounts (``gin_platform.money.AMOUNT_PATTERN``, docs/wallet.md) is
    applied where the currency is known, by ``wallet.amounts.parse_money`` / ``parse_amount``:
    a JSON number reaches that rule as a number and is refused (``amount-invalid``) instead of
    being turned into a string here, as DRF's CharField would do."""

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


@extend_schema_field({"type": "object"})
class JsonObject(serializers.JSONField):
    """A JSON object kept as the engine or the ledger wrote it (a hand's outcome, Money Play
    scores, a rate snapshot), its keys told by the field's help_text. Said ``type: object``
    in the document: a bare JSONField is "any value", and a nullable one becomes an
    ``anyOf`` whose first member accepts everything, null included."""


@extend_schema_field({"type": "string", "format": "uri"})
class TargetUrl(serializers.CharField):
    """A URL the platform will call: a webhook URL, a seamless wallet's ``base_url``. Only its
    type is checked here; the service applies the rules (gin_platform.events.webhook_targets) and
    refuses with its own problem type and ``field``, the same answer for every way a URL can
    be wrong (a URLField would answer some of them 400 validation-error first)."""
