"""Wallet reads for the back office: a player's wallets and open stakes (the player page,
settlement/backoffice.py) and the ledger's revenue corrections per day (the daily report's
NGR, settlement/reports.py). Staff reads across operators: callers scope them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.db.models import Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce, TruncDate

from gin_platform.models import Operator, Player
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors import _contribution_entries, _kinds_q, escrow_is_settled

Kind = LedgerTransaction.Kind


# --- Back office (staff pages) ------------------------------------------------------------
def player_account_list(*, player: Player) -> QuerySet[Account]:
    """The player's wallets, one per currency (practice chips: XGC)."""
    return Account.objects.filter(kind=Account.Kind.PLAYER, player=player).order_by("currency")


@dataclass(frozen=True)
class OpenStake:
    """What the player has in one escrow that is not settled yet (buy-ins minus refunds)."""

    escrow: Account
    amount: int


def player_open_stakes(*, player: Player) -> list[OpenStake]:
    """The player's money in open escrows (games not settled yet), per escrow."""
    escrows = Account.objects.filter(
        kind=Account.Kind.ESCROW,
        balance__gt=0,
        pk__in=LedgerEntry.objects.filter(player=player, account__kind=Account.Kind.ESCROW).values(
            "account_id"
        ),
    ).order_by("created_at", "pk")
    stakes = []
    for escrow in escrows:
        if escrow_is_settled(escrow=escrow):
            continue
        amount = (
            _contribution_entries(escrow)
            .filter(player=player)
            .aggregate(total=Coalesce(Sum("amount"), Value(0)))["total"]
        )
        if amount:
            stakes.append(OpenStake(escrow=escrow, amount=int(amount)))
    return stakes


# --- Revenue corrections (the daily report's NGR) ------------------------------------------
def revenue_corrections(
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None = None,
    sandbox: bool | None = None,
    currency: str | None = None,
) -> dict[tuple[date, str, str], tuple[int, int]]:
    """Per UTC day x operator slug x currency, what was posted in ``[start, end)`` that
    takes revenue back: fees handed back (the house-fee lines of reversals, as a positive
    amount) and manual adjustments credited to players (credits minus debits, reversed
    adjustments netted). Ledger rows are append-only, so a past period reads the same
    later: a correction counts on the day it is posted, never on the original's."""
    scope = Q(transaction__created_at__gte=start, transaction__created_at__lt=end)
    if operator is not None:
        scope &= Q(account__operator=operator)
    if sandbox is not None:
        scope &= Q(account__operator__is_sandbox=sandbox)
    if currency:
        scope &= Q(currency=currency)
    fee_lines = LedgerEntry.objects.filter(
        scope, account__kind=Account.Kind.HOUSE_FEE, transaction__kind=Kind.REVERSAL
    )
    adjustment_lines = LedgerEntry.objects.filter(scope, account__kind=Account.Kind.PLAYER).filter(
        _kinds_q((Kind.ADJUSTMENT,), prefix="transaction__")
    )
    found: dict[tuple[date, str, str], list[int]] = {}
    for column, lines, sign in ((0, fee_lines, -1), (1, adjustment_lines, 1)):
        rows = (
            lines.annotate(day=TruncDate("transaction__created_at", tzinfo=UTC))
            .values("day", "account__operator__slug", "currency")
            .annotate(total=Sum("amount"))
            .order_by()
        )
        for row in rows:
            key = (row["day"], row["account__operator__slug"], row["currency"])
            found.setdefault(key, [0, 0])[column] += sign * int(row["total"])
    return {key: (fees, adjustments) for key, (fees, adjustments) in found.items()}
