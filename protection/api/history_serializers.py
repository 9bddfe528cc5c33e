"""Shapes of a player's history (docs/player-protection.md "History"): its query
parameters and its three answers. The same shapes for the player and for their operator."""

from __future__ import annotations

from rest_framework import serializers

from games.protection_selectors import MATCH_STATUSES, OUTCOMES, VARIANTS
from gin_platform.api.serializers import Money
from wallet.selectors.history import CATEGORIES, COUNTED_KINDS, KINDS, PERIODS


# --- Query parameters ------------------------------------------------------------------------
class MovementFilterInput(serializers.Serializer):
    category = serializers.ChoiceField(
        choices=list(CATEGORIES),
        required=False,
        help_text="Only the movements of one category: deposit, withdrawal, play (buy-ins, "
        "refunds, voids, payouts, confiscations) or other",
    )


class SummaryFilterInput(serializers.Serializer):
    period = serializers.ChoiceField(
        choices=list(PERIODS),
        required=False,
        default="day",
        help_text="One row per UTC day (the default) or per UTC calendar month",
    )


# --- Matches ---------------------------------------------------------------------------------
class HistoryOpponentOutput(serializers.Serializer):
    position = serializers.IntegerField()
    screen_name = serializers.CharField(allow_null=True)
    display_name = serializers.CharField(
        allow_null=True, help_text="Null at a network table for another operator's player"
    )
    operator = serializers.CharField(
        allow_null=True, help_text="A network table's other operator, when the network shows it"
    )


class MatchHistoryOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=MATCH_STATUSES)
    variant = serializers.ChoiceField(choices=VARIANTS)
    is_practice = serializers.BooleanField()
    seats = serializers.IntegerField(help_text="Seats at the table (2; R12: 3 or 4)")
    position = serializers.IntegerField(help_text="The player's seat")
    outcome = serializers.ChoiceField(
        choices=list(OUTCOMES),
        help_text="won, lost, tied (no single winner), left (before the start: the stake was "
        "refunded), voided (R13: every stake returned), in_play",
    )
    place = serializers.IntegerField(allow_null=True, help_text="R12: the player's place")
    opponents = HistoryOpponentOutput(many=True)
    stake = Money(allow_null=True, help_text="First To Knock, Match Play: the room's stake")
    stake_per_point = Money(allow_null=True, help_text="Money Play: the stake per point")
    buy_in = Money(help_text="What the player put into the game's escrow to sit")
    net = Money(
        help_text="From the ledger: refunds, voids and payouts into the player's wallet less "
        "their buy-ins, in the wallet's currency (chips at a practice table)"
    )
    hands = serializers.IntegerField(help_text="Hands over (those the hand history shows)")
    hands_url = serializers.URLField(
        help_text="The match's hand history: every finished hand with its replay"
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


# --- Wallet movements ------------------------------------------------------------------------
class MovementOutput(serializers.Serializer):
    transaction_id = serializers.IntegerField(help_text="The ledger transaction")
    created_at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=KINDS)
    counts_as = serializers.ChoiceField(
        choices=COUNTED_KINDS,
        help_text="The kind this movement is counted as: its own, or for a reversal the kind "
        "it undoes",
    )
    category = serializers.ChoiceField(choices=list(CATEGORIES))
    amount = Money(help_text="Signed: into the wallet (positive) or out of it (negative)")
    balance_after = Money()
    match_id = serializers.IntegerField(allow_null=True, help_text="The game it was for")


# --- Figures ---------------------------------------------------------------------------------
class FiguresOutput(serializers.Serializer):
    deposits = Money()
    withdrawals = Money(help_text="Withdrawn (a positive amount)")
    net_deposits = Money(help_text="deposits - withdrawals")
    play_net = Money(
        help_text="Refunds, voids, payouts and restitutions less buy-ins and confiscations: "
        "positive when the player is up"
    )
    other = Money(help_text="Every other movement: adjustments, the seamless wallet's legs")
    change = Money(help_text="net_deposits + play_net + other: the wallet's change")


class PeriodOutput(FiguresOutput):
    period = serializers.CharField(help_text="The UTC day (2026-12-06) or month (2026-12)")


class TotalsOutput(FiguresOutput):
    by_kind = serializers.DictField(
        child=Money(), help_text="The signed sum of the movements counted as each kind"
    )


class HistorySummaryOutput(serializers.Serializer):
    currency = serializers.CharField(help_text="The wallet's currency")
    period = serializers.ChoiceField(choices=list(PERIODS))
    window_start = serializers.DateTimeField(help_text="365 days before window_end")
    window_end = serializers.DateTimeField(help_text="The moment of the request")
    opening_balance = Money(help_text="The wallet's balance at window_start")
    closing_balance = Money(help_text="opening_balance + totals.change")
    totals = TotalsOutput(help_text="The sum of the periods, kind by kind")
    periods = PeriodOutput(many=True, help_text="Newest first; periods without a movement left out")
