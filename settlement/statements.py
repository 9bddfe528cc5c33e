"""The statement of a settled game: every line of money with the reason for it.

Built from the match result (games), the payout (settlement.payouts) and the ledger
transaction that posted it (wallet), so the statement and the ledger can never disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.engine import MatchResult, MultiMatchResult
from gin_platform.models import Player
from gin_platform.money import money_dict
from settlement.payouts import Payout
from wallet.selectors import transactions as wallet_transactions

if TYPE_CHECKING:
    from wallet.models import LedgerTransaction


def build_statement(
    *,
    result: MatchResult | MultiMatchResult,
    payout: Payout,
    ledger_transaction: LedgerTransaction,
    players_by_id: dict[str, Player],
    network: bool = False,
) -> dict[str, Any]:
    """``network``: a network game (docs/network.md): each player entry also names the
    player's operator (``operator_id``, read only by the platform: ``statement_for_operator``
    masks it) and players are named by their screen names; ``network`` holds the fee split."""
    currency = result.currency
    seats = tuple(sorted(result.seats, key=lambda seat: seat.position))
    multi = isinstance(result, MultiMatchResult)  # R12: three and four players
    stake_per_point = None if multi else result.stake_per_point
    credited = _credited_by_player(ledger_transaction)
    fx_by_player = {snap.get("player"): snap for snap in ledger_transaction.fx or []}
    players = []
    for seat in seats:
        paid = payout.total_for(seat.position)
        wallet_amount, wallet_currency = credited.get(seat.player_id, (0, None))
        player = players_by_id[seat.player_id]
        players.append(
            {
                "seat": seat.position,
                "player_id": seat.player_id,
                "screen_name": (
                    network_screen_name(player, seat.position)
                    if network
                    else screen_name(player, seat.position)
                ),
                "external_ref": player.external_ref,
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
        "forfeit": public.get("forfeit"),
        # R12: the penalty totals ("points against") per seat.
        "hand_points": public["penalty_totals"] if multi else public["hand_points"],
        "hands_won": public["hands_won"],
        "hands_played": result.hands_played,
        "target": result.target,
        "stake": money_dict(result.stake, currency) if result.stake else None,
        "stake_per_point": money_dict(stake_per_point, currency) if stake_per_point else None,
        "fee_bps": result.fee_bps,
        "fee": money_dict(payout.fee, currency),
        "escrow": money_dict(sum(seat.amount for seat in seats), currency),
        "lines": lines,
        "players": players,
        "ledger_reference": ledger_transaction.reference,
        "ledger_transaction_id": ledger_transaction.pk,
    }
    if network:
        for entry in players:
            entry["operator_id"] = str(players_by_id[entry["player_id"]].operator_id)
        split = ledger_transaction.metadata.get("network", {})
        statement["network"] = {
            "fee_share_bps": split.get("fee_share_bps", 0),
            "network_fee": money_dict(split.get("network_fee", payout.fee), currency),
            "operators": [
                {
                    "operator_id": row["operator_id"],
                    "contribution": money_dict(row["contribution"], currency),
                    "fee_share": money_dict(row["fee_share"], currency),
                }
                for row in split.get("operators", [])
            ],
        }
    if multi:
        statement["prize_table"] = {
            "table": result.prize_table,
            "ranking": public["ranking"],
            "penalty_totals": public["penalty_totals"],
            "forfeits": public["forfeits"],
            "pot": money_dict(result.pot, currency),
            "prizes": [money_dict(amount, currency) for amount in result.payouts],
        }
    elif result.money_play is not None:
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


def network_screen_name(player: Player, position: int) -> str:
    """How a player is named at a network table: the screen name they chose (unique on the
    platform), else their seat. Never their operator's display name or reference."""
    return player.screen_name or f"Seat {position + 1}"


# Fields of a statement's player entry that only the operator may read: ``external_ref`` is
# the operator's private id for its player.
OPERATOR_ONLY_PLAYER_FIELDS = ("external_ref",)
# What a network statement shows of another operator's player (docs/network.md): the seat,
# the screen name and the game's amounts; never an id, a reference or the operator.
OTHER_OPERATOR_PLAYER_FIELDS = ("seat", "screen_name", "escrowed", "payout", "net")


def statement_for_operator(
    statement: dict[str, Any],
    *,
    operator_id: Any,
    operator_names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A network game's statement as one participating operator may read it: its own
    players in full, every other player by screen name only (plus the operator's name when
    the network reveals operators: ``operator_names`` maps operator ids to names), the fee
    split's own line only. A statement of a game that is not a network one is returned
    unchanged (one operator's game, read by that operator)."""
    if "network" not in statement:
        return statement
    mine = str(operator_id)
    own_seats = {
        entry["seat"] for entry in statement["players"] if entry.get("operator_id") == mine
    }
    players = []
    for entry in statement["players"]:
        if entry["seat"] in own_seats:
            players.append({key: value for key, value in entry.items() if key != "operator_id"})
            continue
        shown = {key: entry[key] for key in OTHER_OPERATOR_PLAYER_FIELDS if key in entry}
        if operator_names is not None:
            shown["operator"] = operator_names.get(entry.get("operator_id"), "")
        players.append(shown)
    lines = [
        line
        if line["seat"] in own_seats
        else {key: value for key, value in line.items() if key != "player_id"}
        for line in statement["lines"]
    ]
    network = statement["network"]
    return statement | {
        "players": players,
        "lines": lines,
        "network": network
        | {
            "operators": [
                {key: value for key, value in row.items() if key != "operator_id"}
                for row in network["operators"]
                if row["operator_id"] == mine
            ]
        },
    }


def statement_for_player(
    statement: dict[str, Any],
    *,
    operator_id: Any = None,
    operator_names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The statement as a player of the game may read it: the other player appears by
    screen name, never by the operator's private id. A network game's statement is first
    masked for the player's operator (``operator_id``, ``statement_for_operator``)."""
    if "network" in statement:
        statement = statement_for_operator(
            statement, operator_id=operator_id, operator_names=operator_names
        )
    return statement | {
        "players": [
            {key: value for key, value in entry.items() if key not in OPERATOR_ONLY_PLAYER_FIELDS}
            for entry in statement["players"]
        ]
    }


def _credited_by_player(ledger_transaction: LedgerTransaction) -> dict[str, tuple[int, str]]:
    """What each player's wallet received, in the wallet's own currency."""
    credited: dict[str, tuple[int, str]] = {}
    for entry in wallet_transactions.transaction_entries(ledger_transaction=ledger_transaction):
        if entry.component == "payout" and entry.player_id is not None:
            credited[str(entry.player_id)] = (entry.amount, entry.currency)
    return credited
