"""The seamless wallet's tables (docs/wallet.md "Seamless wallet"): where an operator's
players keep their money, and every call to the operator's wallet."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from gin_platform.events.webhook_targets import MAX_URL_LENGTH, validate_webhook_url
from gin_platform.models import Operator, Player
from wallet.models.ledger import CURRENCY_LENGTH, REFERENCE_LENGTH, LedgerTransaction

_MIN_TIMEOUT_MS, _MAX_TIMEOUT_MS = 100, 30000


class OperatorWallet(models.Model):
    """Where an operator's players keep their money: with us (``transfer``, the default when
    there is no row) or in the operator's own wallet, which we call (``seamless``)."""

    class Mode(models.TextChoices):
        TRANSFER = "transfer"
        SEAMLESS = "seamless"

    # How long a call waits for the operator's wallet (wallet.services.operator_wallet_set
    # refuses anything else with operator-wallet-invalid; the schema says the same bounds).
    MIN_TIMEOUT_MS, MAX_TIMEOUT_MS = _MIN_TIMEOUT_MS, _MAX_TIMEOUT_MS
    DEFAULT_TIMEOUT_MS = 3000

    operator = models.OneToOneField(Operator, on_delete=models.PROTECT, related_name="+")
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.TRANSFER)
    # <base_url>/balance|debit|credit|rollback; checked like a webhook URL.
    base_url = models.CharField(
        max_length=MAX_URL_LENGTH, blank=True, default="", validators=[validate_webhook_url]
    )
    timeout_ms = models.PositiveIntegerField(default=DEFAULT_TIMEOUT_MS)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(timeout_ms__gte=_MIN_TIMEOUT_MS) & Q(timeout_ms__lte=_MAX_TIMEOUT_MS),
                name="wallet_operator_wallet_timeout_range",
            ),
            models.CheckConstraint(
                condition=~Q(mode="seamless") | ~Q(base_url=""),
                name="wallet_operator_wallet_seamless_has_url",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operator_id} {self.mode}"


class WalletCall(models.Model):
    """One call to an operator's wallet. ``id`` is the transaction id the operator
    deduplicates: every retry of a call sends the same id. The row is committed before the
    first attempt, so a call is never lost; ``purpose`` is unique, so it is never made twice
    (one debit per buy-in attempt, one credit per payout or refund, one rollback per debit)."""

    class Kind(models.TextChoices):
        DEBIT = "debit"
        CREDIT = "credit"
        ROLLBACK = "rollback"

    class Status(models.TextChoices):
        PENDING = "pending"  # not answered yet (or not conclusively): will be retried
        APPLIED = "applied"  # acknowledged by the operator and mirrored in the ledger
        REFUSED = "refused"  # a debit the operator refused (insufficient funds)
        UNKNOWN = "unknown"  # a debit never answered: its rollback is on the way
        ROLLED_BACK = "rolled_back"  # a debit whose rollback the operator acknowledged

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    rolls_back = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="rollback"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    purpose = models.CharField(max_length=REFERENCE_LENGTH, unique=True)
    reason = models.CharField(max_length=32)  # buy_in, payout, refund, return, rollback
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.CharField(max_length=64, blank=True, default="")  # generic class only
    # The mirror posting of the acknowledged call (none for a refused or rolled-back debit
    # that was never applied).
    ledger_transaction = models.OneToOneField(
        LedgerTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # A buy-in's debit: the buy-in posting that moved its money on to the escrow, written in
    # the seat's transaction. An applied debit never consumed lost its seat: the sweep rolls
    # it back (and a consumed one is never rolled back).
    consumed_by = models.OneToOneField(
        LedgerTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    alerted_at = models.DateTimeField(null=True, blank=True)
    # What the operator's client may show beside a debit (a buy-in): the player's play
    # session and any reality check waiting (docs/player-protection.md), sent as ``context``.
    context = models.JSONField(default=dict, blank=True, db_default={})
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_call_amount_positive"),
            models.CheckConstraint(
                condition=Q(kind="rollback", rolls_back__isnull=False)
                | (~Q(kind="rollback") & Q(rolls_back__isnull=True)),
                name="wallet_call_rollback_names_its_debit",
            ),
        ]
        indexes = [
            models.Index(fields=("status", "next_attempt_at"), name="wallet_call_due"),
            models.Index(fields=("player", "created_at"), name="wallet_call_player"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} {self.status}"
