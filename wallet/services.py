"""State changes of the wallet: postings, rates, caps, limits, self-exclusion (issue 4).

Every function is keyword-only, typed and atomic, makes one state change, and writes its
audit row in the same database transaction. Other apps move money only through here:
``games`` with ``table_buy_in`` / ``table_refund``, ``settlement`` with ``escrow_settle``.

How a posting is made:
1. validate the request (each bad input is its own problem type, wallet.problems);
2. resolve every account it touches (``_accounts``: one query; missing ones created in one
   global order: house accounts, escrows, wallets) and lock them all at once in
   primary-key order (``wallet.locks.lock_accounts``);
3. a reference seen before returns the first transaction if it was the same request, and
   is ``reference-conflict`` otherwise: every posting is idempotent by its unique
   reference, and checked under the locks, so a concurrent twin has either committed
   (and is returned) or is queued behind us (refunds and settlements also check before
   locking, to skip work on a replay);
4. check the rules against the locked balances (status, self-exclusion, caps, limits,
   funds, escrow state);
5. ``_post``: insert the transaction and its entries (summing to zero per currency), move
   the cached balances by the same amounts in one UPDATE, write the audit row.
A problem raised at any step leaves nothing posted: the function is one transaction (a
savepoint inside the caller's), and ``_reference_guard`` turns a reference lost to a
concurrent posting on other accounts into ``reference-conflict``.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import BigIntegerField, Case, F, Q, Value, When
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, is_decimal_string, money_dict
from gin_platform.principals import Actor
from gin_platform.problems import Problem
from wallet import fx, selectors
from wallet.amounts import parse_currency
from wallet.locks import lock_accounts, lock_cashier_caps, lock_player_limit
from wallet.models import (
    COMPONENT_LENGTH,
    GAME_REF_LENGTH,
    RATE_DECIMAL_PLACES,
    RATE_MAX_DIGITS,
    REFERENCE_LENGTH,
    Account,
    CashierCaps,
    ExchangeRate,
    LedgerEntry,
    LedgerTransaction,
    LimitKind,
    LimitPeriod,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
)
from wallet.problems import (
    AlreadyReversedProblem,
    AmountBelowMinimumProblem,
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    CapExceededProblem,
    CashierCapsInvalidProblem,
    CurrencyMismatchProblem,
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
    EscrowUnbalancedProblem,
    ExchangeRateConflictProblem,
    ExchangeRateInvalidProblem,
    FxRateStaleProblem,
    FxRateUnavailableProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    KycRequiredProblem,
    LimitExceededProblem,
    LimitInvalidProblem,
    NothingToRefundProblem,
    PayoutInvalidProblem,
    PlayerInactiveProblem,
    PracticeChipsNotConvertibleProblem,
    PracticeTopUpTooSoonProblem,
    ReferenceConflictProblem,
    ReferenceInvalidProblem,
    SelfExcludedProblem,
    SelfExclusionPeriodInvalidProblem,
    TransactionNotReversibleProblem,
)
from wallet.selectors import (  # re-exported: part of the wallet's contract (docs/wallet.md)
    ReconciliationReport,
    display_amount,
    escrow_balance,
    escrow_contributions,
    reconcile,
)
from wallet.windows import Window, fixed_window, windows

__all__ = [
    "EscrowPayout",
    "ExchangeRateLoadResult",
    "ReconciliationReport",
    "cashier_caps_set",
    "deposit",
    "display_amount",
    "escrow_balance",
    "escrow_contributions",
    "escrow_settle",
    "exchange_rate_record",
    "exchange_rates_load",
    "player_limit_set",
    "practice_chips_top_up",
    "reconcile",
    "self_exclusion_create",
    "table_buy_in",
    "table_refund",
    "transaction_reverse",
    "withdraw",
]

Kind = LedgerTransaction.Kind
AccountKind = Account.Kind

MAX_AMOUNT = 10**15  # minor units; far above any real posting, far below BIGINT overflow
COMPONENT_SHAPE = re.compile(rf"^[a-z][a-z0-9_]{{0,{COMPONENT_LENGTH - 1}}}$")
RESERVED_COMPONENTS = frozenset({"fee", "fx"})
LIMIT_COOLING_OFF = timedelta(hours=24)
SELF_EXCLUSION_MAX_DAYS = 3650
RATE_FUTURE_TOLERANCE = timedelta(minutes=5)


def practice_grant_amount() -> int:
    """Practice chips granted on a player's first practice buy-in (default 10,000 XGC)."""
    return int(settings.WALLET_PRACTICE_GRANT)


def practice_top_up_seconds() -> int:
    """The length of a practice-chip top-up period: at most one top-up per player per
    period (default one hour, i.e. clock hours in UTC; WALLET_PRACTICE_TOP_UP_SECONDS)."""
    return max(1, int(settings.WALLET_PRACTICE_TOP_UP_SECONDS))


def practice_top_up_window(*, at: datetime) -> Window:
    """The top-up period containing ``at``: ``[k * seconds, (k + 1) * seconds)`` since the
    Unix epoch, UTC (wallet.windows.fixed_window)."""
    return fixed_window(at, seconds=practice_top_up_seconds())


def fx_max_age() -> timedelta:
    """The oldest rate money may move at (default 7 days; WALLET_FX_MAX_AGE_SECONDS)."""
    return timedelta(seconds=int(settings.WALLET_FX_MAX_AGE_SECONDS))


@dataclass(frozen=True)
class EscrowPayout:
    """One line of a settlement: ``amount`` minor units of the escrow currency to ``player``,
    tagged with what it stands for (``points``, ``line_bonus``, ``stake``, ...). Lines may be
    negative as long as each player's total is >= 0."""

    player: Player
    amount: int
    component: str


@dataclass(frozen=True)
class _Line:
    account: Account
    amount: int
    component: str
    player_id: Any = None


# --- Validation helpers ------------------------------------------------------------------
def _check_amount(amount: object, *, field: str = "amount") -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise AmountInvalidProblem(f"{field} must be an integer of minor units", field=field)
    if amount <= 0:
        raise AmountNotPositiveProblem(f"{field} must be greater than zero", field=field)
    if amount > MAX_AMOUNT:
        raise AmountInvalidProblem(f"{field} is larger than any posting allowed", field=field)
    return amount


def _check_reference(reference: object) -> str:
    if not isinstance(reference, str) or not reference.strip():
        raise ReferenceInvalidProblem("reference must be a non-empty string")
    if len(reference) > REFERENCE_LENGTH:
        raise ReferenceInvalidProblem(f"reference is longer than {REFERENCE_LENGTH} characters")
    return reference


def _check_game_ref(game_ref: object) -> str:
    if not isinstance(game_ref, str) or not game_ref.strip() or len(game_ref) > GAME_REF_LENGTH:
        raise GameRefInvalidProblem(
            f"game_ref must be a non-empty string of at most {GAME_REF_LENGTH} characters"
        )
    return game_ref


def _check_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise TypeError("metadata must be a mapping")
    return dict(metadata)


