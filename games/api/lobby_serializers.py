"""The lobby's output serializers (R11: rooms, their tables and who sits there), beside
``games.api.serializers``' (shape only, no rules; the same whitelist rule)."""

from __future__ import annotations

from rest_framework import serializers

from games.api import clocks as clock_api
from games.api.serializers import choice
from games.models import BotLevel, Variant
from gin_platform.api.serializers import OptionallyDisplayedMoney


class LobbySeatOutput(serializers.Serializer):
    position = serializers.IntegerField()
    display_name = serializers.CharField(
        allow_null=True, help_text="Null for a free seat, and at every network table"
    )
    screen_name = serializers.CharField(
        allow_null=True, help_text="The seated player's screen name (docs/network.md)"
    )
    operator = serializers.CharField(
        allow_null=True,
        help_text="Network tables with operators revealed: the player's operator's name",
    )
    bot_level = choice(
        BotLevel.choices, allow_null=True, help_text="The house bot's level; null for a person"
    )


class LobbyTableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    state = choice(("empty", "waiting", "playing"))
    match_id = serializers.IntegerField(allow_null=True)
    free_seats = serializers.IntegerField()
    stake_per_point = OptionallyDisplayedMoney(allow_null=True)
    seats = LobbySeatOutput(many=True)


class LobbyRoomOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    variant = choice(Variant.choices)
    rules = serializers.JSONField()
    target = serializers.IntegerField(allow_null=True)
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
    bot_enabled = serializers.BooleanField()
    bot_level = choice(
        BotLevel.choices,
        allow_null=True,
        help_text="Practice rooms: the house bot's level here (docs/engine.md); else null",
    )
    fee_bps = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    turn_clock = clock_api.TurnClockOptionsOutput()
    seats = serializers.IntegerField(help_text="Seats at each table: 2, 3 or 4 (R12)")
    prize_table = serializers.CharField(help_text="How a 3-4 player pot is shared (R12)")
    stake = OptionallyDisplayedMoney(allow_null=True)
    stake_per_point_choices = OptionallyDisplayedMoney(many=True)
    cashier_min = OptionallyDisplayedMoney(allow_null=True)
    cashier_max = OptionallyDisplayedMoney(allow_null=True)
    free_seats = serializers.IntegerField()
    tables_running = serializers.IntegerField(help_text="Tables where a game is being played")
    tables_waiting = serializers.IntegerField(
        help_text="Tables where somebody waits for an opponent"
    )
    players_waiting = serializers.IntegerField(
        help_text="Players on the room's waiting list (docs/network.md)"
    )
    tables = LobbyTableOutput(many=True)
