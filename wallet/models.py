"""The wallet's tables: the double-entry ledger, exchange rates, cashier caps and the
player's own limits and breaks (time-outs and self-exclusions) (docs/wallet.md "Ledger").

Ledger invariants and who holds them:
- Amounts are signed integers in the currency's minor unit; every account has one currency
  and every entry carries it (the PostgreSQL trigger checks it equals the account's).
- Every transaction sums to zero per currency: the services build it so, and on PostgreSQL
  a deferred constraint trigger (migration 0002) refuses to commit anything else.
- Ledger transactions and entries are append-only: the model and its querysets refuse
  updates and deletes, and on PostgreSQL a trigger refuses them too. A correction is a new
  reversing transaction.
- Player, escrow and house-fee balances never go below zero (CHECK). House FX and the
  outside world may (they are the house's position and the money outside the platform).
- ``Account.balance`` caches the sum of the account's entries; only ``post``
  (wallet/ledger/post.py) changes it, in the same database transaction as the entries and
  under the row locks of ``wallet.locks``. ``manage.py reconcile`` proves it.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from gin_platform.events.webhook_targets import MAX_URL_LENGTH, validate_webhook_url
from gin_platform.models import Operator, Player

CURRENCY_LENGTH = 3
GAME_REF_LENGTH = 100
REFERENCE_LENGTH = 320  # "withdrawal:<operator uuid>:<255-character Idempotency-Key>" fits
COMPONENT_LENGTH = 32
RATE_MAX_DIGITS = 24
RATE_DECIMAL_PLACES = 12


class AppendOnlyError(RuntimeError):
    """Ledger rows are never changed or deleted; post a reversing transaction instead."""


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")

    def delete(self):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")

    def update_or_create(self, defaults=None, create_defaults=None, **kwargs):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")


class AppendOnlyModel(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError(f"{type(self).__name__} rows are append-only")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError(f"{type(self).__name__} rows are append-only")


# Accounts owned by the operator alone (no player, no game), sharded like the house's.
_OPERATOR_OWNED = ("house_fee", "house_fx", "outside", "operator_wallet", "network_position")


class Account(models.Model):
    """One currency, one owner: a player's wallet, a game's escrow, or a house account."""

    class Kind(models.TextChoices):
        PLAYER = "player", "Player wallet"
        ESCROW = "escrow", "Table escrow"
        HOUSE_FEE = "house_fee", "House fee"
        HOUSE_FX = "house_fx", "House FX"
        OUTSIDE = "outside", "Outside world"
        # Seamless mode: the mirror of what the operator's own wallet moved for us.
        OPERATOR_WALLET = "operator_wallet", "Operator wallet"
        # Network play (docs/network.md "Money between operators"): what an operator's books
        # have put into the network's books (positive: the operator owes the network) or
        # taken out of them (negative: the network owes the operator). Every operator has
        # one per currency (sharded), the network's operator too; they net to zero.
        NETWORK_POSITION = "network_position", "Network position"

    NON_NEGATIVE_KINDS = (Kind.PLAYER, Kind.ESCROW, Kind.HOUSE_FEE)
    HOUSE_KINDS = (Kind.HOUSE_FEE, Kind.HOUSE_FX, Kind.OUTSIDE)

    kind = models.CharField(max_length=16, choices=Kind.choices)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="wallet_accounts"
    )
    # NULL (not "") when absent: the owner CHECK and the partial unique index rely on it.
    game_ref = models.CharField(max_length=GAME_REF_LENGTH, null=True, blank=True)  # noqa: DJ001
    # House accounts are split into shards (``WALLET_HOUSE_SHARDS``) so that concurrent
    # postings of different players or games do not all queue on one hot row; the house's
    # balance in a currency is the sum over its shards. Player and escrow accounts: 0.
    shard = models.PositiveSmallIntegerField(default=0)
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(kind__in=("player", "escrow", "house_fee")) | Q(balance__gte=0),
                name="wallet_account_balance_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=_OPERATOR_OWNED) | Q(shard=0),
                name="wallet_account_only_house_accounts_are_sharded",
            ),
            models.CheckConstraint(
                condition=(Q(kind="player") & Q(player__isnull=False) & Q(game_ref__isnull=True))
                | (Q(kind="escrow") & Q(player__isnull=True) & Q(game_ref__isnull=False))
                | (Q(kind__in=_OPERATOR_OWNED) & Q(player__isnull=True) & Q(game_ref__isnull=True)),
                name="wallet_account_owner_matches_kind",
            ),
            models.UniqueConstraint(
                fields=("player", "currency"),
                condition=Q(kind="player"),
                name="wallet_one_player_account_per_currency",
            ),
            # Only escrows have a game_ref (the CHECK above), so this is "one escrow per game
            # and currency"; written on game_ref rather than kind because a prepared
            # statement's generic plan can use a partial index only when the query implies
            # its predicate, and ``game_ref = $1`` implies ``game_ref IS NOT NULL`` whereas
            # ``kind = $2`` never implies ``kind = 'escrow'`` (docs/deploy.md).
            models.UniqueConstraint(
                fields=("game_ref", "currency"),
                condition=Q(game_ref__isnull=False),
                name="wallet_one_escrow_per_game_and_currency",
            ),
            models.UniqueConstraint(
                fields=("operator", "kind", "currency", "shard"),
                condition=Q(kind__in=_OPERATOR_OWNED),
                name="wallet_one_house_account_per_operator_kind_currency_shard",
            ),
        ]

    def __str__(self) -> str:
        owner = self.player_id or self.game_ref or f"{self.operator_id}#{self.shard}"
        return f"{self.kind}:{owner}:{self.currency}"

    @property
    def may_go_negative(self) -> bool:
        return self.kind not in self.NON_NEGATIVE_KINDS


class LedgerTransaction(AppendOnlyModel):
    """One posting: entries that sum to zero per currency, under a unique reference."""

    # Not a column: the entries ``post`` (wallet.ledger.post) has just written, which
    # ``wallet.selectors.transactions.transaction_entries`` returns instead of reading them back.
    posted_entries: list[LedgerEntry] | None = None
    # Not a column: whether each payee's operator keeps its players' balances (seamless
    # wallet mode), read under the posting's locks by a refund or settlement, which
    # ``wallet.services.seamless_credits_record`` uses instead of asking again.
    seamless_by_operator: dict[Any, bool] | None = None

    class Kind(models.TextChoices):
        DEPOSIT = "deposit"
        WITHDRAWAL = "withdrawal"
        BUY_IN = "buy_in"
        REFUND = "refund"
        SETTLEMENT = "settlement"
        REVERSAL = "reversal"
        PRACTICE_GRANT = "practice_grant"
        PRACTICE_TOP_UP = "practice_top_up"
        # Seamless mode (docs/wallet.md "Seamless wallet"): mirrors of acknowledged calls.
        SEAMLESS_DEBIT = "seamless_debit"
        SEAMLESS_CREDIT = "seamless_credit"
        SEAMLESS_ROLLBACK = "seamless_rollback"
        # A staff credit or debit of a player's wallet, approved by a second person.
        ADJUSTMENT = "adjustment"
        # The net settlement of an operator's network position (four eyes).
        NETWORK_SETTLEMENT = "network_settlement"
        # Every stake of an interrupted game given back at once (R13: the game is voided).
        VOID = "void"
        # A colluder's winnings given to the victims, approved by a second risk user
        # (integrity's cases; one per case): wallet/services/confiscation.py.
        CONFISCATION = "confiscation"

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    reference = models.CharField(max_length=REFERENCE_LENGTH, unique=True)
    # The request's headline amount (deposit amount, buy-in in the room currency, escrow
    # total settled, ...): what a repeated reference is compared with.
    amount = models.BigIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=CURRENCY_LENGTH, blank=True, default="")
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    game_ref = models.CharField(max_length=GAME_REF_LENGTH, null=True, blank=True)  # noqa: DJ001
    escrow = models.ForeignKey(
        Account, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reverses = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversal"
    )
    # Rate snapshots of every conversion in this transaction (base, quote, rate, as_of, ...).
    fx = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    metadata = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    actor_type = models.CharField(max_length=16)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=("operator", "created_at"), name="wallet_txn_operator_created"),
            models.Index(fields=("escrow", "kind"), name="wallet_txn_escrow_kind"),
            models.Index(fields=("game_ref",), name="wallet_txn_game_ref"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.reference}"


class LedgerEntry(AppendOnlyModel):
    """One signed amount on one account, tagged with the component it stands for."""

    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="entries"
    )
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    currency = models.CharField(max_length=CURRENCY_LENGTH)
    amount = models.BigIntegerField()
    # The account's balance right after this entry (a running balance for statements).
    balance_after = models.BigIntegerField()
    component = models.CharField(max_length=COMPONENT_LENGTH)
    # The player this line is for (their wallet, their escrow stake or payout, the FX legs
    # of their conversion); empty for house-only lines such as the fee.
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "ledger entries"
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="wallet_entry_amount_not_zero"),
        ]
        indexes = [
            models.Index(fields=("account", "created_at"), name="wallet_entry_account_created"),
            models.Index(fields=("player", "transaction"), name="wallet_entry_player_txn"),
        ]

    def __str__(self) -> str:
        return f"{self.account} {self.amount:+d} {self.component}"


class ExchangeRate(models.Model):
    """1 unit of ``base`` is worth ``rate`` units of ``quote`` (major units), as of a time."""

    base = models.CharField(max_length=CURRENCY_LENGTH)
    quote = models.CharField(max_length=CURRENCY_LENGTH)
    rate = models.DecimalField(max_digits=RATE_MAX_DIGITS, decimal_places=RATE_DECIMAL_PLACES)
    as_of = models.DateTimeField()
    source = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(rate__gt=0), name="wallet_rate_positive"),
            models.CheckConstraint(
                condition=~Q(base=F("quote")), name="wallet_rate_distinct_currencies"
            ),
            models.UniqueConstraint(
                fields=("base", "quote", "as_of", "source"), name="wallet_rate_unique"
            ),
        ]
        indexes = [models.Index(fields=("base", "quote", "as_of"), name="wallet_rate_lookup")]

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate} {self.quote} ({self.as_of:%Y-%m-%d %H:%M} UTC)"


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


# --- Seamless wallet (docs/wallet.md "Seamless wallet") -------------------------------------
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