def _cashier_currency(player: Player, currency: str) -> str:
    """Deposits and withdrawals are in the wallet currency: the cashier never converts."""
    code = parse_currency(currency)
    if code == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem(
            "practice chips cannot be deposited or withdrawn", field="currency"
        )
    if code != player.wallet_currency:
        raise CurrencyMismatchProblem(
            f"the player's wallet is in {player.wallet_currency}, not {code}",
            field="currency",
            wallet_currency=player.wallet_currency,
        )
    return code


def _money(amount: int, currency: str) -> dict[str, str]:
    return money_dict(amount, currency)


# --- Idempotency by reference ------------------------------------------------------------
_ANY = object()


def _replay(
    reference: str,
    *,
    kind: str,
    player: Player | object | None = _ANY,
    game_ref: str | object = _ANY,
    amount: int | object = _ANY,
    currency: str | object = _ANY,
    reverses: LedgerTransaction | object = _ANY,
) -> LedgerTransaction | None:
    """The transaction already posted under ``reference`` if it was the same request."""
    existing = LedgerTransaction.objects.filter(reference=reference).first()
    if existing is None:
        return None
    expected = {
        "kind": kind,
        "player_id": player.pk if isinstance(player, Player) else player,
        "game_ref": game_ref,
        "amount": amount,
        "currency": currency,
        "reverses_id": reverses.pk if isinstance(reverses, LedgerTransaction) else reverses,
    }
    differs = [
        name
        for name, value in expected.items()
        if value is not _ANY and getattr(existing, name) != value
    ]
    if differs:
        raise ReferenceConflictProblem(
            f"reference {reference!r} was already used for {existing.kind} "
            f"#{existing.pk} with a different {', '.join(differs)}",
            reference=reference,
            transaction_id=existing.pk,
        )
    return existing


# --- Accounts ----------------------------------------------------------------------------
def house_shards() -> int:
    """How many shards each house account is split into (WALLET_HOUSE_SHARDS, default 8)."""
    return max(1, int(settings.WALLET_HOUSE_SHARDS))


def shard_for(value: object) -> int:
    """The house shard a player's (or a game's) postings use: a stable hash of its id."""
    return zlib.crc32(str(value).encode()) % house_shards()


@dataclass(frozen=True)
class AccountKey:
    """Which account a posting needs (found or created by ``_accounts``)."""

    kind: str
    currency: str
    operator_id: Any
    player_id: Any = None
    game_ref: str | None = None
    shard: int = 0

    @property
    def identity(self) -> tuple:
        if self.kind == AccountKind.PLAYER:
            return (self.kind, self.currency, str(self.player_id))
        if self.kind == AccountKind.ESCROW:
            return (self.kind, self.currency, self.game_ref)
        return (self.kind, self.currency, str(self.operator_id), self.shard)

    def lookup(self) -> dict[str, Any]:
        if self.kind == AccountKind.PLAYER:
            return {"kind": self.kind, "currency": self.currency, "player_id": self.player_id}
        if self.kind == AccountKind.ESCROW:
            return {"kind": self.kind, "currency": self.currency, "game_ref": self.game_ref}
        return {
            "kind": self.kind,
            "currency": self.currency,
            "operator_id": self.operator_id,
            "shard": self.shard,
        }


def _identity(account: Account) -> tuple:
    return AccountKey(
        kind=account.kind,
        currency=account.currency,
        operator_id=account.operator_id,
        player_id=account.player_id,
        game_ref=account.game_ref,
        shard=account.shard,
    ).identity


def _house_key(*, operator_id: Any, kind: str, currency: str, shard: int) -> AccountKey:
    return AccountKey(kind=kind, currency=currency, operator_id=operator_id, shard=shard)


def _player_key(*, player: Player, currency: str) -> AccountKey:
    return AccountKey(
        kind=AccountKind.PLAYER,
        currency=currency,
        operator_id=player.operator_id,
        player_id=player.pk,
    )


def _escrow_key(*, operator_id: Any, game_ref: str, currency: str) -> AccountKey:
    return AccountKey(
        kind=AccountKind.ESCROW, currency=currency, operator_id=operator_id, game_ref=game_ref
    )


_CREATION_ORDER = {
    AccountKind.HOUSE_FEE: 0,
    AccountKind.HOUSE_FX: 0,
    AccountKind.OUTSIDE: 0,
    AccountKind.ESCROW: 1,
    AccountKind.PLAYER: 2,
}


def _accounts(*keys: AccountKey) -> list[Account]:
    """The accounts for ``keys`` (in that order): found with one query, the missing ones
    created (no lock is held yet; creation follows one global order: house accounts, then
    escrows, then wallets). Lock them afterwards with ``wallet.locks.lock_accounts``."""
    wanted = Q()
    for key in keys:
        wanted |= Q(**key.lookup())
    found = {_identity(account): account for account in Account.objects.filter(wanted)}
    missing = {key.identity: key for key in keys if key.identity not in found}
    for key in sorted(missing.values(), key=lambda k: (_CREATION_ORDER[k.kind], str(k.identity))):
        found[key.identity], _ = Account.objects.get_or_create(
            **key.lookup(), defaults={"operator_id": key.operator_id}
        )
    accounts = [found[key.identity] for key in keys]
    for key, account in zip(keys, accounts, strict=True):
        if key.kind == AccountKind.ESCROW and account.operator_id != key.operator_id:
            raise EscrowOperatorMismatchProblem(
                f"the escrow of {key.game_ref} belongs to another operator's game"
            )
    return accounts


def _rate(*, base: str, quote: str, at: datetime) -> selectors.RateQuote:
    if PRACTICE_CURRENCY in (base, quote):
        raise PracticeChipsNotConvertibleProblem(
            f"no conversion between {base} and {quote}: practice chips are play money"
        )
    found = selectors.latest_rate(base=base, quote=quote, at=at)
    if found is None:
        raise FxRateUnavailableProblem(
            f"no exchange rate between {base} and {quote}", base=base, quote=quote
        )
    if at - found.as_of > fx_max_age():
        raise FxRateStaleProblem(
            f"the latest {base}/{quote} rate is from {found.as_of.isoformat()}",
            base=base,
            quote=quote,
            as_of=found.as_of.isoformat(),
            max_age_seconds=int(fx_max_age().total_seconds()),
        )
    return found


# --- The posting primitive ---------------------------------------------------------------
class LedgerInvariantError(RuntimeError):
    """A service built a posting that breaks a ledger invariant: a bug, never user input."""


_UNIQUE_POSTING = re.compile(r"wallet_ledgertransaction.?(reference|reverses)", re.IGNORECASE)


def _reference_guard(service: Callable[..., LedgerTransaction]) -> Callable[..., LedgerTransaction]:
    """Outside the service's transaction: a unique-reference race lost to a concurrent
    posting (its transaction, or savepoint, already rolled back) becomes a problem."""

    @functools.wraps(service)
    def guarded(**kwargs: Any) -> LedgerTransaction:
        try:
            return service(**kwargs)
        except IntegrityError as exc:
            if not _UNIQUE_POSTING.search(str(exc)):
                raise
            raise ReferenceConflictProblem(
                "the reference (or the reversal of this transaction) was taken by a "
                "concurrent posting",
                reference=kwargs.get("reference"),
            ) from exc

    return guarded


