"""Reads of ledger transactions: a player's statement (their transactions, each with only
their own lines), one transaction (a player's, or any for the back office), a transaction's
entries, and what a settlement credited to each player's wallet.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Prefetch, Q, QuerySet

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from wallet.models import Account, LedgerEntry, LedgerTransaction

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
