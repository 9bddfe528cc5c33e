"""The risk team's cases (docs/integrity.md "Cases"): alerts and reports about the same
players, worked to a decision. A case has its notes, its actions (each one audited: warn,
suspend from play and its lifting, block a pairing, ban, confiscate), the sanctions in force
(a suspension or a ban: the seating path refuses the player, ``integrity.pairing``) and at
most one confiscation, proposed by one risk user and approved by another."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from gin_platform.models import Player


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


class CaseNote(models.Model):
    """A risk user's note on a case (append-only)."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=("case", "created_at"))]

    def __str__(self) -> str:
        return f"note #{self.pk} on case #{self.case_id}"


class CaseAction(models.Model):
    """What the risk team did on a case, one row per action (the audit row says the same)."""

    class Kind(models.TextChoices):
        WARN = "warn"
        SUSPEND = "suspend"
        LIFT_SUSPENSION = "lift_suspension"
        BLOCK_PAIRING = "block_pairing"
        BAN = "ban"
        CONFISCATION_PROPOSED = "confiscation_proposed"
        CONFISCATION_EXECUTED = "confiscation_executed"
        CONFISCATION_REJECTED = "confiscation_rejected"
        CONFISCATION_FAILED = "confiscation_failed"

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="actions")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    other_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    reason = models.TextField(blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=("case", "created_at"))]

    def __str__(self) -> str:
        return f"{self.kind} on case #{self.case_id}"


class Sanction(models.Model):
    """A player kept from play: ``suspension`` (until lifted) or ``ban`` (shared with the
    network's members; the banned person sits at no table). In force while ``lifted_at`` is
    unset; ``integrity.pairing.play_refusal`` reads it on every sit."""

    class Kind(models.TextChoices):
        SUSPENSION = "suspension"
        BAN = "ban"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="sanctions")
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One sanction of each kind in force per player.
            models.UniqueConstraint(
                fields=("player", "kind"),
                condition=Q(lifted_at__isnull=True),
                name="sanction_one_in_force",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.player_id}"


class Confiscation(models.Model):
    """The four-eyes request to take a colluder's winnings and give them to the victims
    (docs/integrity.md "Confiscation"): one per case, posted as ONE ledger transaction
    (kind ``confiscation``, reference ``confiscation:<case id>``) when a second risk user
    approves it. ``refunds``: ``[{"player_id": "<uuid>", "amount": <minor units>}]``."""

    class Status(models.TextChoices):
        PENDING = "pending"
        EXECUTED = "executed"
        REJECTED = "rejected"
        FAILED = "failed"

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="confiscations")
    colluder = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=3)
    amount = models.BigIntegerField()
    refunds = models.JSONField(default=list)
    reason = models.TextField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField(default=timezone.now, editable=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True, default="")
    # The ledger transaction it posted ("ledger_transaction:<id>"), or the failure's slug.
    result_ref = models.CharField(max_length=80, blank=True, default="")

    class Meta:
        constraints = [
            # At most one live request per case (pending or executed): one posting per case.
            models.UniqueConstraint(
                fields=("case",),
                condition=Q(status__in=("pending", "executed")),
                name="confiscation_one_live_per_case",
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="confiscation_positive"),
        ]

    def __str__(self) -> str:
        return f"confiscation #{self.pk} of case #{self.case_id} ({self.status})"