def _post(
    *,
    locked: dict[int, Account],
    operator: Operator,
    kind: str,
    reference: str,
    lines: Iterable[_Line],
    actor: Actor,
    now: datetime,
    amount: int | None = None,
    currency: str = "",
    player: Player | None = None,
    game_ref: str | None = None,
    escrow: Account | None = None,
    reverses: LedgerTransaction | None = None,
    fx_snapshots: list[dict[str, Any]] | None = None,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """Write one balanced transaction on already-locked accounts and move their balances."""
    lines = [line for line in lines if line.amount != 0]
    totals: dict[str, int] = defaultdict(int)
    balances: dict[int, int] = {}
    entries: list[LedgerEntry] = []
    for line in lines:
        account = locked.get(line.account.pk)
        if account is None:
            raise LedgerInvariantError(f"account #{line.account.pk} was not locked")
        totals[account.currency] += line.amount
        balance = balances.get(account.pk, account.balance) + line.amount
        balances[account.pk] = balance
        entries.append(
            LedgerEntry(
                account=account,
                currency=account.currency,
                amount=line.amount,
                balance_after=balance,
                component=line.component,
                player_id=line.player_id,
                created_at=now,
            )
        )
    unbalanced = {code: total for code, total in totals.items() if total}
    if unbalanced:
        raise LedgerInvariantError(f"{kind} {reference} does not sum to zero: {unbalanced}")
    for pk, balance in balances.items():
        if balance < 0 and not locked[pk].may_go_negative:
            raise LedgerInvariantError(f"{kind} {reference} would overdraw {locked[pk]}")
    # A concurrent posting under the same reference on other accounts (the same request
    # would have queued on our locks and been replayed) makes this INSERT fail; the
    # ``_reference_guard`` of the service turns that into ``reference-conflict``.
    txn = LedgerTransaction.objects.create(
        operator=operator,
        kind=kind,
        reference=reference,
        amount=amount,
        currency=currency,
        player=player,
        game_ref=game_ref,
        escrow=escrow,
        reverses=reverses,
        fx=fx_snapshots or [],
        metadata=metadata or {},
        actor_type=actor.type,
        actor_id=actor.id,
        created_at=now,
    )
    for entry in entries:
        entry.transaction = txn
    LedgerEntry.objects.bulk_create(entries)
    deltas = {pk: balance - locked[pk].balance for pk, balance in balances.items()}
    if deltas:  # one UPDATE for every touched account
        Account.objects.filter(pk__in=list(deltas)).update(
            balance=F("balance")
            + Case(
                *[When(pk=pk, then=Value(delta)) for pk, delta in deltas.items()],
                output_field=BigIntegerField(),
            )
        )
    for pk, balance in balances.items():
        locked[pk].balance = balance
    audit_record(
        actor=actor,
        action=f"ledger.{kind}",
        obj=txn,
        operator=operator,
        data={
            "reference": reference,
            "player": str(player.pk) if player else None,
            "game_ref": game_ref,
            "amount": amount,
            "currency": currency,
            "entries": [[e.account_id, e.amount, e.component] for e in entries],
        },
    )
    return txn


# --- Responsible-gaming checks (under the wallet lock) -----------------------------------
def _check_not_self_excluded(player: Player, now: datetime) -> None:
    until = selectors.self_excluded_until(player=player, at=now)
    if until is not None:
        raise SelfExcludedProblem(
            f"the player is self-excluded until {until.isoformat()}", until=until.isoformat()
        )


def _post_transfer(
    *,
    locked: dict[int, Account],
    player: Player,
    kind: str,
    reference: str,
    source: Account,
    target: Account,
    amount: int,
    currency: str,
    actor: Actor,
    now: datetime,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """A player's two-leg posting: ``amount`` from ``source`` to ``target``, both lines
    tagged with the transaction's kind and the player (deposits, withdrawals, practice
    grants and top-ups)."""
    return _post(
        locked=locked,
        operator=player.operator,
        kind=kind,
        reference=reference,
        lines=[
            _Line(source, -amount, kind, player.pk),
            _Line(target, amount, kind, player.pk),
        ],
        actor=actor,
        now=now,
        amount=amount,
        currency=currency,
        player=player,
        metadata=metadata,
    )


def _check_active(player: Player) -> None:
    if not player.is_active:
        raise PlayerInactiveProblem(f"the player is {player.status}")


def _check_deposit_allowed(
    *, player: Player, wallet: Account, amount: int, currency: str, now: datetime
) -> None:
    caps = selectors.cashier_caps_get(operator=player.operator, currency=currency)
    if caps is not None:
        if caps.min_deposit is not None and amount < caps.min_deposit:
            raise AmountBelowMinimumProblem(
                f"the smallest deposit is {money_dict(caps.min_deposit, currency)['amount']}",
                cap="min_deposit",
                minimum=_money(caps.min_deposit, currency),
            )
        if caps.max_deposit is not None and amount > caps.max_deposit:
            raise CapExceededProblem(
                f"the largest deposit is {money_dict(caps.max_deposit, currency)['amount']}",
                cap="max_deposit",
                limit=_money(caps.max_deposit, currency),
                remaining=_money(caps.max_deposit, currency),
            )
    limits = selectors.player_limits_in_force(player=player, kind=LimitKind.DEPOSIT, at=now)
    window_caps = (
        {
            period: getattr(caps, f"{name}_deposit_cap")
            for period, name in (("day", "daily"), ("week", "weekly"), ("month", "monthly"))
        }
        if caps is not None
        else {}
    )
    if not limits and all(value is None for value in window_caps.values()):
        return
    totals = selectors.deposit_totals(account=wallet, at=now)
    current = windows(now)
    for period, cap in window_caps.items():
        if cap is not None and totals[period] + amount > cap:
            name = {"day": "daily", "week": "weekly", "month": "monthly"}[period]
            raise CapExceededProblem(
                f"the {name} deposit cap is {money_dict(cap, currency)['amount']} {currency}; "
                f"{money_dict(max(cap - totals[period], 0), currency)['amount']} is left",
                cap=f"{name}_deposit_cap",
                limit=_money(cap, currency),
                remaining=_money(max(cap - totals[period], 0), currency),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )
    for period in ("day", "week", "month"):
        limit = limits.get(period)
        if limit is not None and totals[period] + amount > limit:
            raise LimitExceededProblem(
                f"the player's {period} deposit limit is {money_dict(limit, currency)['amount']}"
                f" {currency}; {money_dict(max(limit - totals[period], 0), currency)['amount']}"
                " is left",
                limit=f"deposit_{period}",
                value=_money(limit, currency),
                remaining=_money(max(limit - totals[period], 0), currency),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )


def _check_loss_limits(*, player: Player, wallet: Account, stake: int, now: datetime) -> None:
    """A buy-in may be lost entirely: refuse it if losing it could pass a loss limit."""
    limits = selectors.player_limits_in_force(player=player, kind=LimitKind.LOSS, at=now)
    if not limits:
        return
    losses = selectors.net_loss_totals(account=wallet, at=now)
    current = windows(now)
    code = wallet.currency
    for period in ("day", "week", "month"):
        limit = limits.get(period)
        if limit is not None and losses[period] + stake > limit:
            left = max(limit - losses[period], 0)
            raise LimitExceededProblem(
                f"the player's {period} loss limit is {money_dict(limit, code)['amount']} {code};"
                f" this buy-in could lose {money_dict(stake, code)['amount']} and only "
                f"{money_dict(left, code)['amount']} is left",
                limit=f"loss_{period}",
                value=_money(limit, code),
                remaining=_money(left, code),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )


def _check_funds(account: Account, needed: int) -> None:
    if account.balance < needed:
        raise InsufficientFundsProblem(
            f"the {account.get_kind_display().lower()} holds "
            f"{money_dict(account.balance, account.currency)['amount']} {account.currency}, "
            f"{money_dict(needed, account.currency)['amount']} is needed",
            available=_money(account.balance, account.currency),
            needed=_money(needed, account.currency),
        )


# --- Cashier ------------------------------------------------------------------------------
def _lock_cashier_accounts(
    *, player: Player, currency: str
) -> tuple[dict[int, Account], Account, Account]:
    """The two sides of a cashier movement, locked in key order: the operator's outside-world
    account (the player's shard) and the player's wallet."""
    outside, wallet = _accounts(
        _house_key(
            operator_id=player.operator_id,
            kind=AccountKind.OUTSIDE,
            currency=currency,
            shard=shard_for(player.pk),
        ),
        _player_key(player=player, currency=currency),
    )
    return lock_accounts([outside, wallet]), outside, wallet


@_reference_guard
@transaction.atomic
def deposit(
    *,
    player: Player,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    metadata: Mapping[str, Any] | None = None,
) -> LedgerTransaction:
    """Credit the player's wallet from the outside world (the operator's cashier).

    ``currency`` must be the player's wallet currency (no conversion). Refused: inactive
    player, self-exclusion, the operator's caps, the player's deposit limits.
    """
    code = _cashier_currency(player, currency)
    _check_amount(amount)
    reference = _check_reference(reference)
    meta = _check_metadata(metadata)
    locked, outside, wallet = _lock_cashier_accounts(player=player, currency=code)
    same = {"kind": Kind.DEPOSIT, "player": player, "amount": amount, "currency": code}
    if (existing := _replay(reference, **same)) is not None:
        return existing
    _check_active(player)
    now = timezone.now()
    _check_not_self_excluded(player, now)
    wallet = locked[wallet.pk]
    _check_deposit_allowed(player=player, wallet=wallet, amount=amount, currency=code, now=now)
    return _post_transfer(
        locked=locked,
        player=player,
        kind=Kind.DEPOSIT,
        reference=reference,
        source=outside,
        target=wallet,
        amount=amount,
        currency=code,
        actor=actor,
        now=now,
        metadata=meta,
    )


@_reference_guard
@transaction.atomic
def withdraw(
    *,
    player: Player,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    metadata: Mapping[str, Any] | None = None,
) -> LedgerTransaction:
    """Debit the player's wallet to the outside world (the operator pays the player out).

    Needs KYC ``verified``. Never blocked by self-exclusion or by the player's status (a
    player can always take their money out). Refused: the operator's withdrawal min/max,
    insufficient funds.
    """
    code = _cashier_currency(player, currency)
    _check_amount(amount)
    reference = _check_reference(reference)
    meta = _check_metadata(metadata)
    locked, outside, wallet = _lock_cashier_accounts(player=player, currency=code)
    same = {"kind": Kind.WITHDRAWAL, "player": player, "amount": amount, "currency": code}
    if (existing := _replay(reference, **same)) is not None:
        return existing
    if player.kyc_status != Player.KycStatus.VERIFIED:
        raise KycRequiredProblem(
            f"withdrawals need a verified identity (kyc_status is {player.kyc_status})",
            kyc_status=player.kyc_status,
        )
    caps = selectors.cashier_caps_get(operator=player.operator, currency=code)
    if caps is not None and caps.min_withdrawal is not None and amount < caps.min_withdrawal:
        raise AmountBelowMinimumProblem(
            f"the smallest withdrawal is {money_dict(caps.min_withdrawal, code)['amount']}",
            cap="min_withdrawal",
            minimum=_money(caps.min_withdrawal, code),
        )
    if caps is not None and caps.max_withdrawal is not None and amount > caps.max_withdrawal:
        raise CapExceededProblem(
            f"the largest withdrawal is {money_dict(caps.max_withdrawal, code)['amount']}",
            cap="max_withdrawal",
            limit=_money(caps.max_withdrawal, code),
            remaining=_money(caps.max_withdrawal, code),
        )
    now = timezone.now()
    wallet = locked[wallet.pk]
    _check_funds(wallet, amount)
    return _post_transfer(
        locked=locked,
        player=player,
        kind=Kind.WITHDRAWAL,
        reference=reference,
        source=wallet,
        target=outside,
        amount=amount,
        currency=code,
        actor=actor,
        now=now,
        metadata=meta,
    )


# --- Table cashier ------------------------------------------------------------------------
@_reference_guard
@transaction.atomic
def table_buy_in(
    *,
    player: Player,
    game_ref: str,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
) -> LedgerTransaction:
    """Move ``amount`` minor units of ``currency`` (the room's) into game ``game_ref``'s escrow.

    - Real money from another wallet currency is converted through the house FX accounts at
      the latest rate, the wallet debited rounded UP (ROUND_CEILING); the rate is stored on
      the transaction (``fx``).
    - ``currency == "XGC"`` is play money from the player's practice-chip wallet, which is
      granted ``practice_grant_amount()`` chips on first use; never converted.
    - Refused (nothing posted): inactive player, insufficient funds; for real money also
      self-exclusion and a loss limit the buy-in could exceed (docs/wallet.md).
    """
    code = parse_currency(currency)
    _check_amount(amount)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    practice = code == PRACTICE_CURRENCY
    operator = player.operator
    wallet_code = PRACTICE_CURRENCY if practice else player.wallet_currency
    converts = code != wallet_code
    shard = shard_for(player.pk)
    house = [
        _house_key(operator_id=operator.pk, kind=AccountKind.HOUSE_FX, currency=c, shard=shard)
        for c in ((code, wallet_code) if converts else ())
    ]
    if practice:  # the chip mint, for the first-use grant
        house.append(
            _house_key(
                operator_id=operator.pk, kind=AccountKind.OUTSIDE, currency=code, shard=shard
            )
        )
    *house_accounts, escrow, wallet = _accounts(
        *house,
        _escrow_key(operator_id=operator.pk, game_ref=game_ref, currency=code),
        _player_key(player=player, currency=wallet_code),
    )
    locked = lock_accounts([*house_accounts, escrow, wallet])
    same = {
        "kind": Kind.BUY_IN,
        "player": player,
        "game_ref": game_ref,
        "amount": amount,
        "currency": code,
    }
    if (existing := _replay(reference, **same)) is not None:
        return existing
    _check_active(player)
    now = timezone.now()
    if not practice:
        _check_not_self_excluded(player, now)
    quote = _rate(base=code, quote=wallet_code, at=now) if converts else None
    fx_room, fx_wallet = house_accounts[:2] if converts else (None, None)
    mint = house_accounts[-1] if practice else None
    if selectors.escrow_is_settled(escrow=escrow):
        raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
    if practice and mint is not None:
        _practice_grant_if_first(
            player=player, locked=locked, mint=mint, wallet=wallet, actor=actor, now=now
        )
    wallet_amount = (
        amount
        if quote is None
        else fx.convert_minor(
            amount, base=code, quote=wallet_code, rate=quote.rate, rounding=fx.PLAYER_PAYS
        )
    )
    wallet = locked[wallet.pk]
    if not practice:
        _check_loss_limits(player=player, wallet=wallet, stake=wallet_amount, now=now)
    _check_funds(wallet, wallet_amount)
    lines = [_Line(wallet, -wallet_amount, "stake", player.pk)]
    snapshots = []
    if quote is not None:
        lines += [
            _Line(fx_wallet, wallet_amount, "fx", player.pk),
            _Line(fx_room, -amount, "fx", player.pk),
        ]
        snapshots.append(
            quote.snapshot()
            | {
                "player": str(player.pk),
                "amount": amount,
                "converted": wallet_amount,
                "rounding": fx.PLAYER_PAYS,
                "direction": f"{wallet_code}->{code}",
            }
        )
    lines.append(_Line(escrow, amount, "stake", player.pk))
    return _post(
        locked=locked,
        operator=operator,
        kind=Kind.BUY_IN,
        reference=reference,
        lines=lines,
        actor=actor,
        now=now,
        amount=amount,
        currency=code,
        player=player,
        game_ref=game_ref,
        escrow=escrow,
        fx_snapshots=snapshots,
    )


def _practice_grant_if_first(
    *,
    player: Player,
    locked: dict[int, Account],
    mint: Account,
    wallet: Account,
    actor: Actor,
    now: datetime,
) -> None:
    """The one-time practice-chip grant, posted before a player's first practice buy-in
    (unless the player already got chips from a top-up asked for before ever playing)."""
    reference = f"practice-grant:{player.pk}"
    if selectors.practice_chips_ever_issued(player=player):
        return
    _post_transfer(
        locked=locked,
        player=player,
        kind=Kind.PRACTICE_GRANT,
        reference=reference,
        source=mint,
        target=wallet,
        amount=practice_grant_amount(),
        currency=PRACTICE_CURRENCY,
        actor=actor,
        now=now,
    )


def _practice_top_up_reference(*, player: Player, period: Window) -> str:
    return f"practice-top-up:{player.pk}:{period.start:%Y-%m-%dT%H:%M:%SZ}"


@_reference_guard
@transaction.atomic
def practice_chips_top_up(
    *, player: Player, actor: Actor, reference: str | None = None
) -> LedgerTransaction | None:
    """Top the player's practice-chip (XGC) wallet back up to ``practice_grant_amount()``.

    Posts exactly the difference from the operator's XGC outside-world account (the mint of
    the first-use grant) as a ``practice_top_up``; returns None, posting nothing, when the
    wallet already holds at least that much. Only the wallet counts: chips in a game's
    escrow are at stake, not in hand. At most one top-up per player per period
    (``practice_top_up_window``): another in the same period is ``practice-top-up-too-soon``.
    Refused for an inactive player. Never blocked by self-exclusion or limits (play money).

    ``reference``: the caller's unique reference; repeating it returns the first transaction.
    Without one the period's own ``practice-top-up:<player id>:<period start>`` is used, so
    the one-per-period rule is also the ledger's unique reference (a second call in the
    period, having no request of its own to replay, is ``practice-top-up-too-soon``).
    """
    if reference is not None:
        reference = _check_reference(reference)
    mint, wallet = _accounts(
        _house_key(
            operator_id=player.operator_id,
            kind=AccountKind.OUTSIDE,
            currency=PRACTICE_CURRENCY,
            shard=shard_for(player.pk),
        ),
        _player_key(player=player, currency=PRACTICE_CURRENCY),
    )
    locked = lock_accounts([mint, wallet])
    same = {"kind": Kind.PRACTICE_TOP_UP, "player": player, "currency": PRACTICE_CURRENCY}
    if reference is not None and (existing := _replay(reference, **same)) is not None:
        return existing
    _check_active(player)
    now = timezone.now()  # after the lock: concurrent top-ups see each other's postings
    wallet = locked[wallet.pk]
    target = practice_grant_amount()
    if wallet.balance >= target:
        return None
    period = practice_top_up_window(at=now)
    earlier = selectors.practice_top_up_in(player=player, window=period)
    if earlier is not None:
        raise PracticeTopUpTooSoonProblem(
            f"the practice chips were topped up at {earlier.created_at.isoformat()}; the next "
            f"top-up is possible from {period.end.isoformat()}",
            transaction_id=earlier.pk,
            window_start=period.start.isoformat(),
            window_end=period.end.isoformat(),
            next_top_up_at=period.end.isoformat(),
        )
    amount = target - wallet.balance
    return _post_transfer(
        locked=locked,
        player=player,
        kind=Kind.PRACTICE_TOP_UP,
        reference=reference or _practice_top_up_reference(player=player, period=period),
        source=mint,
        target=wallet,
        amount=amount,
        currency=PRACTICE_CURRENCY,
        actor=actor,
        now=now,
        metadata={
            "target": target,
            "balance_before": wallet.balance,
            "window_start": period.start.isoformat(),
            "window_end": period.end.isoformat(),
        },
    )


@_reference_guard
@transaction.atomic
def table_refund(
    *, player: Player, game_ref: str, currency: str, reference: str, actor: Actor
) -> LedgerTransaction:
    """Give the player back everything they have in the game's (unsettled) escrow.

    The refund undoes the player's buy-ins exactly: the same amounts on the same accounts,
    so a converted buy-in comes back at its stored rate and the wallet gets back precisely
    what it paid (no FX gain or loss, no rounding). Never blocked by self-exclusion or
    status. Refused: no escrow, escrow settled, nothing left to refund.
    """
    code = parse_currency(currency)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    same = {"kind": Kind.REFUND, "player": player, "game_ref": game_ref, "currency": code}
    if (existing := _replay(reference, **same)) is not None:
        return existing
    escrow = selectors.escrow_account(game_ref=game_ref, currency=code)
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {code}")
    contributions = selectors.player_contribution_transactions(escrow=escrow, player=player)
    accounts = Account.objects.filter(
        pk__in=LedgerEntry.objects.filter(transaction__in=contributions).values("account_id")
    )
    locked = lock_accounts(list(accounts))
    if (existing := _replay(reference, **same)) is not None:
        return existing
    if selectors.escrow_is_settled(escrow=escrow):
        raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
    nets: dict[tuple[int, str], int] = defaultdict(int)
    entries = LedgerEntry.objects.filter(transaction__in=contributions).values_list(
        "account_id", "account__kind", "amount"
    )
    for account_id, kind, amount in entries:
        if account_id not in locked:  # pragma: no cover - same player, currency and shard
            raise LedgerInvariantError(f"a buy-in into {game_ref} changed accounts under us")
        nets[(account_id, kind)] += amount
    in_escrow = nets.get((escrow.pk, AccountKind.ESCROW), 0)
    if in_escrow <= 0:
        raise NothingToRefundProblem(f"the player has nothing in the escrow of {game_ref}")
    component = {AccountKind.PLAYER: "refund", AccountKind.ESCROW: "refund"}
    lines = [
        _Line(locked[account_id], -net, component.get(kind, "fx"), player.pk)
        for (account_id, kind), net in sorted(nets.items())
        if net
    ]
    if locked[escrow.pk].balance < in_escrow:  # pragma: no cover - the CHECK guards it too
        raise LedgerInvariantError(f"the escrow of {game_ref} holds less than its buy-ins")
    return _post(
        locked=locked,
        operator=escrow.operator,
        kind=Kind.REFUND,
        reference=reference,
        lines=lines,
        actor=actor,
        now=timezone.now(),
        amount=in_escrow,
        currency=code,
        player=player,
        game_ref=game_ref,
        escrow=escrow,
    )


def _check_payouts(
    payouts: Sequence[EscrowPayout], fee: object
) -> tuple[dict[Any, Player], dict[Any, list[EscrowPayout]]]:
    if isinstance(fee, bool) or not isinstance(fee, int) or fee < 0:
        raise PayoutInvalidProblem("fee must be an integer >= 0 of minor units")
    players: dict[Any, Player] = {}
    lines: dict[Any, list[EscrowPayout]] = defaultdict(list)
    for line in payouts:
        if not isinstance(line, EscrowPayout) or not isinstance(line.player, Player):
            raise PayoutInvalidProblem("every payout is an EscrowPayout(player, amount, component)")
        if isinstance(line.amount, bool) or not isinstance(line.amount, int):
            raise PayoutInvalidProblem("payout amounts are integers of minor units")
        if abs(line.amount) > MAX_AMOUNT:
            raise PayoutInvalidProblem("a payout amount is larger than any posting allowed")
        if not isinstance(line.component, str) or not COMPONENT_SHAPE.match(line.component):
            raise PayoutInvalidProblem(
                f"component {line.component!r} is not a lower-case tag like 'line_bonus'"
            )
        if line.component in RESERVED_COMPONENTS:
            raise PayoutInvalidProblem(
                f"component {line.component!r} is reserved (the fee is the `fee` argument)"
            )
        players[line.player.pk] = line.player
        lines[line.player.pk].append(line)
    for player_id, player_lines in lines.items():
        total = sum(line.amount for line in player_lines)
        if total < 0:
            raise PayoutInvalidProblem(
                f"the payout lines of player {player_id} add up to {total}, below zero",
                player=str(player_id),
            )
    return players, lines


@_reference_guard
@transaction.atomic
def escrow_settle(
    *,
    game_ref: str,
    currency: str,
    reference: str,
    payouts: Sequence[EscrowPayout],
    fee: int,
    actor: Actor,
    metadata: dict | None = None,
) -> LedgerTransaction:
    """Empty the game's escrow: the payout lines to the players, the fee to the house.

    Each player's total is converted into their wallet currency at the latest rate through
    the house FX accounts, rounded DOWN (ROUND_FLOOR), the rate stored in ``fx`` and the FX
    legs tagged ``fx``; the escrow side keeps one entry per line and component. The payouts
    plus the fee must equal the escrow exactly (``escrow-unbalanced``); each payee must have
    bought in. Never blocked by self-exclusion, limits or status (the money is owed).
    """
    code = parse_currency(currency)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    meta = _check_metadata(metadata)
    payees, lines_by_player = _check_payouts(payouts, fee)
    total = sum(line.amount for line in payouts) + fee
    same = {"kind": Kind.SETTLEMENT, "game_ref": game_ref, "currency": code, "amount": total}
    if (existing := _replay(reference, **same)) is not None:
        return existing
    escrow = selectors.escrow_account(game_ref=game_ref, currency=code)
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {code}")
    strangers = set(payees) - selectors.escrow_participants(escrow=escrow)
    if strangers:
        raise PayoutInvalidProblem(
            f"{len(strangers)} payee(s) did not buy into {game_ref}",
            players=sorted(str(pk) for pk in strangers),
        )
    now = timezone.now()
    operator = escrow.operator
    practice = code == PRACTICE_CURRENCY
    wallet_codes = {pk: (code if practice else p.wallet_currency) for pk, p in payees.items()}
    quotes = {
        wallet_code: _rate(base=code, quote=wallet_code, at=now)
        for wallet_code in sorted(set(wallet_codes.values()))
        if wallet_code != code
    }
    # Accounts: the fee's house shard follows the game, each payee's FX legs their shard.
    keys: dict[Any, AccountKey] = {}
    if fee:
        keys["fee"] = _house_key(
            operator_id=operator.pk,
            kind=AccountKind.HOUSE_FEE,
            currency=code,
            shard=shard_for(game_ref),
        )
    for pk in sorted(payees, key=str):
        if wallet_codes[pk] != code:
            for fx_code in (code, wallet_codes[pk]):
                keys[("fx", pk, fx_code)] = _house_key(
                    operator_id=operator.pk,
                    kind=AccountKind.HOUSE_FX,
                    currency=fx_code,
                    shard=shard_for(pk),
                )
    for pk in sorted(payees, key=str):
        keys[("wallet", pk)] = _player_key(player=payees[pk], currency=wallet_codes[pk])
    accounts = dict(zip(keys, _accounts(*keys.values()), strict=True))
    locked = lock_accounts([*accounts.values(), escrow])
    if (existing := _replay(reference, **same)) is not None:
        return existing
    if selectors.escrow_is_settled(escrow=escrow):
        raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
    held = locked[escrow.pk].balance
    if held != total:
        raise EscrowUnbalancedProblem(
            f"the escrow of {game_ref} holds {money_dict(held, code)['amount']} {code}; payouts "
            f"plus fee are {money_dict(total, code)['amount']}",
            escrow=_money(held, code),
            payouts_and_fee=_money(total, code),
        )
    lines: list[_Line] = []
    snapshots = []
    for pk in sorted(lines_by_player, key=str):
        player_lines = lines_by_player[pk]
        lines += [_Line(escrow, -line.amount, line.component, pk) for line in player_lines]
        player_total = sum(line.amount for line in player_lines)
        if player_total == 0:
            continue
        wallet = accounts[("wallet", pk)]
        wallet_code = wallet_codes[pk]
        if wallet_code == code:
            lines.append(_Line(wallet, player_total, "payout", pk))
            continue
        quote = quotes[wallet_code]
        credited = fx.convert_minor(
            player_total, base=code, quote=wallet_code, rate=quote.rate, rounding=fx.HOUSE_PAYS
        )
        lines += [
            _Line(accounts[("fx", pk, code)], player_total, "fx", pk),
            _Line(accounts[("fx", pk, wallet_code)], -credited, "fx", pk),
            _Line(wallet, credited, "payout", pk),
        ]
        snapshots.append(
            quote.snapshot()
            | {
                "player": str(pk),
                "amount": player_total,
                "converted": credited,
                "rounding": fx.HOUSE_PAYS,
                "direction": f"{code}->{wallet_code}",
            }
        )
    if fee:
        lines += [_Line(escrow, -fee, "fee"), _Line(accounts["fee"], fee, "fee")]
    return _post(
        locked=locked,
        operator=operator,
        kind=Kind.SETTLEMENT,
        reference=reference,
        lines=lines,
        actor=actor,
        now=now,
        amount=total,
        currency=code,
        game_ref=game_ref,
        escrow=escrow,
        fx_snapshots=snapshots,
        metadata=meta | {"fee": fee},
    )


# --- Corrections -------------------------------------------------------------------------
@_reference_guard
@transaction.atomic
def transaction_reverse(
    *, ledger_transaction: LedgerTransaction, reference: str, reason: str, actor: Actor
) -> LedgerTransaction:
    """Post the exact opposite of a transaction (every entry negated, same components and
    players, the same FX amounts, so no new rate). A reversal cannot itself be reversed,
    and a transaction is reversed at most once. Refused if a non-negative account would go
    below zero (``insufficient-funds``), or for a buy-in or refund whose escrow is settled.
    Reversing a settlement reopens the escrow for a corrected settlement."""
    original = ledger_transaction
    reference = _check_reference(reference)
    same = {"kind": Kind.REVERSAL, "reverses": original}
    if (existing := _replay(reference, **same)) is not None:
        return existing
    if original.kind == Kind.REVERSAL:
        raise TransactionNotReversibleProblem("a reversal cannot be reversed")
    original_entries = list(original.entries.order_by("pk"))
    locked = lock_accounts([entry.account for entry in original_entries])
    if (existing := _replay(reference, **same)) is not None:
        return existing
    if LedgerTransaction.objects.filter(reverses=original).exists():
        raise AlreadyReversedProblem(f"transaction #{original.pk} is already reversed")
    if (
        original.escrow is not None
        and original.kind in (Kind.BUY_IN, Kind.REFUND)
        and selectors.escrow_is_settled(escrow=original.escrow)
    ):
        raise EscrowSettledProblem(
            f"the escrow of {original.game_ref} is settled; reverse the settlement first"
        )
    needed: dict[int, int] = defaultdict(int)
    for entry in original_entries:
        needed[entry.account_id] += entry.amount  # what the reversal takes back
    for pk, taken in needed.items():
        account = locked[pk]
        if taken > 0 and not account.may_go_negative:
            _check_funds(account, taken)
    return _post(
        locked=locked,
        operator=original.operator,
        kind=Kind.REVERSAL,
        reference=reference,
        lines=[
            _Line(locked[e.account_id], -e.amount, e.component, e.player_id)
            for e in original_entries
        ],
        actor=actor,
        now=timezone.now(),
        amount=original.amount,
        currency=original.currency,
        player=original.player,
        game_ref=original.game_ref,
        escrow=original.escrow,
        reverses=original,
        fx_snapshots=original.fx,
        metadata={"reason": reason, "reverses": original.reference},
    )


# --- Exchange rates -------------------------------------------------------------------
def _rate_currency(code: object, *, field: str) -> str:
    normalized = parse_currency(code, field=field)
    if normalized == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem(
            "practice chips have no exchange rate", field=field
        )
    return normalized


def _parse_rate(rate: object) -> Decimal:
    """A rate follows the amounts' rule (``gin_platform.money.AMOUNT_PATTERN``): a string of
    ASCII digits with an optional '.' (a JSON number, "1e3" or another script's digits is
    refused; Decimal() alone would read full-width digits), or a Decimal from our own code."""
    if isinstance(rate, str):
        if not is_decimal_string(rate):
            raise ExchangeRateInvalidProblem(
                f"{rate!r} is not a decimal rate: send a string of ASCII digits such as '1.0720'"
            )
    elif not isinstance(rate, Decimal):
        raise ExchangeRateInvalidProblem(
            "rate must be a decimal string such as '1.0720', never a JSON number"
        )
    try:
        value = Decimal(rate)
    except InvalidOperation as exc:  # pragma: no cover - the shape check already guards
        raise ExchangeRateInvalidProblem(f"{rate!r} is not a decimal rate") from exc
    if not value.is_finite() or value <= 0:
        raise ExchangeRateInvalidProblem("rate must be a positive decimal number")
    if value >= Decimal(10) ** (RATE_MAX_DIGITS - RATE_DECIMAL_PLACES):
        raise ExchangeRateInvalidProblem("rate is too large")
    stored = value.quantize(Decimal(1).scaleb(-RATE_DECIMAL_PLACES))
    if stored != value:
        raise ExchangeRateInvalidProblem(
            f"rate has more than {RATE_DECIMAL_PLACES} decimal places (it is never rounded)"
        )
    return stored


@transaction.atomic
def exchange_rate_record(
    *,
    base: str,
    quote: str,
    rate: str | Decimal,
    as_of: datetime,
    source: str,
    actor: Actor,
) -> tuple[ExchangeRate, bool]:
    """Record that 1 ``base`` = ``rate`` ``quote`` as of ``as_of``; returns (row, created).

    Recording the same (pair, as_of, source) again with the same rate changes nothing; with
    another rate it is ``exchange-rate-conflict`` (a published rate is never edited)."""
    base_code = _rate_currency(base, field="base")
    quote_code = _rate_currency(quote, field="quote")
    if base_code == quote_code:
        raise ExchangeRateInvalidProblem("base and quote must be different currencies")
    value = _parse_rate(rate)
    if not isinstance(as_of, datetime) or as_of.tzinfo is None:
        raise ExchangeRateInvalidProblem("as_of must be a date-time with a time zone")
    if as_of > timezone.now() + RATE_FUTURE_TOLERANCE:
        raise ExchangeRateInvalidProblem("as_of is in the future")
    if not isinstance(source, str) or not source.strip() or len(source) > 100:
        raise ExchangeRateInvalidProblem("source must be a non-empty string (at most 100)")
    existing = ExchangeRate.objects.filter(
        base=base_code, quote=quote_code, as_of=as_of, source=source
    ).first()
    if existing is not None:
        if existing.rate != value:
            raise ExchangeRateConflictProblem(
                f"{source} already published 1 {base_code} = {fx.rate_string(existing.rate)} "
                f"{quote_code} as of {as_of.isoformat()}"
            )
        return existing, False
    row = ExchangeRate.objects.create(
        base=base_code, quote=quote_code, rate=value, as_of=as_of, source=source
    )
    audit_record(
        actor=actor,
        action="exchange_rate.recorded",
        obj=row,
        operator=None,
        data={
            "base": base_code,
            "quote": quote_code,
            "rate": fx.rate_string(value),
            "as_of": as_of.isoformat(),
            "source": source,
        },
    )
    return row, True


@dataclass(frozen=True)
class ExchangeRateLoadResult:
    created: int
    unchanged: int


class RateRowError(Exception):
    """A row of a rates file was refused: which row, and the problem."""

    def __init__(self, row: int, problem: Exception) -> None:
        super().__init__(f"row {row}: {problem}")
        self.row = row
        self.problem = problem


@transaction.atomic
def exchange_rates_load(
    *, rows: Iterable[Mapping[str, Any]], default_source: str, actor: Actor
) -> ExchangeRateLoadResult:
    """Record many rates at once, all or nothing (``manage.py load_rates``)."""
    created = unchanged = 0
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            raise RateRowError(number, ExchangeRateInvalidProblem("a rate row is an object"))
        try:
            as_of = row.get("as_of")
            _, is_new = exchange_rate_record(
                base=row.get("base"),
                quote=row.get("quote"),
                rate=row.get("rate"),
                as_of=_parse_datetime(as_of),
                source=row.get("source") or default_source,
                actor=actor,
            )
        except Problem as exc:
            raise RateRowError(number, exc) from exc
        created += is_new
        unchanged += not is_new
    return ExchangeRateLoadResult(created=created, unchanged=unchanged)


def _parse_datetime(value: object) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ExchangeRateInvalidProblem("as_of is required (ISO 8601 with a time zone)")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ExchangeRateInvalidProblem(f"as_of {value!r} is not an ISO 8601 date-time") from exc
    if parsed.tzinfo is None:
        raise ExchangeRateInvalidProblem(f"as_of {value!r} has no time zone")
    return parsed


# --- Cashier caps ----------------------------------------------------------------------
@transaction.atomic
def cashier_caps_set(
    *, operator: Operator, currency: str, actor: Actor, **caps: int | None
) -> CashierCaps:
    """Replace the operator's caps for ``currency`` (None: no cap). Amounts in minor units."""
    code = parse_currency(currency)
    if code == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem("practice chips have no cashier", field="currency")
    unknown = set(caps) - set(CashierCaps.FIELDS)
    if unknown:
        raise CashierCapsInvalidProblem(f"unknown caps: {', '.join(sorted(unknown))}")
    values = {name: caps.get(name) for name in CashierCaps.FIELDS}
    for name, value in values.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise CashierCapsInvalidProblem(f"{name} must be an integer of minor units or null")
        if value is not None and not 0 <= value <= MAX_AMOUNT:
            raise CashierCapsInvalidProblem(f"{name} is out of range", field=name)
    for low, high in (("min_deposit", "max_deposit"), ("min_withdrawal", "max_withdrawal")):
        if values[low] is not None and values[high] is not None and values[low] > values[high]:
            raise CashierCapsInvalidProblem(f"{low} is above {high}", field=low)
    _, created = CashierCaps.objects.get_or_create(operator=operator, currency=code)
    row = lock_cashier_caps(operator_id=operator.pk, currency=code)
    old = None if created else {name: getattr(row, name) for name in CashierCaps.FIELDS}
    for name, value in values.items():
        setattr(row, name, value)
    row.updated_at = timezone.now()
    row.save()
    audit_record(
        actor=actor,
        action="cashier_caps.set",
        obj=row,
        operator=operator,
        data={"currency": code, "old": old, "new": values},
    )
    return row


# --- Player limits and self-exclusion --------------------------------------------------
@transaction.atomic
def player_limit_set(
    *,
    player: Player,
    kind: str,
    period: str,
    amount: int | None,
    actor: Actor,
    currency: str | None = None,
) -> PlayerLimit:
    """Set the player's ``kind`` (deposit, loss) limit for ``period`` (day, week, month) to
    ``amount`` minor units of the wallet currency (``currency``, if given, must be it); None
    removes it.

    A decrease (or a first limit) applies at once and cancels any pending increase; an
    increase (or a removal) applies after a 24-hour cooling-off. Every request is kept in
    the history (old, new, who, when requested, when effective).
    """
    if currency is not None and parse_currency(currency) != player.wallet_currency:
        raise CurrencyMismatchProblem(
            f"limits are in the wallet currency {player.wallet_currency}",
            field="currency",
            wallet_currency=player.wallet_currency,
        )
    if kind not in LimitKind.values or period not in LimitPeriod.values:
        raise LimitInvalidProblem(
            f"unknown limit {kind}/{period}: kinds {', '.join(LimitKind.values)}, "
            f"periods {', '.join(LimitPeriod.values)}"
        )
    if amount is not None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise AmountInvalidProblem("a limit is an integer of minor units or null")
        if amount < 0:
            raise AmountNotPositiveProblem("a limit cannot be negative", field="amount")
        if amount > MAX_AMOUNT:
            raise AmountInvalidProblem("the limit is larger than any amount allowed")
    now = timezone.now()
    PlayerLimit.objects.get_or_create(
        player=player,
        kind=kind,
        period=period,
        defaults={"currency": player.wallet_currency, "amount": None},
    )
    limit = lock_player_limit(player_id=player.pk, kind=kind, period=period)
    if limit is None:  # pragma: no cover - created just above, never deleted
        raise LedgerInvariantError("limit row vanished")
    current = limit.effective_amount(now)
    if limit.pending_effective_at is not None and limit.pending_effective_at <= now:
        limit.amount = limit.pending_amount  # a due increase: make it the limit in force
        limit.pending_amount = limit.pending_effective_at = None
    tighter = amount is not None and (current is None or amount <= current)
    if tighter or (amount is None and current is None):
        limit.amount = amount
        limit.pending_amount = limit.pending_effective_at = None
        effective_at = now
    else:
        limit.pending_amount = amount
        limit.pending_effective_at = effective_at = now + LIMIT_COOLING_OFF
    limit.updated_at = now
    limit.save()
    change = PlayerLimitChange.objects.create(
        player=player,
        kind=kind,
        period=period,
        currency=limit.currency,
        old_amount=current,
        new_amount=amount,
        created_at=now,
        effective_at=effective_at,
        actor_type=actor.type,
        actor_id=actor.id,
    )
    audit_record(
        actor=actor,
        action="player_limit.changed",
        obj=change,
        operator=player.operator,
        data={
            "player": str(player.pk),
            "limit": f"{kind}_{period}",
            "old": current,
            "new": amount,
            "effective_at": effective_at.isoformat(),
        },
    )
    return limit


@transaction.atomic
def self_exclusion_create(
    *, player: Player, days: int, actor: Actor, reason: str = ""
) -> SelfExclusion:
    """Exclude the player from deposits and real-money tables for ``days`` days, from now.

    It cannot be shortened or lifted: a new exclusion only adds time. Withdrawals and
    payouts are never blocked."""
    if (
        isinstance(days, bool)
        or not isinstance(days, int)
        or not 1 <= days <= (SELF_EXCLUSION_MAX_DAYS)
    ):
        raise SelfExclusionPeriodInvalidProblem(
            f"days must be between 1 and {SELF_EXCLUSION_MAX_DAYS}"
        )
    now = timezone.now()
    exclusion = SelfExclusion.objects.create(
        player=player,
        starts_at=now,
        ends_at=now + timedelta(days=days),
        reason=(reason or "")[:200],
        actor_type=actor.type,
        actor_id=actor.id,
        created_at=now,
    )
    audit_record(
        actor=actor,
        action="self_exclusion.created",
        obj=exclusion,
        operator=player.operator,
        data={"player": str(player.pk), "days": days, "until": exclusion.ends_at.isoformat()},
    )
    return exclusion
