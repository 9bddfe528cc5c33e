"""Reads of network play's money (docs/network.md "Money between operators"): the
operators' network positions, what a net settlement settles, each operator's share of a
network escrow, and the reconciliation's network checks. The network statement's reads (a
report) are in wallet.selectors.backoffice."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db.models import Q, Sum

from gin_platform.models import Operator
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.balances import contribution_entries

Kind = LedgerTransaction.Kind
POSITION = Account.Kind.NETWORK_POSITION


def network_position_balance(*, operator: Operator, currency: str) -> int:
    """The operator's network position in ``currency`` (the sum over its shards): positive,
    what it owes the network; negative, what the network owes it."""
    total = Account.objects.filter(operator=operator, kind=POSITION, currency=currency).aggregate(
        total=Sum("balance")
    )["total"]
    return int(total or 0)


def network_positions_net() -> dict[str, int]:
    """Per currency, the sum of every operator's network position (the network's own
    included): zero when the positions net out, as every posting keeps them."""
    rows = (
        Account.objects.filter(kind=POSITION)
        .values("currency")
        .annotate(total=Sum("balance"))
        .order_by("currency")
    )
    return {row["currency"]: int(row["total"]) for row in rows}


def network_position_outstanding(*, operator: Operator, currency: str, cutoff: datetime) -> int:
    """What a net settlement at ``cutoff`` settles: the operator's position from everything
    posted before the cut-off, less every net settlement already posted (whenever it was)."""
    entries = LedgerEntry.objects.filter(
        account__operator=operator, account__kind=POSITION, currency=currency
    )
    settlement = Q(transaction__kind=Kind.NETWORK_SETTLEMENT)
    total = entries.filter(settlement | (Q(created_at__lt=cutoff) & ~settlement)).aggregate(
        total=Sum("amount")
    )["total"]
    return int(total or 0)


def escrow_operator_contributions(*, escrow: Account) -> dict[uuid.UUID, int]:
    """Per operator, what its players put into the escrow (buy-ins and entries paid with a
    ticket, minus refunds and voids, reversals counted like the original): the
    contributions a network game's (or tournament's) fee is shared by."""
    rows = (
        contribution_entries(escrow=escrow)
        .filter(player__isnull=False)
        .values("player__operator_id")
        .annotate(total=Sum("amount"))
        .order_by("player__operator_id")
    )
    return {row["player__operator_id"]: int(row["total"]) for row in rows if row["total"]}


# --- Reconciliation (wallet.selectors.reconciliation) --------------------------------------
def unbalanced_books() -> list[str]:
    """Transactions whose entries do not sum to zero within one operator's books."""
    rows = (
        LedgerEntry.objects.order_by()
        .values("transaction_id", "account__operator_id", "currency")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .order_by("transaction_id", "currency")
    )
    return [
        f"UNBALANCED BOOKS transaction #{row['transaction_id']}: entries in "
        f"{row['currency']} of operator {row['account__operator_id']} sum to {row['total']}"
        for row in rows
    ]


def network_imbalances() -> dict[str, int]:
    """Currencies whose network positions do not net to zero, with their sum."""
    return {currency: total for currency, total in network_positions_net().items() if total}
