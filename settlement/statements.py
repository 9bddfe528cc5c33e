"""The statement of a settled game: every line of money with the reason for it.

Built from the match result (games), the payout (settlement.payouts) and the ledger
transaction that posted it (wallet), so the statement and the ledger can never disagree.
"""

from __future__ import annotations

from typing import Any

from gin_platform.models import Player
from gin_platform.money import money_dict
from settlement.payouts import Payout
from wallet.models import LedgerTransaction


def build_statement(
    *,
    result: dict[str, Any],
    payout: Payout,
    seats: list[dict[str, Any]],
    ledger_transaction: LedgerTransaction,
    players_by_id: dict[str, Player],
) -> dict[str, Any]:
    currency = result["currency"]
    credited = _credited_by_player(ledger_transaction)
    fx_by_player = {snap.get("player"): snap for snap in ledger_transaction.fx or []}
    players = []
    for seat in seats:
        position = seat["position"]
        player_id = seat["player_id"]
        paid = payout.total_for(position)
        wallet_amount, wallet_currency = credited.get(player_id, (0, None))
        players.append(
            {
                "seat": position,
                "player_id": player_id,
                "screen_name": screen_name(players_by_id[player_id], position),
                "external_ref": players_by_id[player_id].external_ref,
                "escrowed": money_dict(seat["amount"], currency),
                "payout": money_dict(paid, currency),
                "net": money_dict(paid - seat["amount"], currency),
                "credited": (
                    money_dict(wallet_amount, wallet_currency) if wallet_currency else None
                ),
                "fx": fx_by_player.get(player_id),
            }
        )
    lines = [
        {
            "seat": line.seat,
            "player_id": seats[line.seat]["player_id"],
            "component": line.component,
            **money_dict(line.amount, currency),
        }
        for line in payout.lines
    ]
    statement: dict[str, Any] = {
        "format": 1,
        "match_id": result["match_id"],
        "game_ref": result["game_ref"],
        "variant": result["variant"],
        "currency": currency,
        "is_practice": result["is_practice"],
        "reason": result["reason"],
        "winner_seat": result["winner_seat"],
        "forfeit": result.get("forfeit"),
        "hand_points": result["hand_points"],
        "hands_won": result["hands_won"],
        "hands_played": result.get("hands_played"),
        "target": result.get("target"),
        "stake": money_dict(result["stake"], currency) if result.get("stake") else None,
        "stake_per_point": (
            money_dict(result["stake_per_point"], currency)
            if result.get("stake_per_point")
            else None
        ),
        "fee_bps": result["fee_bps"],
        "fee": money_dict(payout.fee, currency),
        "escrow": money_dict(sum(seat["amount"] for seat in seats), currency),
        "lines": lines,
        "players": players,
        "ledger_reference": ledger_transaction.reference,
        "ledger_transaction_id": ledger_transaction.pk,
    }
    if result["variant"] == "money":
        detail = payout.statement
        statement["money_play"] = {
            "scores": result["money_play"],
            "winnings_before_caps": money_dict(detail["winnings_before_caps"], currency),
            "winnings": money_dict(detail["winnings"], currency),
            "caps_applied": [
                cap | {"amount": money_dict(cap["amount"], currency)}
                for cap in detail["caps_applied"]
            ],
            "bonus_points": _bonus_points(result["money_play"]),
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


def _bonus_points(scores: dict[str, Any]) -> dict[str, list[int]]:
    return {key: list(scores[key]) for key in ("line_bonus", "target_bonus", "zero_point_bonus")}
