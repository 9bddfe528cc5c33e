"""Request and answer shapes of the quick seat (docs/matchmaking.md "API")."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from games.api.serializers import parse_amount
from games.models import Variant
from gin_platform.api.fields import DecimalString
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import DisplayedMoney
from gin_platform.money import CurrencyError, normalize_currency
from matchmaking.models import Ticket
from ratings.models import Family

AMOUNTS = ("stake", "stake_per_point", "cashier_amount")
MONEY_PLAY_AMOUNTS = ("stake_per_point", "cashier_amount")


class QuickSeatInput(StrictInput):
    variant = serializers.ChoiceField(choices=Variant.choices)
    currency = serializers.CharField(max_length=3, help_text="ISO 4217, as the room plays")
    stake = DecimalString(
        required=False,
        allow_null=True,
        default=None,
        help_text="First To Knock and Match Play: the stake (decimal string)",
    )
    stake_per_point = DecimalString(
        required=False,
        allow_null=True,
        default=None,
        help_text="Money Play: one of the room's stakes per point (decimal string)",
    )
    cashier_amount = DecimalString(
        required=False,
        allow_null=True,
        default=None,
        help_text="Money Play: what to bring to the table cashier (decimal string)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The amounts in minor units of ``currency``; each variant's own amounts, and only
        those (First To Knock and Match Play: ``stake``; Money Play: ``stake_per_point`` and
        ``cashier_amount``)."""
        try:
            currency = normalize_currency(attrs["currency"])
        except CurrencyError as exc:
            raise serializers.ValidationError({"currency": [str(exc)]}) from exc
        money_play = attrs["variant"] == Variant.MONEY
        wanted = MONEY_PLAY_AMOUNTS if money_play else ("stake",)
        errors = {
            name: [
                gettext("This variant needs it.")
                if name in wanted
                else gettext("Only another variant takes it.")
            ]
            for name in AMOUNTS
            if (attrs[name] is None) == (name in wanted)
        }
        if errors:
            raise serializers.ValidationError(errors)
        return {
            **attrs,
            "currency": currency,
            **{name: parse_amount(attrs[name], currency, name) for name in AMOUNTS},
        }


class BandOutput(serializers.Serializer):
    low = serializers.FloatField(allow_null=True, help_text="null: no lower bound")
    high = serializers.FloatField(allow_null=True, help_text="null: no upper bound")


class TicketSeatOutput(serializers.Serializer):
    table_id = serializers.IntegerField()
    match_id = serializers.IntegerField()
    position = serializers.IntegerField()


class TicketOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Ticket.Status.choices)
    variant = serializers.ChoiceField(choices=Variant.choices)
    currency = serializers.CharField()
    stake = DisplayedMoney(allow_null=True, help_text="First To Knock, Match Play")
    stake_per_point = DisplayedMoney(allow_null=True, help_text="Money Play")
    cashier_amount = DisplayedMoney(allow_null=True, help_text="Money Play")
    room_id = serializers.IntegerField(help_text="The room whose tables the quick seat fills")
    network = serializers.BooleanField(help_text="A network room: every member's players meet")
    family = serializers.ChoiceField(choices=Family.choices)
    rating = serializers.FloatField(help_text="The player's rating when they asked (R15)")
    band = BandOutput(
        allow_null=True,
        help_text="While waiting: the ratings the player's band holds now (R15: +-100, 50 "
        "wider every 10 s, any opponent after 60 s); null once it stopped waiting",
    )
    joined_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="It ends `expired` then, if still waiting")
    ended_at = serializers.DateTimeField(allow_null=True)
    seat = TicketSeatOutput(allow_null=True, help_text="seated: the table, match and position")
    problem_type = serializers.CharField(
        allow_null=True, help_text="refused: the problem type the seat was refused with"
    )
