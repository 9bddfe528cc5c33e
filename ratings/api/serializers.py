"""Request and answer shapes of the ratings API (docs/ratings.md "API")."""

from __future__ import annotations

from rest_framework import serializers

from ratings.models import Family


class HistoryFilterInput(serializers.Serializer):
    family = serializers.ChoiceField(
        choices=Family.choices, required=False, help_text="Only the changes of one family"
    )


class RatingOutput(serializers.Serializer):
    family = serializers.ChoiceField(choices=Family.choices)
    rating = serializers.FloatField(help_text="Glicko-2 rating, to 2 decimals (1500 at the start)")
    rd = serializers.FloatField(help_text="Rating deviation, to 2 decimals (350 at the start)")
    volatility = serializers.FloatField(help_text="Glicko-2 volatility, to 6 decimals")
    provisional = serializers.BooleanField(help_text="R15: the RD is above 110")
    matches = serializers.IntegerField(help_text="Rated matches played in this family")
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="The end of the last rated match; null: never rated"
    )


class RatingValuesOutput(serializers.Serializer):
    rating = serializers.FloatField()
    rd = serializers.FloatField()
    volatility = serializers.FloatField()


class RatingChangeOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    family = serializers.ChoiceField(choices=Family.choices)
    finished_at = serializers.DateTimeField(help_text="When the match ended")
    place = serializers.IntegerField(help_text="The player's place (shared places, one number)")
    players = serializers.IntegerField(help_text="The players rated in the match")
    wins = serializers.IntegerField(help_text="Games won: one per player placed below")
    draws = serializers.IntegerField(help_text="Games drawn: one per player sharing the place")
    losses = serializers.IntegerField(help_text="Games lost: one per player placed above")
    before = RatingValuesOutput()
    after = RatingValuesOutput()
    change = serializers.FloatField(help_text="The rating's change, after minus before")


class SeatRatingOutput(serializers.Serializer):
    position = serializers.IntegerField()
    display_name = serializers.CharField(
        allow_null=True, help_text="Null at a network table for another operator's player"
    )
    screen_name = serializers.CharField(allow_null=True)
    operator = serializers.CharField(
        allow_null=True, help_text="A network table's other operator, when the network shows it"
    )
    rating = serializers.FloatField(allow_null=True, help_text="Null: the house bot")
    rd = serializers.FloatField(allow_null=True)
    provisional = serializers.BooleanField(allow_null=True)


class MatchRatingsOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    family = serializers.ChoiceField(choices=Family.choices)
    rated = serializers.BooleanField(
        help_text="Whether the match counts for the ratings (not practice, not voided)"
    )
    seats = SeatRatingOutput(many=True)
