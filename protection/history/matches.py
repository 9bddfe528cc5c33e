"""The matches part of a player's history: every match they sat in over the window, with
what it came to for them from the ledger (docs/player-protection.md "History")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.protection_selectors import MatchRecord, match_records, player_matches
from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from protection.history.window import HistoryWindow
from wallet.selectors.history import GameNet, game_nets

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from games.models import Match


@dataclass(frozen=True)
class MatchHistoryRow:
    """A match (``record``) and the player's net from it (``net``: refunds, voids and
    payouts less buy-ins on their wallet, in its currency; practice chips for practice)."""

    record: MatchRecord
    net: GameNet


def match_history(*, player: Player, window: HistoryWindow) -> QuerySet[Match]:
    """The player's matches opened in the window (paged by the caller, newest first)."""
    return player_matches(player=player, start=window.start, end=window.end)


def match_history_rows(*, player: Player, matches: Sequence[Match]) -> list[MatchHistoryRow]:
    """``matches`` (a page of ``match_history``) with their nets, in their order: two
    queries whatever their number (the seats come prefetched)."""
    records = match_records(matches, player=player)
    nets = game_nets(player=player, game_refs=[record.game_ref for record in records])
    return [
        MatchHistoryRow(
            record=record,
            net=nets.get(record.game_ref)
            or GameNet(
                amount=0,
                currency=PRACTICE_CURRENCY if record.is_practice else player.wallet_currency,
            ),
        )
        for record in records
    ]
