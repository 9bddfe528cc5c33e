"""The risk team's cases (docs/integrity.md "Cases"): alerts and reports about the same
players, worked to a decision."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Case(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    title = models.CharField(max_length=200)
    # "detection", "report" or "staff:<id>".
    opened_by = models.CharField(max_length=80)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=("status", "created_at"))]
        permissions = [
            ("work_case", "Can note on a case, warn, suspend and block pairings"),
            ("propose_confiscation", "Can propose confiscating winnings for the victims"),
            ("approve_confiscation", "Can approve a confiscation proposed by someone else"),
        ]

    def __str__(self) -> str:
        return f"case #{self.pk}"
