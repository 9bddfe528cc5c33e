"""Four eyes (docs/backoffice.md): a staff action proposed by one user and approved (and
run) or rejected by another."""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from gin_platform.models import Operator


class ApprovalRequest(models.Model):
    """A staff action that needs a second person (four eyes, docs/backoffice.md): proposed by
    one staff user, approved (and executed in the same transaction) or rejected by another.
    ``payload`` holds the action's arguments; ``result_ref`` what the execution made (the
    ledger transaction's id, the caps row's)."""

    class Kind(models.TextChoices):
        REVERSAL = "reversal"
        CASHIER_CAPS = "cashier_caps"
        ADJUSTMENT = "adjustment"
        NET_SETTLEMENT = "net_settlement"  # an operator's network position paid off

    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXECUTED = "executed"
        FAILED = "failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    payload = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    reason = models.CharField(max_length=500)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=500, blank=True, default="")
    result_ref = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ("-proposed_at", "-id")
        indexes = [models.Index(fields=("status", "proposed_at"), name="wallet_approval_status")]
        permissions = [
            ("propose_reversal", "Can propose a ledger reversal"),
            ("approve_reversal", "Can approve a ledger reversal"),
            ("propose_adjustment", "Can propose a manual wallet adjustment"),
            ("approve_adjustment", "Can approve a manual wallet adjustment"),
            ("propose_cashier_caps", "Can propose raising cashier caps"),
            ("approve_cashier_caps", "Can approve raising cashier caps"),
            ("propose_net_settlement", "Can propose a network net settlement"),
            ("approve_net_settlement", "Can approve a network net settlement"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"
