"""Request and answer shapes of the leaderboards API (docs/leaderboards.md "API")."""

from __future__ import annotations

import datetime

from django.utils import timezone
from rest_framework import serializers

from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import Money
from leaderboards import periods
from leaderboards.selectors import BOARDS, OPERATOR, RATING, SCOPES
from ratings.models import Family

FIRST_DATE = datetime.date(2000, 1, 1)
DEFAULT_FAMILY = Family.HEADS_UP_MATCH
MAX_PAGE_SIZE = 100


class LeaderboardQueryInput(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=SCOPES,
        required=False,
        default=OPERATOR,
        help_text="`operator`: your operator's players; `network`: every member operator's "
        "players at the network's tables and tournaments",
    )
    board = serializers.ChoiceField(
        choices=BOARDS,
        required=False,
        default=RATING,
        help_text="`rating`: by rating in `family`; `winnings`: by net tournament winnings "
        "in `currency`",
    )
    period = serializers.ChoiceField(
        choices=periods.KINDS,
        required=False,
        default=periods.WEEK,
        help_text="A day, an ISO week (Monday to Sunday) or a calendar month, in UTC",
    )
    date = serializers.DateField(
        required=False,
        help_text="Any day of the period (YYYY-MM-DD, UTC): from 2000-01-01 to tomorrow; "
        "default today, the period under way",
    )
    family = serializers.ChoiceField(
        choices=Family.choices,
        required=False,
        default=DEFAULT_FAMILY,
        help_text="The rating board's variant family (R15)",
    )
    currency = serializers.CharField(
        required=False,
        max_length=3,
        help_text="The winnings board's currency (ISO 4217); default the player's wallet "
        "currency, or your base currency. Amounts of different currencies are never added",
    )

    def validate_date(self, value: datetime.date) -> datetime.date:
        tomorrow = timezone.now().date() + datetime.timedelta(days=1)
        if not FIRST_DATE <= value <= tomorrow:
            raise serializers.ValidationError("a date from 2000-01-01 to tomorrow (UTC)")
        return value


class LeaderboardPeriodOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=periods.KINDS)
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label (DRF's metaclass moves it)
        help_text="2026-12-07, 2026-W50 (ISO week) or 2026-12"
    )
    starts_at = serializers.DateTimeField(help_text="Its first moment (UTC)")
    ends_at = serializers.DateTimeField(help_text="The moment after it (UTC): [starts_at, ends_at)")


class LeaderboardRowOutput(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="1 the best; ties ordered as docs/leaderboards.md says"
    )
    screen_name = serializers.CharField(help_text="The only name a leaderboard shows")
    me = serializers.BooleanField(help_text="This row is the caller (a player token)")
    player_id = serializers.UUIDField(
        allow_null=True, help_text="Your own player (an operator's API key); null otherwise"
    )
    reached_at = serializers.DateTimeField(
        help_text="When the player reached this figure: the end of their last rated match "
        "(rating) or tournament (winnings) of the period"
    )
    rating = serializers.FloatField(
        allow_null=True, help_text="rating: the rating after their last match of the period"
    )
    rd = serializers.FloatField(allow_null=True, help_text="rating: its RD (110 or less)")
    matches = serializers.IntegerField(
        allow_null=True, help_text="rating: their rated matches in the family to date"
    )
    net = Money(allow_null=True, help_text="winnings: prizes minus what they paid to enter")
    prizes = Money(allow_null=True, help_text="winnings: prizes paid in money")
    paid_in = Money(
        allow_null=True,
        help_text="winnings: buy-ins and fees paid in money (tickets count nothing)",
    )
    tournaments = serializers.IntegerField(
        allow_null=True, help_text="winnings: their tournaments that ended in the period"
    )


class LeaderboardPageOutput(serializers.Serializer):
    scope = serializers.ChoiceField(choices=SCOPES)
    board = serializers.ChoiceField(choices=BOARDS)
    period = LeaderboardPeriodOutput()
    family = serializers.ChoiceField(
        choices=Family.choices, allow_null=True, help_text="rating: the family; null otherwise"
    )
    currency = serializers.CharField(
        allow_null=True, help_text="winnings: the currency; null otherwise"
    )
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last")
    previous = serializers.URLField(allow_null=True, help_text="The page before; null on the first")
    results = LeaderboardRowOutput(many=True, help_text="Best first")


class LeaderboardOptOutInput(StrictInput):
    leaderboard_opt_out = serializers.BooleanField(
        help_text="true: stay off every leaderboard; false: be on them (the default)"
    )


class LeaderboardOptOutOutput(serializers.Serializer):
    leaderboard_opt_out = serializers.BooleanField()
    screen_name = serializers.CharField(
        allow_null=True,
        help_text="The name the boards show; null: none chosen, so on no board yet "
        "(PUT /api/v1/me/screen-name)",
    )
