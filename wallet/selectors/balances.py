"""Reads of balances: a player's wallet, the house's accounts, a game's escrow, and what
each player put into an escrow (its contributions: buy-ins minus refunds and voids, a
reversal of one counted like the original).

Operator scoping happens before these are called: views resolve the player with
``gin_platform.tenancy.selectors.player_get`` (another operator's player is a 404), and every query
here is then restricted to that player's rows.
"""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

from django.db.models import QuerySet, Sum

from gin_platform.models import Operator, Player
from wallet.amounts import parse_currency
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.transactions import kinds_with_reversals

Kind = LedgerTransaction.Kind
# Postings that put a player's money at stake in a game or give it back (a reversal of one
# counts like the original): what ``table_refund`` and ``escrow_void`` undo. A void gives
# every player's stake back at once: for each of them, a refund.
CONTRIBUTION_KINDS = (Kind.BUY_IN, Kind.REFUND, Kind.VOID)
# R14: an entry paid with a ticket and its refund (``ticket_refund`` undoes these).
TICKET_ENTRY_KINDS = (Kind.TICKET_ENTRY, Kind.TICKET_REFUND)
# What a player put into an escrow, however they paid: the escrow's contributions (who
# entered, and each operator's share of a network escrow's fee).
ENTRY_KINDS = (*CONTRIBUTION_KINDS, *TICKET_ENTRY_KINDS)


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
    # ``player IS NULL``: the escrow's unique index (a ticket to a tournament shares its
    # game_ref, wallet/models/ledger.py)
    return Account.objects.filter(
        kind=Account.Kind.ESCROW, game_ref=game_ref, currency=currency, player__isnull=True
    ).first()


def escrow_balance(*, game_ref: str, currency: str) -> int:
    """What the game's escrow in ``currency`` holds now (0 if nobody bought in)."""
    account = escrow_account(game_ref=game_ref, currency=parse_currency(currency))
    return account.balance if account else 0


def escrow_is_settled(*, escrow: Account) -> bool:
    return LedgerTransaction.objects.filter(
        escrow=escrow, kind=Kind.SETTLEMENT, reversal__isnull=True
    ).exists()


def contribution_entries(*, escrow: Account) -> QuerySet[LedgerEntry]:
    """The escrow's entries of its contributions (buy-ins, refunds and voids, entries paid
    with a ticket and their refunds, and reversals of them): what its players staked,
    summed per player or per operator by the callers."""
    return LedgerEntry.objects.filter(account=escrow).filter(
        kinds_with_reversals(ENTRY_KINDS, prefix="transaction__")
    )


def escrow_contributions(*, game_ref: str, currency: str) -> dict[uuid.UUID, int]:
    """Per player, what they put into the game's escrow: buy-ins (and entries paid with a
    ticket) minus refunds.

    Settlement payouts do not reduce it (after settlement the escrow is 0 but this still
    says what each player staked). Players whose buy-ins were all refunded are left out.
    """
    escrow = escrow_account(game_ref=game_ref, currency=parse_currency(currency))
    if escrow is None:
        return {}
    rows = (
        contribution_entries(escrow=escrow)
        .values("player_id")
        .annotate(total=Sum("amount"))
        .order_by("player_id")
    )
    return {row["player_id"]: row["total"] for row in rows if row["total"]}


def player_contribution_transactions(
    *, escrow: Account, player: Player, kinds: tuple[str, ...] = CONTRIBUTION_KINDS
) -> QuerySet[LedgerTransaction]:
    """The player's buy-ins, refunds and voids for this escrow (and reversals of them);
    ``kinds=TICKET_ENTRY_KINDS``: their entries paid with a ticket and the refunds of
    those."""
    return LedgerTransaction.objects.filter(kinds_with_reversals(kinds), escrow=escrow).filter(
        pk__in=LedgerEntry.objects.filter(account=escrow, player=player).values("transaction_id")
    )


class ContributionLine(NamedTuple):
    """One entry of an escrow's contributions, on whichever account it moved (the escrow, a
    wallet, a house FX account, a network position), and whose line it is."""

    player_id: uuid.UUID | None
    operator_id: Any  # the player's operator
    account_id: int
    account_kind: str
    amount: int


def escrow_contribution_lines(*, escrow: Account) -> list[ContributionLine]:
    """Every entry of the escrow's contributions (buy-ins, refunds and voids, and reversals
    of them) on every account they moved, in the order they were written: what a void
    undoes, player by player (``wallet.services.escrow_void``)."""
    rows = (
        LedgerEntry.objects.filter(
            transaction__in=LedgerTransaction.objects.filter(
                kinds_with_reversals(CONTRIBUTION_KINDS), escrow=escrow
            )
        )
        .order_by("pk")
        .values_list("player_id", "player__operator_id", "account_id", "account__kind", "amount")
    )
    return [ContributionLine(*row) for row in rows]
