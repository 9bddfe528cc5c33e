"""The ledger facts player protection's markers of harm read (docs/player-protection.md
"Markers of harm"): deposits per player and currency in a window, each deposit's time, each
real-money buy-in's time, and the moments a player's net loss reached a loss limit of
theirs. Minor units of the wallet currency; practice chips never count. The wallet knows
nothing of the rules: these are reads, in time windows ``[since, until)``.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Sum

from gin_platform.money import PRACTICE_CURRENCY
from wallet.models import Account, LedgerEntry, LedgerTransaction, LimitKind, PlayerLimitChange
from wallet.selectors.limits import PLAY_KINDS
from wallet.selectors.transactions import kinds_with_reversals
from wallet.windows import PERIODS, window

Kind = LedgerTransaction.Kind


@dataclass(frozen=True)
class Deposit:
    transaction_id: int
    player_id: uuid.UUID
    at: datetime
    amount: int
    currency: str


@dataclass(frozen=True)
class BuyIn:
    player_id: uuid.UUID
    at: datetime


def deposits_made(*, since: datetime, until: datetime) -> list[Deposit]:
    """Every deposit into a player's wallet in the window, oldest first."""
    rows = (
        LedgerTransaction.objects.filter(
            kind=Kind.DEPOSIT, player__isnull=False, created_at__gte=since, created_at__lt=until
        )
        .order_by("created_at", "pk")
        .values_list("pk", "player_id", "created_at", "amount", "currency")
    )
    return [
        Deposit(transaction_id=pk, player_id=player, at=at, amount=amount or 0, currency=code)
        for pk, player, at, amount, code in rows
    ]


def deposit_totals(
    *, player_ids: Iterable[uuid.UUID], since: datetime, until: datetime
) -> dict[tuple[uuid.UUID, str], int]:
    """What the players deposited in the window, by player and currency: the deposits'
    lines on their wallets, a reversed deposit taken back out."""
    ids = list(player_ids)
    if not ids:
        return {}
    rows = (
        LedgerEntry.objects.filter(
            account__kind=Account.Kind.PLAYER,
            account__player_id__in=ids,
            created_at__gte=since,
            created_at__lt=until,
        )
        .exclude(currency=PRACTICE_CURRENCY)
        .filter(kinds_with_reversals((Kind.DEPOSIT,), prefix="transaction__"))
        .values_list("account__player_id", "currency")
        .annotate(total=Sum("amount"))
    )
    return {(player, code): int(total) for player, code, total in rows}


def buy_ins_made(
    *, since: datetime, until: datetime, player_ids: Iterable[uuid.UUID] | None = None
) -> list[BuyIn]:
    """Every real-money buy-in in the window (practice tables' are play money), oldest
    first; only ``player_ids``' if given. A buy-in refunded later still counts: the player
    sat down then."""
    rows = LedgerTransaction.objects.filter(
        kind=Kind.BUY_IN, player__isnull=False, created_at__gte=since, created_at__lt=until
    ).exclude(currency=PRACTICE_CURRENCY)
    if player_ids is not None:
        rows = rows.filter(player_id__in=list(player_ids))
    return [
        BuyIn(player_id=player, at=at)
        for player, at in rows.order_by("created_at", "pk").values_list("player_id", "created_at")
    ]


# --- Loss limits reached ------------------------------------------------------------------------
@dataclass(frozen=True)
class LimitChange:
    """One row of a limit's history, as ``player_limit_set`` wrote it."""

    created_at: datetime
    effective_at: datetime
    new_amount: int | None


def limit_in_force(changes: Sequence[LimitChange], at: datetime) -> int | None:
    """The limit in force at ``at`` from its history (oldest first), replayed as
    ``wallet.services.player_limit_set`` applied it: a first limit or a decrease at once
    (cancelling a pending raise), a raise or a removal from its ``effective_at``."""
    amount: int | None = None
    pending: int | None = None
    pending_at: datetime | None = None
    for change in changes:
        if change.created_at > at:
            break
        if pending_at is not None and pending_at <= change.created_at:
            amount, pending, pending_at = pending, None, None
        new = change.new_amount
        if (new is not None and (amount is None or new <= amount)) or (
            new is None and amount is None
        ):
            amount, pending, pending_at = new, None, None
        else:
            pending, pending_at = new, change.effective_at
    if pending_at is not None and pending_at <= at:
        return pending
    return amount


