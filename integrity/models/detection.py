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
