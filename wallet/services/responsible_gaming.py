"""Responsible gaming: the player's own deposit and loss limits, their breaks (time-outs and
self-exclusion), and the identity (KYC) check of withdrawals (docs/wallet.md "Player limits,
breaks, KYC"; docs/player-protection.md "Breaks and limits").

- Limits are the player's, per day, week and month (UTC calendar windows,
  wallet.windows), in the wallet currency. A first limit or a decrease applies at once; an
  increase or a removal after the cooling-off of the operator's jurisdiction profile
  (``limit_increase_cooling_off``: 24 hours in uk, mga and without a profile, 3 days in es,
  7 days in it).
- A break is a time-out (exactly one of the profile's ``time_out_days``) or a
  self-exclusion (the profile's ``self_exclusion_min_days`` up to 3650 days), from now. It
  blocks deposits, every buy-in and every seat (practice tables included: games asks
  ``check_no_break``), never a withdrawal, a refund or a payout already owed. It cannot be
  lifted or shortened: a new one only adds time.
- A withdrawal needs a verified identity (``check_withdrawal_kyc``), except in the sandbox.

The ``check_*`` functions are called by the cashier and escrow services under their
account locks, so concurrent postings of one player are checked one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.i18n.formatting import choices_text, moment_text, money_text, number_text
from gin_platform.locks import lock_player
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.jurisdictions import SELF_EXCLUSION_MAX_DAYS
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
    TimedOutProblem,
    TimeOutPeriodInvalidProblem,
)
from wallet.selectors import limits as selectors
from wallet.windows import windows

BreakKind = SelfExclusion.Kind
# A break that would end less than this after the break in force adds nothing: a retry of
# the same request (the player's endpoints take no Idempotency-Key) starts no second break.
BREAK_RETRY_TOLERANCE = timedelta(minutes=1)
# A limit's refusal, said to the player, per window.
_DEPOSIT_LIMIT_REACHED = {
    "day": gettext_lazy("Your daily deposit limit is %(limit)s: %(left)s is left."),
    "week": gettext_lazy("Your weekly deposit limit is %(limit)s: %(left)s is left."),
    "month": gettext_lazy("Your monthly deposit limit is %(limit)s: %(left)s is left."),
}
_LOSS_LIMIT_REACHED = {
    "day": gettext_lazy(
        "Your daily loss limit is %(limit)s: this buy-in could lose %(stake)s and only "
        "%(left)s is left."
    ),
    "week": gettext_lazy(
        "Your weekly loss limit is %(limit)s: this buy-in could lose %(stake)s and only "
        "%(left)s is left."
    ),
    "month": gettext_lazy(
        "Your monthly loss limit is %(limit)s: this buy-in could lose %(stake)s and only "
        "%(left)s is left."
    ),
}


# --- Checks made by the cashier, the table cashier and games' seating ---------------------
def check_no_break(*, player: Player, at: datetime | None = None) -> None:
    """A break in force refuses deposits, buy-ins and seats: ``self-excluded`` for a
    self-exclusion (the stronger), else ``timed-out``, each with ``until``."""
    ends = selectors.break_ends(player=player, at=at)
    check_break_ended(
        excluded_until=ends[BreakKind.SELF_EXCLUSION],
        timed_out_until=ends[BreakKind.TIME_OUT],
    )


def check_break_ended(*, excluded_until: datetime | None, timed_out_until: datetime | None) -> None:
    """Refuse if a self-exclusion runs until ``excluded_until`` or a time-out until
    ``timed_out_until`` (as read by the caller)."""
    if excluded_until is not None:
        raise SelfExcludedProblem(
            gettext(
                "You are self-excluded until %(until)s (UTC): no deposit, buy-in or seat "
                "until then."
            )
            % {"until": moment_text(excluded_until)},
            until=excluded_until.isoformat(),
        )
    if timed_out_until is not None:
        raise TimedOutProblem(
            gettext(
                "You are taking a time-out until %(until)s (UTC): no deposit, buy-in or seat "
                "until then."
            )
            % {"until": moment_text(timed_out_until)},
            until=timed_out_until.isoformat(),
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
                str(_DEPOSIT_LIMIT_REACHED[period])
                % {
                    "limit": money_text(limit, currency),
                    "left": money_text(max(limit - totals[period], 0), currency),
                },
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
                str(_LOSS_LIMIT_REACHED[period])
                % {
                    "limit": money_text(limit, code),
                    "stake": money_text(stake, code),
                    "left": money_text(left, code),
                },
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
            gettext(
                "Your session's loss limit is %(limit)s: this buy-in could lose %(stake)s and "
                "only %(left)s is left."
            )
            % {
                "limit": money_text(session.limit, code),
                "stake": money_text(stake, code),
                "left": money_text(left, code),
            },
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
    increase (or a removal) applies after the cooling-off of the operator's jurisdiction
    profile (``limit_cooling_off``). Every change is kept in the history (old, new, who,
    when requested, when effective); a request that changes nothing (the amount in force
    with nothing pending, or the very change already pending) records nothing, so a retry
    never moves a pending increase later.
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
    pending = limit.pending_effective_at is not None
    if amount == current and not pending:
        return limit  # nothing to change
    if pending and amount == limit.pending_amount and amount != current:
        return limit  # this change already waits: its cooling-off runs on unchanged
    tighter = amount is not None and (current is None or amount <= current)
    if tighter or (amount is None and current is None):
        limit.amount = amount
        limit.pending_amount = limit.pending_effective_at = None
        effective_at = now
    else:
        limit.pending_amount = amount
        limit.pending_effective_at = effective_at = now + limit_cooling_off(player)
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


def limit_cooling_off(player: Player) -> timedelta:
    """How long a raised (or removed) limit of ``player`` waits: the operator's jurisdiction
    profile's ``limit_increase_cooling_off``."""
    return player.operator.protection_profile.limit_increase_cooling_off


