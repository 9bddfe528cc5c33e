"""Reads of the wallet: balances, escrows, rates, limits, statements and reconciliation.

Operator scoping happens before these are called: views resolve the player with
``gin_platform.tenancy.selectors.player_get`` (another operator's player is a 404), and every query
here is then restricted to that player's rows.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Prefetch, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from wallet import fx
from wallet.amounts import parse_currency
from wallet.models import (
    Account,
    CashierCaps,
    ExchangeRate,
    LedgerEntry,
    LedgerTransaction,
    LimitKind,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
)

# The reconciliation reads live in a module of their own (the 600-line limit); imported
# from here as ever.
from wallet.reconciliation_selectors import AccountDrift as AccountDrift
from wallet.reconciliation_selectors import ReconciliationReport as ReconciliationReport
from wallet.reconciliation_selectors import UnbalancedTransaction as UnbalancedTransaction
from wallet.reconciliation_selectors import reconcile as reconcile
from wallet.windows import PERIODS, Window, windows

Kind = LedgerTransaction.Kind
# Postings that put a player's money at stake in a game or give it back: the loss limit and
# escrow contributions are made of these (a reversal of one counts like the original).
CONTRIBUTION_KINDS = (Kind.BUY_IN, Kind.REFUND)
PLAY_KINDS = (Kind.BUY_IN, Kind.REFUND, Kind.SETTLEMENT)


def _kinds_q(kinds: tuple[str, ...], prefix: str = "") -> Q:
    return Q(**{f"{prefix}kind__in": kinds}) | Q(
        **{f"{prefix}kind": Kind.REVERSAL, f"{prefix}reverses__kind__in": kinds}
    )


# --- Exchange rates --------------------------------------------------------------------
@dataclass(frozen=True)
class RateQuote:
    """The rate used to turn ``base`` into ``quote`` (1 base = rate quote), and its origin."""

    base: str
    quote: str
    rate: Decimal
    as_of: datetime
    source: str
    rate_id: int
    inverted: bool  # only quote/base was recorded: the reciprocal is used

    def snapshot(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "quote": self.quote,
            "rate": fx.rate_string(self.rate),
            "as_of": self.as_of.isoformat(),
            "source": self.source,
            "rate_id": self.rate_id,
            "inverted": self.inverted,
        }


def latest_rate(*, base: str, quote: str, at: datetime | None = None) -> RateQuote | None:
    """The most recent rate for base->quote with as_of <= at (default now).

    A recorded base/quote pair is used as is; when only quote/base is recorded its
    reciprocal is used. Between the two the later ``as_of`` wins (the direct pair on a
    tie); among rows with the same ``as_of`` the one recorded last.
    """
    if base == quote:
        raise ValueError("a rate needs two different currencies")
    moment = at or timezone.now()
    candidates = ExchangeRate.objects.filter(
        Q(base=base, quote=quote) | Q(base=quote, quote=base), as_of__lte=moment
    )
    direct = candidates.filter(base=base).order_by("-as_of", "-pk").first()
    inverse = candidates.filter(base=quote).order_by("-as_of", "-pk").first()
    chosen = direct
    if inverse is not None and (direct is None or inverse.as_of > direct.as_of):
        chosen = inverse
    if chosen is None:
        return None
    inverted = chosen is inverse and chosen is not direct
    return RateQuote(
        base=base,
        quote=quote,
        rate=fx.reciprocal(chosen.rate) if inverted else chosen.rate,
        as_of=chosen.as_of,
        source=chosen.source,
        rate_id=chosen.pk,
        inverted=inverted,
    )


def exchange_rate_list(*, base: str | None = None, quote: str | None = None) -> QuerySet:
    rates = ExchangeRate.objects.all()
    if base:
        rates = rates.filter(base=base)
    if quote:
        rates = rates.filter(quote=quote)
    return rates


# (base, quote) -> the latest rate, while ``display_rates_reused`` is active.
_display_rates: ContextVar[dict[tuple[str, str], RateQuote | None] | None] = ContextVar(
    "display_rates", default=None
)


@contextmanager
def display_rates_reused() -> Iterator[None]:
    """Within the block, ``display_amount`` reads each currency pair's latest rate once: a
    request or a push renders the same few amounts many times (display only, nothing
    moves). Nested blocks share the outer one's rates."""
    if _display_rates.get() is not None:
        yield
        return
    token = _display_rates.set({})
    try:
        yield
    finally:
        _display_rates.reset(token)


