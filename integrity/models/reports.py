"""Players' reports of another player (docs/integrity.md "Player reports"): the reporter
names an opponent of a match they played; the report becomes a ``player_report`` alert in a
case. The reporter sees that it was received and its status, never the investigation."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from gin_platform.models import Player


class PlayerReport(models.Model):
    class Reason(models.TextChoices):
        COLLUSION = "collusion"
        CHIP_DUMPING = "chip_dumping"
        BOT = "bot"
        ABUSE = "abuse"
        OTHER = "other"

    class Status(models.TextChoices):
        RECEIVED = "received"
        UNDER_REVIEW = "under_review"
        CLOSED = "closed"

    reporter = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    reported = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    # The match they played (games' Match id: integrity reads games through its selectors).
    match_id = models.BigIntegerField()
    reason = models.CharField(max_length=16, choices=Reason.choices)
    text = models.TextField(blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    alert = models.ForeignKey(
        "integrity.Alert", on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # One report per reporter, match and player.
            models.UniqueConstraint(
                fields=("reporter", "reported", "match_id"), name="player_report_once_per_match"
            ),
        ]
        indexes = [models.Index(fields=("reporter", "created_at"))]

    def __str__(self) -> str:
        return f"report #{self.pk} ({self.status})"
