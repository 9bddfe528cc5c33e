"""Back-office pages that read across the apps (settlement is the app that may read the
platform, games and the wallet together, like the reports): the player page.

Read-only and built from each app's selectors. Amounts are decimal strings in the
currency's decimals. A hand's cards are shown only once the hand is over
(``games.backoffice_selectors.finished_hand_cards``): staff never see a running hand's
cards, so nobody in the back office can help a player at the table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from games import backoffice_selectors as games_backoffice
from games import selectors as games_selectors
from games.models import Hand, Match, Seat
from gin_platform.models import Player
from gin_platform.money import to_decimal_string
from gin_platform.tenancy import selectors as platform_selectors
from protection.harm import selectors as harm_selectors
from wallet.selectors import backoffice as wallet_backoffice
from wallet.selectors import limits as wallet_limits
from wallet.selectors import transactions as wallet_transactions

RECENT = 50  # rows of each list on the page (newest first); the changelists have the rest


def amount(minor: int | None, currency: str) -> str:
    """``minor`` in ``currency``'s decimals ("12.50" EUR, "1250" JPY); "" for none."""
    return "" if minor is None else to_decimal_string(minor, currency)


@dataclass
class HandLine:
    hand: Hand
    cards: list[list[str]] | None  # None while the hand is being played


@dataclass
class MatchLine:
    match: Match
    seat: Seat | None
    opponents: list[Seat]
    stake: str
    hands: list[HandLine] = field(default_factory=list)


def _match_line(match: Match, player: Player) -> MatchLine:
    seats = games_selectors.match_seats(match)
    mine = next((seat for seat in seats if seat.player_id == player.pk), None)
    return MatchLine(
        match=match,
        seat=mine,
        opponents=[seat for seat in seats if seat.player_id != player.pk],
        stake=amount(mine.amount, mine.currency) if mine else "",
        hands=[
            HandLine(hand=hand, cards=games_backoffice.finished_hand_cards(hand, match))
            for hand in match.hands.all()
        ],
    )


def _transaction_line(txn) -> dict[str, Any]:
    return {
        "transaction": txn,
        "headline": amount(txn.amount, txn.currency) if txn.currency else "",
        "lines": [
            {
                "entry": entry,
                "account": entry.account,
                "amount": amount(entry.amount, entry.currency),
                "balance_after": amount(entry.balance_after, entry.currency),
            }
            for entry in txn.player_entries
        ],
    }


def _limit_line(state: wallet_limits.LimitState) -> dict[str, Any]:
    return {
        "state": state,
        "amount": amount(state.amount, state.currency),
        "used": amount(state.used, state.currency),
        "remaining": amount(state.remaining, state.currency),
        "pending_amount": amount(state.pending_amount, state.currency),
    }


def player_page(*, player: Player, at: datetime | None = None) -> dict[str, Any]:
    """Everything the back office shows about one player (the template's context)."""
    moment = at or timezone.now()
    accounts = list(wallet_backoffice.player_account_list(player=player))
    stakes = wallet_backoffice.player_open_stakes(player=player)
    transactions = list(
        wallet_transactions.player_transactions(player=player).order_by("-created_at", "-pk")[
            :RECENT
        ]
    )
    matches = [
        _match_line(match, player)
        for match in games_backoffice.player_match_list(player=player)[:RECENT]
    ]
    limit_changes = list(wallet_limits.player_limit_history(player=player).order_by("-pk"))
    exclusions = list(wallet_limits.break_list(player=player))  # time-outs too
    sessions = list(platform_selectors.player_session_list(player=player)[:RECENT])
    webhooks = list(platform_selectors.player_webhook_deliveries(player=player)[:RECENT])
    flags = list(harm_selectors.player_harm_flags(player=player)[:RECENT])
    audit = platform_selectors.audit_events_about(
        player=player,
        objects={
            "platform.playersession": [session.pk for session in sessions],
            "games.match": [line.match.pk for line in matches],
            "games.seat": [line.seat.pk for line in matches if line.seat],
            "wallet.ledgertransaction": [txn.pk for txn in transactions],
            "wallet.playerlimitchange": [change.pk for change in limit_changes],
            "wallet.selfexclusion": [exclusion.pk for exclusion in exclusions],
            "protection.harmflag": [flag.pk for flag in flags],
        },
    )
    return {
        "player": player,
        "balances": [
            {"account": account, "balance": amount(account.balance, account.currency)}
            for account in accounts
        ],
        "open_stakes": [
            {
                "escrow": stake.escrow,
                "amount": amount(stake.amount, stake.escrow.currency),
            }
            for stake in stakes
        ],
        "transactions": [_transaction_line(txn) for txn in transactions],
        "matches": matches,
        "limits": [
            _limit_line(state)
            for state in wallet_limits.player_limit_states(player=player, at=moment)
            if state.amount is not None or state.pending_amount is not None
        ],
        "limit_changes": [
            {
                "change": change,
                "old_amount": amount(change.old_amount, change.currency),
                "new_amount": amount(change.new_amount, change.currency),
            }
            for change in limit_changes[:RECENT]
        ],
        "self_excluded_until": wallet_limits.self_excluded_until(player=player, at=moment),
        "timed_out_until": wallet_limits.timed_out_until(player=player, at=moment),
        "exclusions": exclusions[:RECENT],
        "sessions": sessions,
        "webhooks": webhooks,
        # The markers of harm's flags (docs/player-protection.md), newest day first.
        "harm_flags": [
            {"flag": flag, "evidence": json.dumps(flag.evidence, indent=1, sort_keys=True)}
            for flag in flags
        ],
        "audit_events": list(audit[:RECENT]),
        "recent": RECENT,
    }
