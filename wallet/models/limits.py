"""The operator's cashier caps and the player's own limits and breaks (time-outs and
self-exclusions) (docs/wallet.md "Cashier caps", "Player limits, breaks, KYC")."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from gin_platform.models import Operator, Player
from wallet.models.ledger import CURRENCY_LENGTH, AppendOnlyModel

_CAP_FIELDS = (
    "min_deposit",
    "max_deposit",
    "min_withdrawal",
    "max_withdrawal",
    "daily_deposit_cap",
    "weekly_deposit_cap",
    "monthly_deposit_cap",
)


class CashierCaps(models.Model):
    """An operator's caps for one currency. Empty means no cap. Windows: docs/wallet.md."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    min_deposit = models.BigIntegerField(null=True, blank=True)
    max_deposit = models.BigIntegerField(null=True, blank=True)
    min_withdrawal = models.BigIntegerField(null=True, blank=True)
    max_withdrawal = models.BigIntegerField(null=True, blank=True)
    daily_deposit_cap = models.BigIntegerField(null=True, blank=True)
    weekly_deposit_cap = models.BigIntegerField(null=True, blank=True)
    monthly_deposit_cap = models.BigIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    FIELDS = _CAP_FIELDS

    class Meta:
        verbose_name_plural = "cashier caps"
        constraints = [
            models.UniqueConstraint(fields=("operator", "currency"), name="wallet_caps_unique"),
            *[
                models.CheckConstraint(
                    condition=Q(**{f"{name}__isnull": True}) | Q(**{f"{name}__gte": 0}),
                    name=f"wallet_caps_{name}_non_negative",
                )
                for name in _CAP_FIELDS
            ],
        ]

    def __str__(self) -> str:
        return f"caps {self.operator_id} {self.currency}"


class LimitKind(models.TextChoices):
    DEPOSIT = "deposit"
    LOSS = "loss"


class LimitPeriod(models.TextChoices):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


class PlayerLimit(models.Model):
    """A player's self-set deposit or loss limit for one window (wallet currency).

    ``amount`` is in force now (empty: no limit). A pending change (an increase or a removal)
    takes effect at ``pending_effective_at``, the jurisdiction's cooling-off after it was asked.
    """

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="wallet_limits")
    kind = models.CharField(max_length=16, choices=LimitKind.choices)
    period = models.CharField(max_length=16, choices=LimitPeriod.choices)
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    amount = models.BigIntegerField(null=True, blank=True)
    pending_amount = models.BigIntegerField(null=True, blank=True)
    pending_effective_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("player", "kind", "period"), name="wallet_limit_unique"
            ),
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__gte=0),
                name="wallet_limit_amount_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(pending_amount__isnull=True) | Q(pending_amount__gte=0),
                name="wallet_limit_pending_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(pending_amount__isnull=True) | Q(pending_effective_at__isnull=False),
                name="wallet_limit_pending_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind}/{self.period}"

    def effective_amount(self, at) -> int | None:
        """The limit in force at ``at`` (a due pending change counts as applied)."""
        if self.pending_effective_at is not None and self.pending_effective_at <= at:
            return self.pending_amount
        return self.amount


class PlayerLimitChange(AppendOnlyModel):
    """History of limit changes: old, new, who, when, and when it took or takes effect."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=LimitKind.choices)
    period = models.CharField(max_length=16, choices=LimitPeriod.choices)
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    old_amount = models.BigIntegerField(null=True, blank=True)
    new_amount = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)  # when it was asked for
    effective_at = models.DateTimeField()
    actor_type = models.CharField(max_length=16)
    actor_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=("player", "created_at"), name="wallet_limit_hist")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind}/{self.period}: {self.old_amount} -> {self.new_amount}"


class SelfExclusion(AppendOnlyModel):
    """A break the player took (a time-out or a self-exclusion): no deposit, buy-in or seat."""

    class Kind(models.TextChoices):
        TIME_OUT = "time_out"
        SELF_EXCLUSION = "self_exclusion"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SELF_EXCLUSION)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    reason = models.CharField(max_length=200, blank=True, default="")
    actor_type = models.CharField(max_length=16)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("starts_at")), name="wallet_exclusion_has_length"
            )
        ]
        indexes = [models.Index(fields=("player", "ends_at"), name="wallet_exclusion_player")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} until {self.ends_at:%Y-%m-%d %H:%M} UTC"
