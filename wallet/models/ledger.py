"""The ledger's tables: accounts, transactions and their entries, and exchange rates
(docs/wallet.md "Ledger").

Ledger invariants and who holds them:
- Amounts are signed integers in the currency's minor unit; every account has one currency
  and every entry carries it (the PostgreSQL trigger checks it equals the account's).
- Every transaction sums to zero per currency: the services build it so, and on PostgreSQL
  a deferred constraint trigger (migration 0002) refuses to commit anything else.
- Ledger transactions and entries are append-only: the model and its querysets refuse
  updates and deletes, and on PostgreSQL a trigger refuses them too. A correction is a new
  reversing transaction.
- Player, escrow, house-fee and ticket balances never go below zero (CHECK). House FX, the
  outside world and the promotion accounts may (the house's position, the money outside
  the platform, what the operator's promotions have cost).
- ``Account.balance`` caches the sum of the account's entries; only ``post``
  (wallet/ledger/post.py) changes it, in the same database transaction as the entries and
  under the row locks of ``wallet.locks``. ``manage.py reconcile`` proves it.
"""

from __future__ import annotations

from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

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
_OPERATOR_OWNED = (
    "house_fee",
    "house_fx",
    "outside",
    "operator_wallet",
    "network_position",
    "promotion",
)


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
        # R14: what the operator's promotions cost (a tournament's overlay, a freeroll's
        # prize pool, the tickets it grants): may go negative, the operator's spend.
        PROMOTION = "promotion", "Promotion"
        # R14: a player's ticket to one tournament (``game_ref``: the tournament's), granted
        # by the operator or won in a satellite; it pays an entry into that escrow.
        TICKET = "ticket", "Tournament ticket"

    NON_NEGATIVE_KINDS = (Kind.PLAYER, Kind.ESCROW, Kind.HOUSE_FEE, Kind.TICKET)
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
                condition=~Q(kind__in=("player", "escrow", "house_fee", "ticket"))
                | Q(balance__gte=0),
                name="wallet_account_balance_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=_OPERATOR_OWNED) | Q(shard=0),
                name="wallet_account_only_house_accounts_are_sharded",
            ),
            models.CheckConstraint(
                condition=(Q(kind="player") & Q(player__isnull=False) & Q(game_ref__isnull=True))
                | (Q(kind="escrow") & Q(player__isnull=True) & Q(game_ref__isnull=False))
                | (Q(kind="ticket") & Q(player__isnull=False) & Q(game_ref__isnull=False))
                | (Q(kind__in=_OPERATOR_OWNED) & Q(player__isnull=True) & Q(game_ref__isnull=True)),
                name="wallet_account_owner_matches_kind",
            ),
            models.UniqueConstraint(
                fields=("player", "currency"),
                condition=Q(kind="player"),
                name="wallet_one_player_account_per_currency",
            ),
            # Escrows and tickets have a game_ref (the CHECK above), and only tickets a
            # player too, so this is "one escrow per game and currency"; written on game_ref
            # and player rather than kind because a prepared statement's generic plan can use
            # a partial index only when the query implies its predicate: an escrow's lookup
            # says ``game_ref = $1 AND player_id IS NULL`` (wallet.ledger.keys), whereas
            # ``kind = $2`` never implies ``kind = 'escrow'`` (docs/deploy.md).
            models.UniqueConstraint(
                fields=("game_ref", "currency"),
                condition=Q(game_ref__isnull=False) & Q(player__isnull=True),
                name="wallet_one_escrow_per_game_and_currency",
            ),
            # One ticket per player, tournament and currency (an escrow's NULL player is
            # distinct from every other: escrows are the index above's). Its predicate is
            # the game_ref's alone, so any lookup by ``game_ref = $1`` can use it, an
            # escrow's without ``player_id IS NULL`` too (reading the game's tickets).
            models.UniqueConstraint(
                fields=("game_ref", "currency", "player"),
                condition=Q(game_ref__isnull=False),
                name="wallet_one_ticket_per_player_game_and_currency",
            ),
            models.UniqueConstraint(
                fields=("operator", "kind", "currency", "shard"),
                condition=Q(kind__in=_OPERATOR_OWNED),
                name="wallet_one_house_account_per_operator_kind_currency_shard",
            ),
        ]

    def __str__(self) -> str:
        owner = self.player_id or self.game_ref or f"{self.operator_id}#{self.shard}"
        if self.kind == self.Kind.TICKET:
            owner = f"{self.player_id}@{self.game_ref}"
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
        # R14 tournaments (wallet/services/tournament.py): a round's prizes out of the
        # escrow, the entry fees to the house, the operator's overlay in and back out, and
        # tickets granted, entered with, refunded and expired.
        TOURNAMENT_PRIZE = "tournament_prize"
        TOURNAMENT_FEE = "tournament_fee"
        OVERLAY = "overlay"
        OVERLAY_RETURN = "overlay_return"
        TICKET_GRANT = "ticket_grant"
        TICKET_ENTRY = "ticket_entry"
        TICKET_REFUND = "ticket_refund"
        TICKET_EXPIRY = "ticket_expiry"

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
