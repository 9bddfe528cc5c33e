"""Settlements of finished games and reconciliation runs (docs/settlement.md).

A Settlement is the record that a game's money was posted: one per match (unique), pointing
at the one ledger transaction that paid it out, with the statement that explains every line.
"""

from __future__ import annotations

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from games.models import Match
from gin_platform.models import Operator
from wallet.models import LedgerTransaction


class Settlement(models.Model):
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="settlement")
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    ledger_transaction = models.OneToOneField(
        LedgerTransaction, on_delete=models.PROTECT, related_name="settlement"
    )
    variant = models.CharField(max_length=8)
    currency = models.CharField(max_length=3)
    is_practice = models.BooleanField(default=False)
    escrow_total = models.BigIntegerField()
    fee = models.BigIntegerField()
    statement = models.JSONField(encoder=DjangoJSONEncoder)
    settled_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-settled_at", "-pk")
        indexes = [models.Index(fields=("operator", "currency", "settled_at"))]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(fee__gte=0, escrow_total__gte=models.F("fee")),
                name="settlement_fee_within_escrow",
            )
        ]

    def __str__(self) -> str:
        return f"settlement of match #{self.match_id}"


class ReconciliationRun(models.Model):
    """One run of the ledger check; drift is an alert shown in the back office."""

    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    ok = models.BooleanField()
    accounts_checked = models.PositiveIntegerField(default=0)
    transactions_checked = models.PositiveIntegerField(default=0)
    unsettled_games = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict, encoder=DjangoJSONEncoder)

    class Meta:
        ordering = ("-started_at", "-pk")

    def __str__(self) -> str:
        return f"reconciliation {self.started_at:%Y-%m-%d %H:%M} ({'ok' if self.ok else 'DRIFT'})"


class DailyReport(Settlement):
    """The back office's report page (admin): per operator, currency and UTC day."""

    class Meta:
        proxy = True
        verbose_name = "daily report"
        verbose_name_plural = "daily reports"
