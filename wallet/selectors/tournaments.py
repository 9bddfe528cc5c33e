"""Reads of a tournament's money (R14; wallet/services/tournament.py and tickets.py): a
player's ticket to a tournament, an operator's promotion spend, the lines an operator's
overlays put into an escrow (what a return gives back), and a player's statement of one
tournament. The escrow itself is ``balances.escrow_balance`` (the tournament's
``game_ref``); who entered it, ``balances.escrow_contributions``.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, Sum

from gin_platform.models import Operator, Player
from wallet.amounts import parse_currency
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.transactions import kinds_with_reversals

Kind = LedgerTransaction.Kind
# The postings of an operator's overlay: in, and back out (a reversal counts like either).
OVERLAY_KINDS = (Kind.OVERLAY, Kind.OVERLAY_RETURN)


def ticket_account(*, player: Player, game_ref: str, currency: str) -> Account | None:
    """The player's ticket to the tournament ``game_ref`` in ``currency``, if any."""
    return Account.objects.filter(
        kind=Account.Kind.TICKET, player=player, game_ref=game_ref, currency=currency
    ).first()


def ticket_balance(*, player: Player, game_ref: str, currency: str) -> int:
    """What the player's ticket to ``game_ref`` is worth now (0 if they have none)."""
    account = ticket_account(player=player, game_ref=game_ref, currency=parse_currency(currency))
    return account.balance if account else 0


def player_tickets(*, player: Player, game_refs: Collection[str]) -> dict[tuple[str, str], int]:
    """What each of the player's tickets to the tournaments ``game_refs`` is worth now, by
    (game_ref, currency), those worth nothing left out: one query for a whole page of a
    lobby."""
    if not game_refs:
        return {}
    rows = Account.objects.filter(
        kind=Account.Kind.TICKET, player=player, game_ref__in=list(game_refs), balance__gt=0
    ).values_list("game_ref", "currency", "balance")
    # A ticket's game_ref is never NULL (the account's owner CHECK): the filter names it.
    return {(str(game_ref), currency): balance for game_ref, currency, balance in rows}


def promotion_balance(*, operator: Operator, currency: str) -> int:
    """The operator's promotion account in ``currency``, summed over its shards: minus what
    its overlays, freerolls and granted tickets have cost (returns and expired tickets
    given back)."""
    total = Account.objects.filter(
        operator=operator, kind=Account.Kind.PROMOTION, currency=parse_currency(currency)
    ).aggregate(total=Sum("balance"))["total"]
    return int(total or 0)


def overlay_lines(*, escrow: Account, operator: Operator) -> list[tuple[int, int]]:
    """Every line (account id, amount), in the order written, of the overlays ``operator``
    put into ``escrow`` and of their returns (and reversals of either): what an overlay
    return undoes, account by account. An overlay is the operator's when it moved the
    operator's promotion account."""
    overlays = (
        LedgerTransaction.objects.filter(kinds_with_reversals(OVERLAY_KINDS), escrow=escrow)
        .filter(
            entries__account__kind=Account.Kind.PROMOTION,
            entries__account__operator=operator,
        )
        .values("pk")
    )
    return list(
        LedgerEntry.objects.filter(transaction__in=overlays)
        .order_by("pk")
        .values_list("account_id", "amount")
    )


@dataclass(frozen=True)
class StatementLine:
    """One of a player's own lines in a tournament: which posting (its id, kind, time and
    reference), the account it moved (their wallet, their ticket, the escrow, a house FX
    leg of their conversion) and that account's ``game_ref`` (which tournament's escrow or
    ticket; None for a wallet), its signed amount in the account's currency and what it
    stands for."""

    transaction_id: int
    kind: str
    created_at: datetime
    account: str
    currency: str
    amount: int
    component: str
    reference: str
    game_ref: str | None


def tournament_statement(*, player: Player, game_ref: str) -> list[StatementLine]:
    """The player's lines of the tournament ``game_ref``, oldest first: every posting of
    that game_ref with a line of theirs (a buy-in, a refund, an entry paid with a ticket
    and its refund, a prize, a ticket granted to it), and the postings that moved their
    ticket to it (a satellite's prize). The operator's side of a grant (its promotion
    account) and the network positions' lines are left out (the operators' money, never the
    player's); another player's lines are never read."""
    own_ticket = Q(
        account__kind=Account.Kind.TICKET, account__player=player, account__game_ref=game_ref
    )
    postings = LedgerEntry.objects.filter(
        Q(player=player, transaction__game_ref=game_ref) | own_ticket
    ).values("transaction_id")
    rows = (
        LedgerEntry.objects.filter(transaction_id__in=postings, player=player)
        .exclude(account__kind__in=(Account.Kind.NETWORK_POSITION, Account.Kind.PROMOTION))
        .order_by("transaction__created_at", "transaction_id", "pk")
        .values_list(
            "transaction_id",
            "transaction__kind",
            "transaction__created_at",
            "account__kind",
            "currency",
            "amount",
            "component",
            "transaction__reference",
            "account__game_ref",
        )
    )
    return [StatementLine(*row) for row in rows]


def ticket_holders(*, game_ref: str, currency: str) -> dict[uuid.UUID, int]:
    """Per player, what their ticket to ``game_ref`` is worth now (tickets worth nothing
    left out): the tickets still to be entered or expired."""
    rows = Account.objects.filter(
        kind=Account.Kind.TICKET,
        game_ref=game_ref,
        currency=parse_currency(currency),
        player__isnull=False,
        balance__gt=0,
    ).values_list("player_id", "balance")
    return {player_id: balance for player_id, balance in rows}