# The latest rate of each pair shown in amounts, kept in this process for DISPLAY_RATE_SECONDS:
# every push of a game in another currency than the player's display currency showed an
# amount, and read the rate (two statements) each time, a twelfth of a web process's time
# under the push benchmark. Display only (R11): nothing that moves money reads it (a posting
# quotes its own rate, wallet.services), so a new rate shows in every process within that
# time, and at once in the process that recorded it (``display_rates_forget``).
DISPLAY_RATE_SECONDS = 2.0
_recent_display_rates: dict[tuple[str, str], tuple[float, RateQuote | None]] = {}


def display_rates_forget() -> None:
    """Drop this process's display rates (a rate was recorded; and between tests)."""
    _recent_display_rates.clear()


def _display_rate(*, base: str, quote: str) -> RateQuote | None:
    memo = _display_rates.get()
    if memo is not None and (base, quote) in memo:
        return memo[base, quote]
    now = time.monotonic()
    recent = _recent_display_rates.get((base, quote))
    if recent is not None and recent[0] > now:
        rate = recent[1]
    else:
        rate = latest_rate(base=base, quote=quote)
        _recent_display_rates[base, quote] = (now + DISPLAY_RATE_SECONDS, rate)
    if memo is not None:  # one answer shows one rate per pair, however old the memo
        memo[base, quote] = rate
    return rate


def display_amount(*, amount: int, currency: str, player: Player) -> dict[str, Any]:
    """An amount, and the same amount in the player's display currency (R11).

    ``display`` is the amount converted at the latest rate (ROUND_HALF_EVEN, shown only,
    nothing moves), with the rate and its ``as_of``; the same currency gives rate "1" and
    ``as_of`` null. It is null for practice chips (never converted) and when no rate exists.
    """
    code = parse_currency(currency)
    body: dict[str, Any] = money_dict(amount, code)
    target = player.display_currency
    if code == PRACTICE_CURRENCY:
        body["display"] = None
    elif target == code:
        body["display"] = money_dict(amount, code) | {"rate": "1", "as_of": None}
    else:
        quote = _display_rate(base=code, quote=target)
        if quote is None:
            body["display"] = None
        else:
            shown = fx.convert_minor(
                amount, base=code, quote=target, rate=quote.rate, rounding=fx.DISPLAY
            )
            body["display"] = money_dict(shown, target) | {
                "rate": fx.rate_string(quote.rate),
                "as_of": quote.as_of.isoformat(),
            }
    return body


# --- Accounts and escrows ------------------------------------------------------------------
def wallet_account(*, player: Player, currency: str | None = None) -> Account | None:
    return Account.objects.filter(
        kind=Account.Kind.PLAYER, player=player, currency=currency or player.wallet_currency
    ).first()


def wallet_balance(*, player: Player, currency: str | None = None) -> int:
    """The player's wallet balance (their wallet currency, or XGC for practice chips)."""
    account = wallet_account(player=player, currency=currency)
    return account.balance if account else 0


def house_balance(*, operator: Operator, kind: str, currency: str) -> int:
    """The house's balance of one kind (house_fee, house_fx, outside) in a currency: the sum
    over the account's shards."""
    total = Account.objects.filter(operator=operator, kind=kind, currency=currency).aggregate(
        total=Sum("balance")
    )["total"]
    return int(total or 0)


def escrow_account(*, game_ref: str, currency: str) -> Account | None:
    return Account.objects.filter(
        kind=Account.Kind.ESCROW, game_ref=game_ref, currency=currency
    ).first()


def escrow_balance(*, game_ref: str, currency: str) -> int:
    """What the game's escrow in ``currency`` holds now (0 if nobody bought in)."""
    account = escrow_account(game_ref=game_ref, currency=parse_currency(currency))
    return account.balance if account else 0


def escrow_is_settled(*, escrow: Account) -> bool:
    return LedgerTransaction.objects.filter(
        escrow=escrow, kind=Kind.SETTLEMENT, reversal__isnull=True
    ).exists()


def _contribution_entries(escrow: Account) -> QuerySet[LedgerEntry]:
    return LedgerEntry.objects.filter(account=escrow).filter(
        _kinds_q(CONTRIBUTION_KINDS, prefix="transaction__")
    )