@dataclass(frozen=True)
class LossLimitReached:
    """A play posting took the player's net loss in a day, week or month window to their
    loss limit for it or past it: from then on the window refuses every buy-in."""

    player_id: uuid.UUID
    at: datetime
    period: str
    limit: int
    loss: int
    currency: str


@dataclass(frozen=True)
class PlayLine:
    at: datetime
    amount: int  # the wallet's side: negative for a stake, positive for what came back


def loss_limit_crossings(
    *,
    player_id: uuid.UUID,
    currency: str,
    lines: Sequence[PlayLine],
    history: Mapping[str, Sequence[LimitChange]],
    since: datetime,
) -> list[LossLimitReached]:
    """The postings from ``since`` on that took a window's net loss from below the limit in
    force to it or past it (``lines`` oldest first, from the start of the earliest window
    that contains ``since``; ``history`` per period)."""
    loss: dict[tuple[str, datetime], int] = defaultdict(int)
    found = []
    for line in lines:
        for period in PERIODS:
            key = (period, window(period, line.at).start)
            before = loss[key]
            loss[key] = after = before - line.amount
            changes = history.get(period)
            if not changes or line.at < since:
                continue
            limit = limit_in_force(changes, line.at)
            if limit is not None and before < limit <= after:
                found.append(
                    LossLimitReached(
                        player_id=player_id,
                        at=line.at,
                        period=period,
                        limit=limit,
                        loss=after,
                        currency=currency,
                    )
                )
    return found


def loss_limits_reached(*, since: datetime, until: datetime) -> list[LossLimitReached]:
    """When, in the window, a play posting (a buy-in, or a reversal of a payout) took a
    player's net loss to a loss limit of theirs (``net_loss_totals``' figure, in the limit's
    day, week or month window). A refused buy-in leaves no row in the ledger; reaching the
    limit is what the ledger shows of it."""
    limited = PlayerLimitChange.objects.filter(kind=LimitKind.LOSS, created_at__lt=until).values(
        "player_id"
    )
    entries = LedgerEntry.objects.filter(
        account__kind=Account.Kind.PLAYER, account__player_id__in=limited
    ).exclude(currency=PRACTICE_CURRENCY)
    players = set(
        entries.filter(created_at__gte=since, created_at__lt=until)
        .filter(kinds_with_reversals(PLAY_KINDS, prefix="transaction__"))
        .values_list("account__player_id", flat=True)
        .distinct()
    )
    if not players:
        return []
    earliest = min(window(period, since).start for period in PERIODS)
    lines: dict[tuple[uuid.UUID, str], list[PlayLine]] = defaultdict(list)
    for player, code, at, amount in (
        entries.filter(
            account__player_id__in=players, created_at__gte=earliest, created_at__lt=until
        )
        .filter(kinds_with_reversals(PLAY_KINDS, prefix="transaction__"))
        .order_by("created_at", "pk")
        .values_list("account__player_id", "currency", "created_at", "amount")
    ):
        lines[(player, code)].append(PlayLine(at=at, amount=amount))
    histories: dict[tuple[uuid.UUID, str], dict[str, list[LimitChange]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for player, code, period, created, effective, new in (
        PlayerLimitChange.objects.filter(
            kind=LimitKind.LOSS, player_id__in=players, created_at__lt=until
        )
        .order_by("created_at", "pk")
        .values_list("player_id", "currency", "period", "created_at", "effective_at", "new_amount")
    ):
        histories[(player, code)][period].append(
            LimitChange(created_at=created, effective_at=effective, new_amount=new)
        )
    found = []
    for (player, code), played in sorted(lines.items(), key=lambda item: str(item[0])):
        history = histories.get((player, code))
        if history:
            found += loss_limit_crossings(
                player_id=player, currency=code, lines=played, history=history, since=since
            )
    return sorted(found, key=lambda row: (row.at, str(row.player_id), row.period))
