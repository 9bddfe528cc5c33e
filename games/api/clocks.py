"""R13's clocks as the API shows them: a room's (and a match's) clock options, and each
seat's time bank and counts. Public to everybody at the table and to watchers: the clocks
carry no card."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.models import Match

TURN_STAGES = ("turn", "grace", "bank", "pause")  # pause: a reality check waits


class TurnClockOptionsInput(serializers.Serializer):
    """R13's room options; each defaults to the rule's value (docs/rules.md R13)."""

    time_bank_seconds = serializers.IntegerField(required=False, min_value=0, max_value=10**6)
    time_bank_top_up_seconds = serializers.IntegerField(
        required=False, min_value=0, max_value=10**6
    )
    reconnect_grace_seconds = serializers.IntegerField(required=False, min_value=0, max_value=10**6)
    auto_play_turns = serializers.IntegerField(required=False, min_value=0, max_value=10**6)


class TurnClockOptionsOutput(serializers.Serializer):
    time_bank_seconds = serializers.IntegerField(help_text="Each player's bank per match")
    time_bank_top_up_seconds = serializers.IntegerField(help_text="Added at each new hand")
    reconnect_grace_seconds = serializers.IntegerField(
        help_text="Added once to a disconnected seat's turn, before the bank"
    )
    auto_play_turns = serializers.IntegerField(
        help_text="Turns played for a player per match before a time-out forfeits"
    )


class SeatClockOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    time_bank_seconds = serializers.FloatField(help_text="The bank left (R13)")
    time_bank_used_seconds = serializers.FloatField()
    protected_turns = serializers.IntegerField(help_text="Turns given the reconnect grace")
    auto_played_turns = serializers.IntegerField(help_text="Turns the platform played (R13)")


def seat_clocks(match: Match) -> list[dict[str, Any]]:
    """Each seat's bank left at the start of the current stage (a running bank counts down
    from ``hand.turn_deadline``), what it used, its protected and auto-played turns."""
    clocks = match.clocks or {}
    seats = match.seat_count
    full = match.time_bank_seconds * 1000

    def per_seat(name: str, default: int) -> list[int]:
        return list(clocks.get(name) or [default] * seats)

    banks = per_seat("banks_ms", full if match.status == Match.Status.WAITING else 0)
    used = per_seat("bank_used_ms", 0)
    protected = per_seat("protected", 0)
    auto = per_seat("auto_played", 0)
    return [
        {
            "seat": seat,
            "time_bank_seconds": banks[seat] / 1000,
            "time_bank_used_seconds": used[seat] / 1000,
            "protected_turns": protected[seat],
            "auto_played_turns": auto[seat],
        }
        for seat in range(seats)
    ]


class ProtectionsOutput(serializers.Serializer):
    per_day = serializers.IntegerField(help_text="Protected turns a player may have per UTC day")
    used_today = serializers.IntegerField()
    left_today = serializers.IntegerField()
    resets_at = serializers.DateTimeField(help_text="The next UTC midnight")
