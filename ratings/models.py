"""Ratings (R15, docs/ratings.md): each player's Glicko-2 rating per variant family, the
matches rated, and every rating change a match made.

- ``Rating``: a player's current rating in one family. No row yet: the start (1500, RD 350,
  volatility 0.06), provisional.
- ``RatedMatch``: one rating period, one finished match rated once (its unique match), even
  when it rated nobody (a walkover: R14's absent player played nothing).
- ``RatingChange``: one player's rating before and after one match, unique per (match,
  player): a replayed task or a second worker can never rate a match twice.
- ``RatingCursor``: one row, the lock every rating takes, so matches are rated one at a
  time, oldest first; it remembers the end of the newest match rated (where the sweep
  looks back from).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Match
from gin_platform.models import Player


class Family(models.TextChoices):
    """R15: a rating per variant family."""

    HEADS_UP_FTK = "heads_up_ftk", "Heads-up First To Knock"
    HEADS_UP_MATCH = "heads_up_match", "Heads-up Match Play and Money Play"
    MULTIPLAYER = "multiplayer", "Three and four players"


def family_of(*, variant: str, seat_count: int) -> str:
    """The family a match of ``variant`` at ``seat_count`` seats is rated in (R15)."""
    if seat_count > 2:
        return Family.MULTIPLAYER
    return Family.HEADS_UP_FTK if variant == "ftk" else Family.HEADS_UP_MATCH


class Rating(models.Model):
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="ratings")
    family = models.CharField(max_length=16, choices=Family.choices)
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    matches = models.PositiveIntegerField(default=0)  # rated matches played in the family
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("player", "family"), name="rating_once_per_family"),
            models.CheckConstraint(condition=Q(rd__gt=0, volatility__gt=0), name="rating_positive"),
        ]
        # A family's table, best first (leaderboards, the quick seat's band).
        indexes = [models.Index(fields=("family", "-rating"), name="rating_family_best")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.family} {self.rating:.0f}"


class RatedMatch(models.Model):
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="+")
    family = models.CharField(max_length=16, choices=Family.choices)
    # The match's end (Match.finished_at): matches are rated in this order.
    finished_at = models.DateTimeField()
    players = models.PositiveSmallIntegerField()  # how many were rated (0: a walkover)
    rated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=("finished_at", "match"), name="rated_match_end_order")]

    def __str__(self) -> str:
        return f"match #{self.match_id} rated ({self.family})"


class RatingChange(models.Model):
    rated_match = models.ForeignKey(RatedMatch, on_delete=models.PROTECT, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="rating_changes")
    family = models.CharField(max_length=16, choices=Family.choices)
    finished_at = models.DateTimeField()  # the match's end, the history's order
    # R15's games of the match: the player's place (a shared place has one number) and one
    # game against each other player who played.
    place = models.PositiveSmallIntegerField()
    wins = models.PositiveSmallIntegerField()
    draws = models.PositiveSmallIntegerField()
    losses = models.PositiveSmallIntegerField()
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    volatility_after = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("match", "player"), name="rating_change_once"),
        ]
        indexes = [
            models.Index(fields=("player", "-finished_at", "-id"), name="rating_change_history"),
            # A family's changes of a period: the leaderboard by rating (docs/leaderboards.md).
            models.Index(fields=("family", "finished_at"), name="rating_change_period"),
        ]

    def __str__(self) -> str:
        change = self.rating_after - self.rating_before
        return f"{self.player_id} match #{self.match_id} {change:+.1f}"


class RatingCursor(models.Model):
    ONE = 1  # the one row's primary key

    # The end of the newest match rated (None: nothing rated yet).
    rated_through = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="rating_cursor_one_row")]

    def __str__(self) -> str:
        return f"rated through {self.rated_through}"
