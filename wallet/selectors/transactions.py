"""Reads of ledger transactions: a player's statement (their transactions, each with only
their own lines), one transaction (a player's, or any for the back office), a transaction's
entries, and what a settlement credited to each player's wallet. ``by_id`` finds one row by
the id a client sent (a transaction here, an approval request in ``approvals``).
"""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from django.db.models import Model, Prefetch, Q, QuerySet

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from wallet.models import Account, LedgerEntry, LedgerTransaction

M = TypeVar("M", bound=Model)

Kind = LedgerTransaction.Kind


def kinds_with_reversals(kinds: tuple[str, ...], prefix: str = "") -> Q:
    """Transactions of ``kinds`` and the reversals of such transactions (a reversal counts
    like the posting it undoes). ``prefix``: the path to the transaction from the queried
    model, e.g. ``"transaction__"`` for entries."""
    return Q(**{f"{prefix}kind__in": kinds}) | Q(
        **{f"{prefix}kind": Kind.REVERSAL, f"{prefix}reverses__kind__in": kinds}
    )


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


def by_id(rows: QuerySet[M], row_id: object, missing: str) -> M:
    """The row of ``rows`` whose primary key is ``row_id`` as a client sent it (a path or
    query value); 404 ``missing`` when there is none, or ``row_id`` is not a number."""
    try:
        pk = int(str(row_id))
    except ValueError:
        pk = None
    found = rows.filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFoundProblem(missing)
    return found


def player_transaction_get(*, player: Player, transaction_id: object) -> LedgerTransaction:
    return by_id(
        player_transactions(player=player),
        transaction_id,
        f"No transaction {transaction_id} for this player",
    )


def transaction_get(*, transaction_id: object) -> LedgerTransaction:
    """Any ledger transaction (back office)."""
    return by_id(
        LedgerTransaction.objects.all(),
        transaction_id,
        f"No ledger transaction {transaction_id}",
    )


def transaction_entries(*, ledger_transaction: LedgerTransaction) -> list[LedgerEntry]:
    """The transaction's entries with their accounts. Those of a transaction this process
    has just posted are not read back: entries are append-only, so what the posting wrote is
    what the database holds."""
    if ledger_transaction.posted_entries is not None:
        return list(ledger_transaction.posted_entries)
    return list(ledger_transaction.entries.select_related("account").order_by("pk"))


def payouts_credited(*, ledger_transaction: LedgerTransaction) -> dict[str, tuple[int, str]]:
    """What a settlement transaction put into each player's wallet (its ``payout`` lines),
    as (amount, currency) in the wallet's own currency, by player id (as text)."""
    return {
        str(entry.player_id): (entry.amount, entry.currency)
        for entry in transaction_entries(ledger_transaction=ledger_transaction)
        if entry.component == "payout" and entry.player_id is not None
    }
