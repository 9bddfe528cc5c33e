"""How a finished game's escrow is split (R10), as pure functions of the game's result.

No Django here: the settlement service reads the match, calls one of these, and posts the
lines through ``wallet.services.escrow_settle``. Every line is tagged with the component it
stands for, so the ledger itself shows why money moved; per seat the lines add up to that
seat's payout, and the payouts plus the fee add up to the escrow exactly.

Rounding (documented in docs/settlement.md): the fee is ``floor(base * fee_bps / 10_000)``
in the escrow currency's minor units, i.e. any fraction of a minor unit stays with the
player. There is no other division, so no other rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import MoneyPlayResult, Ranking, split_pot

BPS = 10_000

# Ledger components (wallet entries carry one of these tags).
STAKE = "stake"  # a player's own stake coming back
POT = "pot"  # the opponent's stake won
CASHIER_RETURN = "cashier_return"
POINTS = "points"
LINE_BONUS = "line_bonus"
TARGET_BONUS = "target_bonus"
ZERO_POINT_BONUS = "zero_point_bonus"
CAP_ADJUSTMENT = "cap_adjustment"
# The winner's line that hands the fee over. The house side of it is the wallet's own
# ``fee`` entry (escrow -> house fee account), so the player's line has its own name.
FEE_DEDUCTION = "fee_deduction"
# R12 (three and four players): a place's share of the pot less the fee, by the room's
# prize table. Each player's stake goes into the pot (``pot``, negative) and comes back as
# ``stake``, so per player the lines add up to the prize.
PRIZE = "prize"
MONEY_PLAY_SCORE_COMPONENTS = (
    ("hand_points", POINTS),
    ("line_bonus", LINE_BONUS),
    ("target_bonus", TARGET_BONUS),
    ("zero_point_bonus", ZERO_POINT_BONUS),
)


@dataclass(frozen=True)
class PayoutLine:
    seat: int
    component: str
    amount: int  # minor units of the escrow currency; negative lines explain a net amount


@dataclass(frozen=True)
class Payout:
    lines: tuple[PayoutLine, ...]
    fee: int
    statement: dict[str, Any] = field(default_factory=dict)

    def total_for(self, seat: int) -> int:
        return sum(line.amount for line in self.lines if line.seat == seat)

    @property
    def total(self) -> int:
        return sum(line.amount for line in self.lines) + self.fee


def fee_for(base: int, fee_bps: int) -> int:
    """The house fee on ``base`` minor units: rounded down, never more than the base."""
    if base < 0 or not 0 <= fee_bps <= BPS:
        raise ValueError(f"fee on {base} at {fee_bps} bps is not defined")
    return base * fee_bps // BPS


def pot_payout(*, stakes: Sequence[int], winner: int, fee_bps: int) -> Payout:
    """First To Knock and Match Play (R10): the winner receives the pot minus the fee.

    Every player has lines of their own, as in Money Play: their stake (``stake``, released
    from the escrow) and what the result did to it (``pot``: the loser's stake, negative for
    the loser and positive for the winner), the winner also ``fee_deduction``. So the loser's
    history shows what the game cost them, and per player the lines add up to the payout
    (the loser's to 0). A forfeit is settled the same way: the opponent is the winner.
    """
    if winner not in (0, 1) or len(stakes) != 2 or min(stakes) < 0:
        raise ValueError("a pot payout needs two stakes and a winner seat 0 or 1")
    loser = 1 - winner
    pot = stakes[0] + stakes[1]
    fee = fee_for(pot, fee_bps)
    lines = (
        PayoutLine(winner, STAKE, stakes[winner]),
        PayoutLine(winner, POT, stakes[loser]),
        PayoutLine(winner, FEE_DEDUCTION, -fee),
        PayoutLine(loser, STAKE, stakes[loser]),
        PayoutLine(loser, POT, -stakes[loser]),
    )
    statement = {
        "pot": pot,
        "stakes": list(stakes),
        "fee_bps": fee_bps,
        "fee": fee,
        "winner": winner,
        "payouts": [pot - fee if seat == winner else 0 for seat in (0, 1)],
    }
    return Payout(lines=_nonzero(lines), fee=fee, statement=statement)


def prize_table_payout(
    *,
    stakes: Sequence[int],
    ranking: Ranking,
    prize_table: str,
    fee_bps: int,
    payouts: Sequence[int] | None = None,
) -> Payout:
    """First To Knock and Match Play with 3-4 players (R12): the pot (every stake) less the
    fee (R10, rounded down) is shared by the room's prize table in the ranking's order,
    with the engine's rounding (``split_pot``: a division's remainder goes to the
    better-placed player, then by seat order). Per player: ``stake`` (released from the
    escrow), ``pot`` (the same stake put into the pot, negative) and ``prize`` (that place's
    share, when it has one). ``payouts``: the split the match result recorded; it must be
    this very split."""
    if len(stakes) not in (3, 4) or min(stakes) < 0 or len(stakes) != ranking.seats:
        raise ValueError("a prize-table payout needs one stake per seat of a 3-4 seat table")
    pot = sum(stakes)
    fee = fee_for(pot, fee_bps)
    shares = split_pot(pot - fee, ranking, prize_table)
    if payouts is not None and tuple(payouts) != shares:
        raise ValueError("the recorded payouts are not the prize table's split (R12)")
    lines = []
    for seat, stake in enumerate(stakes):
        lines += [
            PayoutLine(seat, STAKE, stake),
            PayoutLine(seat, POT, -stake),
            PayoutLine(seat, PRIZE, shares[seat]),
        ]
    statement = {
        "pot": pot,
        "stakes": list(stakes),
        "fee_bps": fee_bps,
        "fee": fee,
        "prize_table": prize_table,
        "ranking": ranking.to_list(),
        "payouts": list(shares),
    }
    return Payout(lines=_nonzero(lines), fee=fee, statement=statement)


def money_play_payout(
    *,
    cashier: Sequence[int],
    scores: MoneyPlayResult,
    stake_per_point: int,
    fee_bps: int,
) -> Payout:
    """Money Play (R10): winnings = point difference x stake per point, capped by the
    loser's and by the winner's cashier amount; the fee is taken from the winnings; each
    player's unused cashier amount goes back to them. Equal totals: no money moves.

    ``scores`` is the engine's MoneyPlayResult (hand_points, line_bonus, target_bonus,
    zero_point_bonus, totals, winner, point_difference).
    """
    if len(cashier) != 2 or min(cashier) < 0 or stake_per_point <= 0:
        raise ValueError("money play needs two cashier amounts and a positive stake per point")
    winner = scores.winner
    returns = tuple(PayoutLine(seat, CASHIER_RETURN, cashier[seat]) for seat in (0, 1))
    if winner is None:
        statement = _money_statement(
            cashier, scores, stake_per_point, fee_bps, raw=0, capped=0, fee=0, winner=None
        )
        return Payout(lines=_nonzero(returns), fee=0, statement=statement)
    loser = 1 - winner
    lines = list(returns)
    raw = 0
    for key, component in MONEY_PLAY_SCORE_COMPONENTS:
        points = getattr(scores, key)
        difference = (points[winner] - points[loser]) * stake_per_point
        raw += difference
        lines.append(PayoutLine(winner, component, difference))
        lines.append(PayoutLine(loser, component, -difference))
    if raw != scores.point_difference * stake_per_point:
        raise ValueError("the score components do not add up to the point difference")
    capped = min(raw, cashier[loser], cashier[winner])
    cap_cut = raw - capped
    lines.append(PayoutLine(winner, CAP_ADJUSTMENT, -cap_cut))
    lines.append(PayoutLine(loser, CAP_ADJUSTMENT, cap_cut))
    fee = fee_for(capped, fee_bps)
    lines.append(PayoutLine(winner, FEE_DEDUCTION, -fee))
    statement = _money_statement(
        cashier, scores, stake_per_point, fee_bps, raw=raw, capped=capped, fee=fee, winner=winner
    )
    return Payout(lines=_nonzero(lines), fee=fee, statement=statement)


def _money_statement(
    cashier, scores, stake_per_point, fee_bps, *, raw, capped, fee, winner
) -> dict[str, Any]:
    payouts = [cashier[0], cashier[1]]
    if winner is not None:
        payouts[winner] += capped - fee
        payouts[1 - winner] -= capped
    caps = []
    if capped < raw:
        loser = 1 - winner
        if capped == cashier[loser]:
            caps.append({"seat": loser, "cap": "loser_cashier", "amount": cashier[loser]})
        if capped == cashier[winner]:
            caps.append({"seat": winner, "cap": "winner_cashier", "amount": cashier[winner]})
    return {
        "cashier": list(cashier),
        "scores": scores.to_dict(),
        "stake_per_point": stake_per_point,
        "winnings_before_caps": raw,
        "winnings": capped,
        "caps_applied": caps,
        "fee_bps": fee_bps,
        "fee": fee,
        "winner": winner,
        "payouts": payouts,
    }


def _nonzero(lines: Sequence[PayoutLine]) -> tuple[PayoutLine, ...]:
    return tuple(line for line in lines if line.amount != 0)
