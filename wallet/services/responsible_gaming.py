"""Responsible gaming: the player's own deposit and loss limits, self-exclusion, and the
identity (KYC) check of withdrawals (docs/wallet.md "Player limits, self-exclusion, KYC").

- Limits are the player's, per day, week and month (UTC calendar windows,
  wallet.windows), in the wallet currency. A first limit or a decrease applies at once; an
  increase or a removal after ``LIMIT_COOLING_OFF``.
- Self-exclusion blocks deposits and real-money buy-ins, never a withdrawal, a refund or a
  payout already owed; it cannot be lifted or shortened.
- A withdrawal needs a verified identity (``check_withdrawal_kyc``), except in the sandbox.

The ``check_*`` functions are called by the cashier and escrow services under their
account locks, so concurrent postings of one player are checked one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import MAX_AMOUNT
from wallet.ledger.post import LedgerInvariantError
from wallet.locks import lock_player_limit
from wallet.models import (
    Account,
    LimitKind,
    LimitPeriod,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
)
from wallet.problems import (
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    CurrencyMismatchProblem,
    KycRequiredProblem,
    LimitExceededProblem,
    LimitInvalidProblem,
    SelfExcludedProblem,
    SelfExclusionPeriodInvalidProblem,
)
from wallet.selectors import limits as selectors
from wallet.windows import windows

LIMIT_COOLING_OFF = timedelta(hours=24)
SELF_EXCLUSION_MAX_DAYS = 3650


# --- Checks made by the cashier and the table cashier (under the wallet lock) ------------
def check_not_self_excluded(player: Player, now: datetime) -> None:
    """Self-exclusion blocks deposits and real-money buy-ins (``self-excluded``, ``until``)."""
    check_self_exclusion_ended(until=selectors.self_excluded_until(player=player, at=now))


def check_self_exclusion_ended(*, until: datetime | None) -> None:
    """``self-excluded`` if a self-exclusion runs ``until`` (as read by the caller)."""
    if until is not None:
        raise SelfExcludedProblem(
            f"the player is self-excluded until {until.isoformat()}", until=until.isoformat()
        )


def check_withdrawal_kyc(player: Player) -> None:
    """Withdrawals need a verified identity: ``Player.kyc_status == "verified"``. Not in
    the sandbox: its players are test data and its money is not real (docs/api.md
    "Sandbox"); the player's limits and self-exclusion still apply there."""
    if player.operator.is_sandbox:
        return
    if player.kyc_status != Player.KycStatus.VERIFIED:
        raise KycRequiredProblem(
            f"withdrawals need a verified identity (kyc_status is {player.kyc_status})",
            kyc_status=player.kyc_status,
        )


def check_deposit_limits(
    *, player: Player, wallet: Account, amount: int, currency: str, now: datetime
) -> None:
    """A deposit may not take the player's deposits in a window past their own limit."""
    limits = selectors.player_limits_in_force(player=player, kind=LimitKind.DEPOSIT, at=now)
    if not limits:
        return
    totals = selectors.deposit_totals(account=wallet, at=now)
    current = windows(now)
    for period in ("day", "week", "month"):
        limit = limits.get(period)
        if limit is not None and totals[period] + amount > limit:
            raise LimitExceededProblem(
                f"the player's {period} deposit limit is {money_dict(limit, currency)['amount']}"
                f" {currency}; {money_dict(max(limit - totals[period], 0), currency)['amount']}"
                " is left",
                limit=f"deposit_{period}",
                value=money_dict(limit, currency),
                remaining=money_dict(max(limit - totals[period], 0), currency),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )


def check_loss_limits(*, player: Player, wallet: Account, stake: int, now: datetime) -> None:
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
                value=money_dict(limit, code),
                remaining=money_dict(left, code),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )


@dataclass(frozen=True)
class SessionLossLimit:
    """A play session's loss limit (player protection, docs/player-protection.md): its
    start and its limit in minor units of the wallet currency."""

    since: datetime
    limit: int


def check_session_loss_limit(*, wallet: Account, stake: int, session: SessionLossLimit) -> None:
    """A buy-in may be lost entirely: refuse it if losing it could take the session's net
    loss past the session's loss limit (``limit-exceeded``, ``limit`` ``session_loss``)."""
    lost = max(-selectors.play_net_since(account=wallet, since=session.since).total, 0)
    if lost + stake > session.limit:
        code = wallet.currency
        left = max(session.limit - lost, 0)
        raise LimitExceededProblem(
            f"the session's loss limit is {money_dict(session.limit, code)['amount']} {code};"
            f" this buy-in could lose {money_dict(stake, code)['amount']} and only "
            f"{money_dict(left, code)['amount']} is left",
            limit="session_loss",
            value=money_dict(session.limit, code),
            remaining=money_dict(left, code),
            window_start=session.since.isoformat(),
        )


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
    webhook_enqueue(
        operator=player.operator,
        event_type="limit.changed",
        data={
            **player_ref(player),
            "kind": kind,
            "period": period,
            "old": None if current is None else money_dict(current, limit.currency),
            "new": None if amount is None else money_dict(amount, limit.currency),
            "effective_at": effective_at,
            "pending": effective_at > now,
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
    webhook_enqueue(
        operator=player.operator,
        event_type="self_exclusion.started",
        data={
            **player_ref(player),
            "starts_at": exclusion.starts_at,
            "ends_at": exclusion.ends_at,
            "days": days,
        },
    )
    return exclusion
