"""Output shapes of the hand history and the fairness check (docs/games.md "Hand history
and fairness"), apart from ``games.api.serializers`` so each module stays short."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers import EventOutput, choice
from gin_platform.api.fields import JsonObject


class HandHistoryOutput(serializers.Serializer):
    number = serializers.IntegerField()
    status = choice(("ended", "abandoned"))
    dealer = serializers.IntegerField()
    seed_commitment = serializers.CharField(help_text="Published before the deal")
    seed = serializers.CharField(help_text="The revealed server seed")
    outcome = JsonObject(
        allow_null=True,
        help_text="Kind, knocker, winner, points and both arrangements with the lay-offs "
        "(R8, R9); null for a hand abandoned by a forfeit",
    )
    points = serializers.ListField(
        child=serializers.IntegerField(), help_text="Hand points scored by seat 0 and seat 1"
    )
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Both players' cards at the end of the hand",
    )
    out = serializers.ListField(
        child=serializers.IntegerField(), help_text="R12: seats that forfeited (empty heads-up)"
    )
    dead = serializers.ListField(
        child=serializers.CharField(), help_text="R12: their dead cards (empty heads-up)"
    )
    knock_card = serializers.CharField(allow_null=True)
    discard_pile = serializers.ListField(child=serializers.CharField())
    stock = serializers.ListField(
        child=serializers.CharField(), help_text="What was left of the stock, next card first"
    )
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    events = EventOutput(many=True, help_text="Every event, every card shown")


class HandHistoryListOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    hands = HandHistoryOutput(many=True)


class DealtOutput(serializers.Serializer):
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    upcard = serializers.CharField(allow_null=True)
    stock = serializers.ListField(child=serializers.CharField())


class FairnessChecksOutput(serializers.Serializer):
    commitment = serializers.BooleanField(help_text="SHA-256(seed) equals the commitment")
    dealer = serializers.BooleanField(
        help_text="R3: hand 1's dealer is first_dealer(seed); then the deal alternates "
        "(a void hand is redealt by the same dealer)"
    )
    hands = serializers.BooleanField(help_text="Both hands dealt are the deck's")
    upcard = serializers.BooleanField()
    stock = serializers.BooleanField(help_text="The stock order is the deck's")
    auto_play = serializers.BooleanField(
        help_text="R13: every auto-played move is the rule's fixed move (true when none)"
    )


class FairnessOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    number = serializers.IntegerField()
    seed = serializers.CharField()
    seed_commitment = serializers.CharField()
    dealer = serializers.IntegerField()
    first_dealer = serializers.IntegerField(
        allow_null=True, help_text="Hand 1 only: the dealer the seed chooses (R3)"
    )
    deck = serializers.ListField(
        child=serializers.CharField(), help_text="The deck re-derived from the seed"
    )
    dealt = DealtOutput(help_text="The deal worked back from the recorded play")
    checks = FairnessChecksOutput()
    verified = serializers.BooleanField()
