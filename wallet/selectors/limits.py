"""Reads of what bounds the money a player moves: the operator's cashier caps, the player's
own deposit and loss limits and breaks (time-outs and self-exclusions), and the deposits and
net losses of each window they are measured against (wallet.services.cashier and
responsible_gaming).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Exists, Max, OuterRef, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from gin_platform.models import Operator, Player
from wallet.models import (
    Account,
    CashierCaps,
    LedgerEntry,
    LedgerTransaction,
    LimitKind,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
)
from wallet.selectors.balances import wallet_account
from wallet.selectors.transactions import kinds_with_reversals
from wallet.windows import PERIODS, Window, windows

Kind = LedgerTransaction.Kind
BreakKind = SelfExclusion.Kind
# What the loss limit counts: stakes put into games, and what came back from them (a
# refund, a void, a settlement, a tournament's prize; a reversal of one counts like the
# original). A ticket never moves the wallet.
PLAY_KINDS = (Kind.BUY_IN, Kind.REFUND, Kind.VOID, Kind.SETTLEMENT, Kind.TOURNAMENT_PRIZE)


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
    """Buy-ins minus refunds, voids and payouts (a tournament's prizes too) in each window
    (negative when the player is up)."""
    if account is None or account.pk is None:
        return dict.fromkeys(PERIODS, 0)
    entries = LedgerEntry.objects.filter(account=account).filter(
        kinds_with_reversals(PLAY_KINDS, prefix="transaction__")
    )
    return {period: -total for period, total in _window_sums(entries, windows(at)).items()}


@dataclass(frozen=True)
class PlayNet:
    """What the wallet's play netted since a moment (player protection's net position,
    docs/player-protection.md "Sessions"), in minor units of the wallet currency.

    ``total``: every play entry (buy-ins, and the refunds, voids and settlements that came
    back): a stake counts from the moment it left the wallet. ``in_play``: the part of it
    still at tables (the entries of games whose escrow holds money: not settled, refunded or
    voided yet; negative, or 0). ``settled`` = ``total`` - ``in_play``: the games over."""

    total: int
    in_play: int

    @property
    def settled(self) -> int:
        return self.total - self.in_play


def play_net_since(*, account: Account | None, since: datetime) -> PlayNet:
    if account is None or account.pk is None:
        return PlayNet(total=0, in_play=0)
    open_escrows = Account.objects.filter(
        kind=Account.Kind.ESCROW,
        game_ref=OuterRef("transaction__game_ref"),
        player__isnull=True,
        balance__gt=0,
    )
    sums = (
        LedgerEntry.objects.filter(account=account, created_at__gte=since)
        .filter(kinds_with_reversals(PLAY_KINDS, prefix="transaction__"))
        .annotate(at_a_table=Exists(open_escrows))
        .aggregate(
            total=Coalesce(Sum("amount"), Value(0)),
            in_play=Coalesce(Sum("amount", filter=Q(at_a_table=True)), Value(0)),
        )
    )
    return PlayNet(total=int(sums["total"]), in_play=int(sums["in_play"]))


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
    used: dict[str, dict[str, int]] = {
        LimitKind.DEPOSIT: deposit_totals(account=account, at=moment),
        LimitKind.LOSS: net_loss_totals(account=account, at=moment),
    }
    rows = {(r.kind, r.period): r for r in PlayerLimit.objects.filter(player=player)}
    current = windows(moment)
    states = []
    for kind in LimitKind.values:
        for period in PERIODS:
            row = rows.get((kind, period))
            pending_due = (
                row is not None
                and row.pending_effective_at is not None
                and row.pending_effective_at <= moment
            )
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


def breaks_in_force(
    *, player: Any, at: datetime, kind: str | None = None
) -> QuerySet[SelfExclusion]:
    """The player's breaks in force at ``at``, of ``kind`` (None: both kinds; ``player``: a
    player, its id, or an ``OuterRef``)."""
    rows = SelfExclusion.objects.filter(player=player, starts_at__lte=at, ends_at__gt=at)
    return rows if kind is None else rows.filter(kind=kind)


def break_ends(*, player: Player, at: datetime | None = None) -> dict[str, datetime | None]:
    """When each kind of break in force at ``at`` ends (None: none in force), in one query."""
    moment = at or timezone.now()
    return breaks_in_force(player=player, at=moment).aggregate(
        **{kind: Max("ends_at", filter=Q(kind=kind)) for kind in BreakKind.values}
    )


def players_on_a_break(*, player_ids: list[Any], at: datetime) -> set[Any]:
    """Those of ``player_ids`` with a break (a self-exclusion or a time-out) in force at
    ``at``."""
    return set(
        SelfExclusion.objects.filter(
            player_id__in=player_ids, starts_at__lte=at, ends_at__gt=at
        ).values_list("player_id", flat=True)
    )


def self_excluded_until(*, player: Player, at: datetime | None = None) -> datetime | None:
    """The end of the player's self-exclusion in force at ``at``, or None."""
    return break_ends(player=player, at=at)[BreakKind.SELF_EXCLUSION]


def timed_out_until(*, player: Player, at: datetime | None = None) -> datetime | None:
    """The end of the player's time-out in force at ``at``, or None."""
    return break_ends(player=player, at=at)[BreakKind.TIME_OUT]


def break_list(*, player: Player, kind: str | None = None) -> QuerySet[SelfExclusion]:
    """The player's breaks of ``kind`` (None: both), newest first."""
    rows = SelfExclusion.objects.filter(player=player)
    if kind is not None:
        rows = rows.filter(kind=kind)
    return rows.order_by("-created_at", "-pk")
