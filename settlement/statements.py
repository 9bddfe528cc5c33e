"""The statement of a settled game: every line of money with the reason for it.

Built from the match result (games), the payout (settlement.payouts) and the ledger
transaction that posted it (wallet), so the statement and the ledger can never disagree.
A pure function of those facts: what the transaction credited to each wallet is read by
the caller (``wallet.selectors.transactions.payouts_credited``), and each part of the
statement is a named step below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from games.engine import MatchResult, MultiMatchResult
from gin_platform.models import Player
from gin_platform.money import money_dict
from settlement.payouts import Payout

if TYPE_CHECKING:
    from games.engine import MoneyPlayResult, SeatStake
    from wallet.models import LedgerTransaction

Result = MatchResult | MultiMatchResult


def build_statement(
    *,
    result: Result,
    payout: Payout,
    ledger_transaction: LedgerTransaction,
    credited: Mapping[str, tuple[int, str]],
    players_by_id: dict[str, Player],
    network: bool = False,
) -> dict[str, Any]:
    """The statement of a game whose ``payout`` the ledger posted as ``ledger_transaction``;
    ``credited``: what it put into each player's wallet, by player id (in the wallet's
    currency). ``network``: a network game (docs/network.md): each player entry also names
    the player's operator (``operator_id``, read only by the platform:
    ``statement_for_operator`` masks it) and players are named by their screen names;
    ``network`` holds the fee split."""
    seats = tuple(sorted(result.seats, key=lambda seat: seat.position))
    public = result.public()
    fx = _fx_by_player(ledger_transaction)
    players = [
        _player_entry(
            seat,
            player=players_by_id[seat.player_id],
            result=result,
            payout=payout,
            credited=credited,
            fx=fx,
            network=network,
        )
        for seat in seats
    ]
    statement: dict[str, Any] = {
        **_game_summary(result, public=public, payout=payout, seats=seats),
        "lines": _payout_lines(payout, seats=seats, currency=result.currency),
        "players": players,
        "ledger_reference": ledger_transaction.reference,
        "ledger_transaction_id": ledger_transaction.pk,
    }
    if network:
        for entry in players:
            entry["operator_id"] = str(players_by_id[entry["player_id"]].operator_id)
        statement["network"] = _network_split(ledger_transaction, payout=payout, result=result)
    if isinstance(result, MultiMatchResult):
        statement["prize_table"] = _prize_table(result, public=public)
    elif result.money_play is not None:
        statement["money_play"] = _money_play(
            result.money_play, payout=payout, currency=result.currency
        )
    return statement


def _fx_by_player(ledger_transaction: LedgerTransaction) -> dict[str, Any]:
    """The rate snapshot of each player's conversion, if their wallet is in another
    currency than the game's."""
    return {snap.get("player"): snap for snap in ledger_transaction.fx or []}


def _player_entry(
    seat: SeatStake,
    *,
    player: Player,
    result: Result,
    payout: Payout,
    credited: Mapping[str, tuple[int, str]],
    fx: Mapping[str, Any],
    network: bool,
) -> dict[str, Any]:
    """One player's part: what they put in, were paid and their net, in the game's
    currency; what their wallet received, in its own; the conversion's rate, if any."""
    currency = result.currency
    paid = payout.total_for(seat.position)
    wallet_amount, wallet_currency = credited.get(seat.player_id, (0, None))
    named = network_screen_name if network else screen_name
    return {
        "seat": seat.position,
        "player_id": seat.player_id,
        "screen_name": named(player, seat.position),
        "external_ref": player.external_ref,
        "escrowed": money_dict(seat.amount, currency),
        "payout": money_dict(paid, currency),
        "net": money_dict(paid - seat.amount, currency),
        "credited": money_dict(wallet_amount, wallet_currency) if wallet_currency else None,
        "fx": fx.get(seat.player_id),
    }


def _payout_lines(
    payout: Payout, *, seats: Sequence[SeatStake], currency: str
) -> list[dict[str, Any]]:
    """Every line of the payout (R10, R12), each with the player it pays and its reason."""
    return [
        {
            "seat": line.seat,
            "player_id": seats[line.seat].player_id,
            "component": line.component,
            **money_dict(line.amount, currency),
        }
        for line in payout.lines
    ]


def _game_summary(
    result: Result, *, public: Mapping[str, Any], payout: Payout, seats: Sequence[SeatStake]
) -> dict[str, Any]:
    """What was played and how it ended (``public``: the result's public part), the stakes,
    the fee and the escrow."""
    currency = result.currency
    multi = isinstance(result, MultiMatchResult)  # R12: three and four players
    stake_per_point = None if isinstance(result, MultiMatchResult) else result.stake_per_point
    return {
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
    }


def _network_split(
    ledger_transaction: LedgerTransaction, *, payout: Payout, result: Result
) -> dict[str, Any]:
    """A network game's fee split as the ledger posted it: the network's share and each
    operator's contribution and share (docs/network.md)."""
    currency = result.currency
    split = ledger_transaction.metadata.get("network", {})
    return {
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


def _prize_table(result: MultiMatchResult, *, public: Mapping[str, Any]) -> dict[str, Any]:
    """R12: the ranking, the penalty totals and forfeits, the pot and each place's prize."""
    currency = result.currency
    return {
        "table": result.prize_table,
        "ranking": public["ranking"],
        "penalty_totals": public["penalty_totals"],
        "forfeits": public["forfeits"],
        "pot": money_dict(result.pot, currency),
        "prizes": [money_dict(amount, currency) for amount in result.payouts],
    }


def _money_play(scores: MoneyPlayResult, *, payout: Payout, currency: str) -> dict[str, Any]:
    """Money Play (R10): the scores, the winnings before and after the caps, the caps that
    applied and the bonus points."""
    detail = payout.statement
    return {
        "scores": scores.to_dict(),
        "winnings_before_caps": money_dict(detail["winnings_before_caps"], currency),
        "winnings": money_dict(detail["winnings"], currency),
        "caps_applied": [
            cap | {"amount": money_dict(cap["amount"], currency)} for cap in detail["caps_applied"]
        ],
        "bonus_points": {
            "line_bonus": list(scores.line_bonus),
            "target_bonus": list(scores.target_bonus),
            "zero_point_bonus": list(scores.zero_point_bonus),
        },
    }


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
