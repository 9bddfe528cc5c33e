"""A player's own history over the last 365 days (docs/player-protection.md "History"): the
matches they played, the movements of their wallet, and the figures per day or month, read
from games through ``games.protection_selectors`` and from the ledger through
``wallet.selectors``. A module per part; every public name is offered here."""

from protection.history.matches import MatchHistoryRow, match_history, match_history_rows
from protection.history.summary import HistorySummary, history_summary
from protection.history.transactions import MovementRow, movement_history, movement_rows
from protection.history.window import (
    HISTORY_DAYS,
    HistoryWindow,
    history_window,
    newest_first,
)

__all__ = [
    "HISTORY_DAYS",
    "HistorySummary",
    "HistoryWindow",
    "MatchHistoryRow",
    "MovementRow",
    "history_summary",
    "history_window",
    "match_history",
    "match_history_rows",
    "movement_history",
    "movement_rows",
    "newest_first",
]
