"""What detection found (docs/integrity.md "Detection"): one alert per signal and subject (a
player, or a pair of players), with its score and the reasoning behind it (the hands, the
figures), which the risk team groups into cases."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from gin_platform.models import Player


class Alert(models.Model):
    class Signal(models.TextChoices):
        SOFT_PLAY = "soft_play"
        FEEDING = "feeding"
        CHIP_DUMPING = "chip_dumping"
        REPEATED_PAIRING = "repeated_pairing"
        PAIR_WIN_RATE = "pair_win_rate"
        BOT_TIMING = "bot_timing"
        BOT_MARATHON = "bot_marathon"
        BOT_ENGINE_MOVES = "bot_engine_moves"
        LINKED_IDENTIFIERS = "linked_identifiers"
        PLAYER_REPORT = "player_report"

    class Status(models.TextChoices):
        OPEN = "open"
        IN_CASE = "in_case"
        DISMISSED = "dismissed"

    signal = models.CharField(max_length=24, choices=Signal.choices)
    # A pair alert names both players (``player`` the one the signal points at, e.g. the
    # receiver of dumped chips); a player alert only ``player``.
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    other_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    score = models.FloatField()
    # The score at and above which the signal raises an alert (docs/integrity.md).
    threshold = models.FloatField()
    # The reasoning: the statistic, its inputs and the hands or matches behind it.
    reasoning = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    case = models.ForeignKey(
        "integrity.Case", on_delete=models.PROTECT, null=True, blank=True, related_name="alerts"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # One live alert per signal and subject: a later run updates it.
            models.UniqueConstraint(
                fields=("signal", "player", "other_player"),
                condition=Q(status="open"),
                name="alert_open_unique",
                nulls_distinct=False,
            ),
        ]
        indexes = [models.Index(fields=("status", "created_at"))]

    def __str__(self) -> str:
        return f"{self.signal} alert #{self.pk}"


class DetectionCursor(models.Model):
    """How far a detection job has read its stream (docs/integrity.md "Jobs"): the
    last row it counted, as (time, id), moved in the same transaction as the aggregates that
    row changed, so a crash loses nothing and a re-run counts nothing twice."""

    # The jobs (integrity.detection.jobs): finished games (hands replayed), settled games'
    # money (the ledger).
    GAMES, MONEY = "games", "money"
    JOBS = (GAMES, MONEY)

    job = models.CharField(max_length=40, unique=True)
    last_at = models.DateTimeField(null=True, blank=True)
    last_id = models.BigIntegerField(default=0)
    rows_read = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.job} cursor at {self.last_at} #{self.last_id}"


class PlayerStats(models.Model):
    """One player's running figures over the hands and games detection has read: the inputs
    of the per-player signals (bot timing, marathons, engine moves) and the baselines of the
    pair signals (the player's results against everybody)."""

    player = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="+")
    matches = models.PositiveIntegerField(default=0)
    # Decisive heads-up hands and the ones won.
    hands = models.PositiveIntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    # Knocks (<= the soft-play deadwood) open to the player, and the ones not taken.
    knock_chances = models.PositiveIntegerField(default=0)
    knocks_declined = models.PositiveIntegerField(default=0)
    # Discards, and those that would have lowered the opponent's deadwood.
    discards = models.PositiveIntegerField(default=0)
    discards_useful = models.PositiveIntegerField(default=0)
    # Decisions with more than one legal choice, and those equal to the engine bot's.
    decisions = models.PositiveIntegerField(default=0)
    engine_same = models.PositiveIntegerField(default=0)
    # Think times (seconds, server clock): count, sum and sum of squares.
    think_count = models.PositiveIntegerField(default=0)
    think_sum = models.FloatField(default=0.0)
    think_sum_sq = models.FloatField(default=0.0)
    # Play without a break: the running session and the longest seen.
    session_start = models.DateTimeField(null=True, blank=True)
    last_action_at = models.DateTimeField(null=True, blank=True)
    session_actions = models.PositiveIntegerField(default=0)
    longest_session_seconds = models.FloatField(default=0.0)
    longest_session_start = models.DateTimeField(null=True, blank=True)
    # Settled real-money games, those won, and forfeits (resigned, left, timed out).
    games = models.PositiveIntegerField(default=0)
    games_won = models.PositiveIntegerField(default=0)
    forfeits = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"stats of {self.player_id}"


class PairStats(models.Model):
    """Two players' running figures against each other, stored once per pair (``player_low``
    has the smaller id, like PlayerLink); each directed figure has a ``_low`` column (what the
    low player did, or won, against the high one) and a ``_high`` one."""

    player_low = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_high = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    matches = models.PositiveIntegerField(default=0)
    hands = models.PositiveIntegerField(default=0)
    hands_won_low = models.PositiveIntegerField(default=0)
    hands_won_high = models.PositiveIntegerField(default=0)
    knock_chances_low = models.PositiveIntegerField(default=0)
    knock_chances_high = models.PositiveIntegerField(default=0)
    knocks_declined_low = models.PositiveIntegerField(default=0)
    knocks_declined_high = models.PositiveIntegerField(default=0)
    discards_low = models.PositiveIntegerField(default=0)
    discards_high = models.PositiveIntegerField(default=0)
    discards_useful_low = models.PositiveIntegerField(default=0)
    discards_useful_high = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    games_won_low = models.PositiveIntegerField(default=0)
    games_won_high = models.PositiveIntegerField(default=0)
    forfeits_low = models.PositiveIntegerField(default=0)
    forfeits_high = models.PositiveIntegerField(default=0)
    # Money won by the low player from the high one, less the reverse, per currency (minor
    # units): {"EUR": -1250}.
    net_to_low = models.JSONField(default=dict)
    # The latest hands and games behind the figures (ids, newest last, a bounded list).
    recent_hands = models.JSONField(default=list)
    recent_games = models.JSONField(default=list)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("player_low", "player_high"), name="pair_stats_unique"),
            models.CheckConstraint(
                condition=Q(player_low__lt=models.F("player_high")), name="pair_stats_ordered"
            ),
        ]
        indexes = [models.Index(fields=("player_high", "player_low"))]

    def __str__(self) -> str:
        return f"pair {self.player_low_id} ~ {self.player_high_id}"
