"""Markers of harm (docs/player-protection.md "Markers of harm"): the rules the daily job
applies, which the risk team configures, and the flags it raises.

A rule's ``params`` are checked by its module in ``protection.harm`` whenever they change;
a flag is one rule's finding about one player on one UTC day, with the figures behind it,
raised once (a second run of the job for that day finds the row and raises nothing).
"""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from gin_platform.models import Operator, Player


class HarmRuleCode(models.TextChoices):
    DEPOSITS_RISING = "deposits_rising"
    LONG_SESSIONS = "long_sessions"
    CHASING_LOSSES = "chasing_losses"
    NIGHT_PLAY = "night_play"


class HarmRule(models.Model):
    """One marker of harm: whether the job applies it and with which parameters (seeded
    with the documented defaults by migration 0002; changed by risk or admin, audited)."""

    code = models.CharField(max_length=24, choices=HarmRuleCode.choices, unique=True)
    enabled = models.BooleanField(default=True)
    params = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    updated_at = models.DateTimeField(default=timezone.now)
    # Empty for the seeded defaults; the staff user of the last change after that.
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    def __str__(self) -> str:
        return f"{self.code} ({'on' if self.enabled else 'off'})"


class HarmFlag(models.Model):
    """A rule's finding about a player on the job's UTC ``day``; ``evidence`` holds the
    figures that met the rule (amounts as decimal strings with their currency)."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="harm_flags")
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    rule = models.CharField(max_length=24, choices=HarmRuleCode.choices)
    day = models.DateField()
    evidence = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("player", "rule", "day"), name="harm_flag_once_per_player_rule_day"
            ),
        ]
        indexes = [
            models.Index(fields=("operator", "day"), name="harm_flag_operator_day"),
            models.Index(fields=("day",), name="harm_flag_day"),
        ]

    def __str__(self) -> str:
        return f"{self.rule} flag of {self.player_id} on {self.day:%Y-%m-%d}"