def escrow_contributions(*, game_ref: str, currency: str) -> dict[uuid.UUID, int]:
    """Per player, what they put into the game's escrow: buy-ins minus refunds.

    Settlement payouts do not reduce it (after settlement the escrow is 0 but this still
    says what each player staked). Players whose buy-ins were all refunded are left out.
    """
    escrow = escrow_account(game_ref=game_ref, currency=parse_currency(currency))
    if escrow is None:
        return {}
    rows = (
        _contribution_entries(escrow)
        .values("player_id")
        .annotate(total=Sum("amount"))
        .order_by("player_id")
    )
    return {row["player_id"]: row["total"] for row in rows if row["total"]}


def player_contribution_transactions(
    *, escrow: Account, player: Player
) -> QuerySet[LedgerTransaction]:
    """The player's buy-ins and refunds for this escrow (and reversals of them)."""
    return LedgerTransaction.objects.filter(_kinds_q(CONTRIBUTION_KINDS), escrow=escrow).filter(
        pk__in=LedgerEntry.objects.filter(account=escrow, player=player).values("transaction_id")
    )


# --- Practice chips ------------------------------------------------------------------------
def practice_top_up_in(*, player: Player, window: Window) -> LedgerTransaction | None:
    """The player's practice-chip top-up posted in ``window``, if any. Gross: a reversed
    top-up still used its period (a reversal must not be a way to a second one)."""
    return (
        LedgerTransaction.objects.filter(
            kind=Kind.PRACTICE_TOP_UP,
            player=player,
            created_at__gte=window.start,
            created_at__lt=window.end,
        )
        .order_by("created_at", "pk")
        .first()
    )


def practice_chips_ever_issued(*, player: Player) -> bool:
    """Whether the player ever received practice chips (the first-use grant or a top-up)."""
    return LedgerTransaction.objects.filter(
        player=player, kind__in=(Kind.PRACTICE_GRANT, Kind.PRACTICE_TOP_UP)
    ).exists()


# --- Caps, limits, self-exclusion ----------------------------------------------------------
def cashier_caps_get(*, operator: Operator, currency: str) -> CashierCaps | None:
    return CashierCaps.objects.filter(operator=operator, currency=currency).first()


def cashier_caps_list(*, operator: Operator) -> QuerySet[CashierCaps]:
    return CashierCaps.objects.filter(operator=operator).order_by("currency")


def _window_sums(entries: QuerySet[LedgerEntry], current: dict[str, Window]) -> dict[str, int]:
    earliest = min(w.start for w in current.values())
    latest = max(w.end for w in current.values())
    sums = entries.filter(created_at__gte=earliest, created_at__lt=latest).aggregate(
        **{
            period: Coalesce(
                Sum("amount", filter=Q(created_at__gte=w.start, created_at__lt=w.end)),
                Value(0),
            )
            for period, w in current.items()
        }
    )
    return {period: int(sums[period]) for period in current}


def deposit_totals(*, account: Account | None, at: datetime) -> dict[str, int]:
    """Deposits into the wallet in the current day, week and month windows (gross)."""
    if account is None or account.pk is None:
        return dict.fromkeys(PERIODS, 0)
    entries = LedgerEntry.objects.filter(account=account, transaction__kind=Kind.DEPOSIT)
    return _window_sums(entries, windows(at))


def net_loss_totals(*, account: Account | None, at: datetime) -> dict[str, int]:
    """Buy-ins minus refunds and payouts in each window (negative when the player is up)."""
    if account is None or account.pk is None:
        return dict.fromkeys(PERIODS, 0)
    entries = LedgerEntry.objects.filter(account=account).filter(
        _kinds_q(PLAY_KINDS, prefix="transaction__")
    )
    return {period: -total for period, total in _window_sums(entries, windows(at)).items()}


def player_limits_in_force(*, player: Player, kind: str, at: datetime) -> dict[str, int]:
    """The player's ``kind`` limits in force at ``at``, by period (periods without none)."""
    in_force: dict[str, int] = {}
    for limit in PlayerLimit.objects.filter(player=player, kind=kind):
        amount = limit.effective_amount(at)
        if amount is not None:
            in_force[limit.period] = amount
    return in_force


