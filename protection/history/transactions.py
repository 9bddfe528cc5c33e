"""The money part of a player's history: every movement of their wallet over the window
(deposits, withdrawals, the buy-ins and payouts of their games, every other kind), each as
the kind of posting it counts as (docs/player-protection.md "History")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from games.protection_selectors import match_id_of
from gin_platform.models import Player
from protection.history.window import HistoryWindow
from wallet.selectors.balances import wallet_account
from wallet.selectors.history import category_of, wallet_movements

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from wallet.models import LedgerEntry


@dataclass(frozen=True)
class MovementRow:
    """One entry on the player's wallet: ``amount`` signed (minor units of ``currency``),
    ``kind`` the posting's, ``counts_as`` the kind it is counted as (for a reversal, the
    kind it undoes), ``category`` deposit, withdrawal, play or other."""

    transaction_id: int
    created_at: datetime
    kind: str
    counts_as: str
    category: str
    amount: int
    currency: str
    balance_after: int
    match_id: int | None


def movement_history(
    *, player: Player, window: HistoryWindow, category: str | None = None
) -> QuerySet[LedgerEntry]:
    """The movements of the player's money wallet (their wallet currency; practice chips
    are not money) in the window, of one category when given (paged by the caller)."""
    return wallet_movements(
        account=wallet_account(player=player),
        start=window.start,
        end=window.end,
        category=category,
    )


def movement_rows(entries: Sequence[LedgerEntry]) -> list[MovementRow]:
    """A page of ``movement_history`` as rows, in its order."""
    return [
        MovementRow(
            transaction_id=entry.transaction_id,
            created_at=entry.created_at,
            kind=entry.transaction.kind,
            counts_as=entry.counted_kind,  # type: ignore[attr-defined]  # an annotation of wallet_movements
            category=category_of(entry.counted_kind),  # type: ignore[attr-defined]  # likewise
            amount=entry.amount,
            currency=entry.currency,
            balance_after=entry.balance_after,
            match_id=match_id_of(entry.transaction.game_ref),
        )
        for entry in entries
    ]
