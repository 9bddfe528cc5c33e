"""The figures of a player's history: their wallet's net per UTC day or month over the
window, the totals, net deposits, and the balance before and after the window
(docs/player-protection.md "History": what each figure sums, exactly)."""

from __future__ import annotations

from dataclasses import dataclass

from gin_platform.models import Player
from protection.history.window import HistoryWindow
from wallet.selectors.balances import wallet_account
from wallet.selectors.history import (
    MovementSums,
    PeriodSums,
    sums_added,
    wallet_balance_before,
    wallet_period_sums,
)


@dataclass(frozen=True)
class HistorySummary:
    """The window's figures in the wallet's ``currency``: ``totals`` is the sum of the
    ``periods`` (newest first, only those with a movement), kind by kind."""

    window: HistoryWindow
    period: str
    currency: str
    opening_balance: int
    totals: MovementSums
    periods: list[PeriodSums]

    @property
    def closing_balance(self) -> int:
        return self.opening_balance + self.totals.change


def history_summary(*, player: Player, window: HistoryWindow, period: str) -> HistorySummary:
    """The figures of the player's money wallet over ``window``, per ``period`` (day or
    month)."""
    account = wallet_account(player=player)
    periods = wallet_period_sums(account=account, start=window.start, end=window.end, period=period)
    return HistorySummary(
        window=window,
        period=period,
        currency=player.wallet_currency,
        opening_balance=wallet_balance_before(account=account, at=window.start),
        totals=sums_added([part.sums for part in periods]),
        periods=periods,
    )