@dataclass(frozen=True)
class LimitState:
    kind: str
    period: str
    currency: str
    amount: int | None
    pending_amount: int | None
    pending_effective_at: datetime | None
    used: int
    window: Window

    @property
    def remaining(self) -> int | None:
        return None if self.amount is None else max(self.amount - self.used, 0)


def player_limit_states(*, player: Player, at: datetime | None = None) -> list[LimitState]:
    """Every (kind, period) limit of the player: in force, pending, used in this window."""
    moment = at or timezone.now()
    account = wallet_account(player=player)
    used = {
        LimitKind.DEPOSIT: deposit_totals(account=account, at=moment),
        LimitKind.LOSS: net_loss_totals(account=account, at=moment),
    }
    rows = {(r.kind, r.period): r for r in PlayerLimit.objects.filter(player=player)}
    current = windows(moment)
    states = []
    for kind in LimitKind.values:
        for period in PERIODS:
            row = rows.get((kind, period))
            pending_due = row is not None and row.pending_effective_at is not None
            pending_due = pending_due and row.pending_effective_at <= moment
            states.append(
                LimitState(
                    kind=kind,
                    period=period,
                    currency=player.wallet_currency,
                    amount=row.effective_amount(moment) if row else None,
                    pending_amount=None if row is None or pending_due else row.pending_amount,
                    pending_effective_at=(
                        None if row is None or pending_due else row.pending_effective_at
                    ),
                    used=used[kind][period],
                    window=current[period],
                )
            )
    return states


def player_limit_history(*, player: Player) -> QuerySet[PlayerLimitChange]:
    return PlayerLimitChange.objects.filter(player=player)


def self_exclusions_in_force(*, player: Any, at: datetime) -> QuerySet[SelfExclusion]:
    """The player's self-exclusions in force at ``at`` (``player``: a player, its id, or
    an ``OuterRef``)."""
    return SelfExclusion.objects.filter(player=player, starts_at__lte=at, ends_at__gt=at)


def self_excluded_until(*, player: Player, at: datetime | None = None) -> datetime | None:
    """The end of the player's self-exclusion in force at ``at``, or None."""
    moment = at or timezone.now()
    return (
        self_exclusions_in_force(player=player, at=moment)
        .order_by("-ends_at")
        .values_list("ends_at", flat=True)
        .first()
    )


def self_exclusion_list(*, player: Player) -> QuerySet[SelfExclusion]:
    return SelfExclusion.objects.filter(player=player).order_by("-created_at", "-pk")


# --- Statements ------------------------------------------------------------------------
def player_transactions(
    *,
    player: Player,
    kind: str | None = None,
    game_ref: str | None = None,
    currency: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
) -> QuerySet[LedgerTransaction]:
    """Transactions with a line for this player, each with only this player's lines
    prefetched as ``player_entries`` (never another player's wallet or house balances)."""
    transactions = LedgerTransaction.objects.filter(
        pk__in=LedgerEntry.objects.filter(player=player).values("transaction_id")
    )
    if kind:
        transactions = transactions.filter(kind=kind)
    if game_ref:
        transactions = transactions.filter(game_ref=game_ref)
    if currency:
        transactions = transactions.filter(
            pk__in=LedgerEntry.objects.filter(
                player=player, account__kind=Account.Kind.PLAYER, currency=currency.upper()
            ).values("transaction_id")
        )
    if created_after:
        transactions = transactions.filter(created_at__gte=created_after)
    if created_before:
        transactions = transactions.filter(created_at__lt=created_before)
    return transactions.select_related("reversal").prefetch_related(
        Prefetch(
            "entries",
            queryset=LedgerEntry.objects.filter(player=player)
            .select_related("account")
            .order_by("pk"),
            to_attr="player_entries",
        )
    )


def player_transaction_get(*, player: Player, transaction_id: object) -> LedgerTransaction:
    try:
        pk = int(str(transaction_id))
    except ValueError:
        pk = None
    found = player_transactions(player=player).filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFoundProblem(f"No transaction {transaction_id} for this player")
    return found


def transaction_get(*, transaction_id: object) -> LedgerTransaction:
    """Any ledger transaction (back office)."""
    try:
        pk = int(str(transaction_id))
    except ValueError:
        pk = None
    found = LedgerTransaction.objects.filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFoundProblem(f"No ledger transaction {transaction_id}")
    return found