# --- Breaks: time-outs and self-exclusion -------------------------------------------------
@dataclass(frozen=True)
class BreakTaken:
    """What a request for a break did: ``added`` a new break (``row``), or nothing, as the
    break in force (``row``, of the same kind or a self-exclusion) already runs as long."""

    row: SelfExclusion
    added: bool


def time_out_days_allowed(player: Player) -> tuple[int, ...]:
    """The time-outs ``player`` may take, in days (the profile's ``time_out_days``)."""
    return player.operator.protection_profile.time_out_days


def self_exclusion_days_allowed(player: Player) -> tuple[int, int]:
    """The shortest and the longest self-exclusion ``player`` may take, in days."""
    return player.operator.protection_profile.self_exclusion_min_days, SELF_EXCLUSION_MAX_DAYS


def _whole_days(days: object) -> bool:
    return isinstance(days, int) and not isinstance(days, bool)


@transaction.atomic
def time_out_take(*, player: Player, days: int, actor: Actor) -> BreakTaken:
    """A time-out of exactly one of the profile's ``time_out_days`` (24 hours, 7 days, 30
    days, 6 weeks), from now: no deposit, buy-in or seat until it ends. It cannot be lifted
    or shortened: one that would end no later than the break in force adds nothing."""
    allowed = time_out_days_allowed(player)
    if not _whole_days(days) or days not in allowed:
        raise TimeOutPeriodInvalidProblem(
            gettext("A time-out lasts %(choices)s days.")
            % {"choices": choices_text([number_text(n) for n in allowed])},
            allowed_days=list(allowed),
        )
    return _break_take(player=player, kind=BreakKind.TIME_OUT, days=days, actor=actor)


@transaction.atomic
def self_exclusion_create(
    *, player: Player, days: int, actor: Actor, reason: str = ""
) -> BreakTaken:
    """Exclude the player from deposits, buy-ins and seats for ``days`` days, from now: at
    least the profile's ``self_exclusion_min_days``, at most 3650.

    It cannot be shortened or lifted: one that would end no later than the self-exclusion
    in force adds nothing. Withdrawals and payouts are never blocked."""
    shortest, longest = self_exclusion_days_allowed(player)
    if not _whole_days(days) or not shortest <= days <= longest:
        raise SelfExclusionPeriodInvalidProblem(
            gettext("A self-exclusion lasts between %(minimum)s and %(maximum)s days.")
            % {"minimum": number_text(shortest), "maximum": number_text(longest)},
            minimum_days=shortest,
            maximum_days=longest,
        )
    return _break_take(
        player=player, kind=BreakKind.SELF_EXCLUSION, days=days, actor=actor, reason=reason
    )


def _break_take(
    *, player: Player, kind: str, days: int, actor: Actor, reason: str = ""
) -> BreakTaken:
    """The break, unless the break in force already covers it. Under the player's row
    lock: two requests of one player queue, so a double submission adds one break."""
    lock_player(player.pk)
    now = timezone.now()
    ends_at = now + timedelta(days=days)
    # A self-exclusion covers a time-out; a time-out never covers a self-exclusion.
    covering = [kind] if kind == BreakKind.SELF_EXCLUSION else BreakKind.values
    current = (
        selectors.breaks_in_force(player=player, at=now)
        .filter(kind__in=covering)
        .order_by("-ends_at", "-pk")
        .first()
    )
    if current is not None and ends_at <= current.ends_at + BREAK_RETRY_TOLERANCE:
        return BreakTaken(row=current, added=False)
    row = SelfExclusion.objects.create(
        player=player,
        kind=kind,
        starts_at=now,
        ends_at=ends_at,
        reason=(reason or "")[:200],
        actor_type=actor.type,
        actor_id=actor.id,
        created_at=now,
    )
    audit_record(
        actor=actor,
        action="time_out.created" if kind == BreakKind.TIME_OUT else "self_exclusion.created",
        obj=row,
        operator=player.operator,
        data={"player": str(player.pk), "days": days, "until": ends_at.isoformat()},
    )
    data = {
        **player_ref(player),
        "starts_at": row.starts_at,
        "ends_at": row.ends_at,
        "days": days,
        "by": actor.type,
    }
    if kind == BreakKind.TIME_OUT:
        webhook_enqueue(operator=player.operator, event_type="time_out.started", data=data)
    else:
        webhook_enqueue(operator=player.operator, event_type="self_exclusion.started", data=data)
    return BreakTaken(row=row, added=True)
