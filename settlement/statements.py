"""The statement of a settled game: every line of money with the reason for it.

Built from the match result (games), the payout (settlement.payouts) and the ledger
transaction that posted it (wallet), so the statement and the ledger can never disagree.
"""

from __future__ import annotations

from typing import Any

from games.engine import MatchResult
from gin_platform.models import Player
from gin_platform.money import money_dict
from settlement.payouts import Payout
from wallet.models import LedgerTransaction


def build_statement(
    *,
    result: MatchResult,
    payout: Payout,
    ledger_transaction: LedgerTransaction,
    players_by_id: dict[str, Player],
) -> dict[str, Any]:
    currency = result.currency
    seats = result.seats_by_position
    credited = _credited_by_player(ledger_transaction)
    fx_by_player = {snap.get("player"): snap for snap in ledger_transaction.fx or []}
    players = []
    for seat in seats:
        paid = payout.total_for(seat.position)
        wallet_amount, wallet_currency = credited.get(seat.player_id, (0, None))
        players.append(
            {
                "seat": seat.position,
                "player_id": seat.player_id,
                "screen_name": screen_name(players_by_id[seat.player_id], seat.position),
                "external_ref": players_by_id[seat.player_id].external_ref,
                "escrowed": money_dict(seat.amount, currency),
                "payout": money_dict(paid, currency),
                "net": money_dict(paid - seat.amount, currency),
                "credited": (
                    money_dict(wallet_amount, wallet_currency) if wallet_currency else None
                ),
                "fx": fx_by_player.get(seat.player_id),
            }
        )
    lines = [
        {
            "seat": line.seat,
            "player_id": seats[line.seat].player_id,
            "component": line.component,
            **money_dict(line.amount, currency),
        }
        for line in payout.lines
    ]
    public = result.public()
    statement: dict[str, Any] = {
        "format": 1,
        "match_id": result.match_id,
        "game_ref": result.game_ref,
        "variant": result.variant,
        "currency": currency,
        "is_practice": result.is_practice,
        "reason": result.reason,
        "winner_seat": result.winner_seat,
        "forfeit": public["forfeit"],
        "hand_points": public["hand_points"],
        "hands_won": public["hands_won"],
        "hands_played": result.hands_played,
        "target": result.target,
        "stake": money_dict(result.stake, currency) if result.stake else None,
        "stake_per_point": (
            money_dict(result.stake_per_point, currency) if result.stake_per_point else None
        ),
        "fee_bps": result.fee_bps,
        "fee": money_dict(payout.fee, currency),
        "escrow": money_dict(sum(seat.amount for seat in seats), currency),
        "lines": lines,
        "players": players,
        "ledger_reference": ledger_transaction.reference,
        "ledger_transaction_id": ledger_transaction.pk,
    }
    if result.money_play is not None:
        detail = payout.statement
        scores = result.money_play
        statement["money_play"] = {
            "scores": scores.to_dict(),
            "winnings_before_caps": money_dict(detail["winnings_before_caps"], currency),
            "winnings": money_dict(detail["winnings"], currency),
            "caps_applied": [
                cap | {"amount": money_dict(cap["amount"], currency)}
                for cap in detail["caps_applied"]
            ],
            "bonus_points": {
                "line_bonus": list(scores.line_bonus),
                "target_bonus": list(scores.target_bonus),
                "zero_point_bonus": list(scores.zero_point_bonus),
            },
        }
    return statement


def screen_name(player: Player, position: int) -> str:
    """How a player is named to the other player: the screen name they chose, else their
    seat. Never the operator's ``external_ref``."""
    return player.display_name or f"Seat {position + 1}"


# Fields of a statement's player entry that only the operator may read: ``external_ref`` is
# the operator's private id for its player.
OPERATOR_ONLY_PLAYER_FIELDS = ("external_ref",)


def statement_for_player(statement: dict[str, Any]) -> dict[str, Any]:
    """The statement as a player of the game may read it: the other player appears by
    screen name, never by the operator's private id."""
    return statement | {
        "players": [
            {key: value for key, value in entry.items() if key not in OPERATOR_ONLY_PLAYER_FIELDS}
            for entry in statement["players"]
        ]
    }


def _credited_by_player(ledger_transaction: LedgerTransaction) -> dict[str, tuple[int, str]]:
    """What each player's wallet received, in the wallet's own currency."""
    credited: dict[str, tuple[int, str]] = {}
    for entry in ledger_transaction.entries.filter(component="payout").select_related("account"):
        if entry.player_id is not None:
            credited[str(entry.player_id)] = (entry.amount, entry.currency)
    return credited
