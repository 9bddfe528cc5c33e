"""R10 payouts as pure functions: every line tagged, parts adding up exactly."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import MoneyPlayResult, money_play_final_scores
from settlement.payouts import (
    CAP_ADJUSTMENT,
    CASHIER_RETURN,
    FEE_DEDUCTION,
    LINE_BONUS,
    POINTS,
    TARGET_BONUS,
    ZERO_POINT_BONUS,
    fee_for,
    money_play_payout,
    pot_payout,
)


def by_component(payout, seat):
    return {line.component: line.amount for line in payout.lines if line.seat == seat}


@pytest.mark.parametrize(("stake", "bps", "fee"), [(1000, 500, 100), (333, 500, 33), (1, 250, 0)])
def test_pot_payout_winner_gets_pot_minus_fee_rounded_down(stake, bps, fee):
    payout = pot_payout(stakes=(stake, stake), winner=1, fee_bps=bps)
    assert payout.fee == fee
    assert payout.total_for(1) == 2 * stake - fee
    assert payout.total_for(0) == 0
    assert payout.total == 2 * stake  # the escrow is emptied exactly
    assert payout.statement["payouts"] == [0, 2 * stake - fee]


def test_odd_pot_fee_does_not_divide_evenly_and_parts_still_add_up():
    payout = pot_payout(stakes=(1001, 1001), winner=0, fee_bps=333)
    assert payout.fee == 2002 * 333 // 10_000 == 66
    assert payout.total_for(0) + payout.fee == 2002


def test_r10_worked_example_money_play():
    """R10: A won 3 hands for 105, B won 2 for 40 in a 100-point game: A wins 190 points."""
    scores = money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    )
    payout = money_play_payout(
        cashier=(50_000, 50_000), scores=scores, stake_per_point=10, fee_bps=500
    )
    assert payout.statement["winnings"] == 1900
    assert payout.fee == 95
    winner = by_component(payout, 0)
    assert winner[POINTS] == 650 and winner[LINE_BONUS] == 250 and winner[TARGET_BONUS] == 1000
    assert winner[FEE_DEDUCTION] == -95 and winner[CASHIER_RETURN] == 50_000
    assert payout.total_for(0) == 50_000 + 1900 - 95
    assert payout.total_for(1) == 50_000 - 1900
    assert payout.total == 100_000


def test_loser_cashier_caps_the_winnings():
    scores = money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    )
    payout = money_play_payout(cashier=(5000, 1000), scores=scores, stake_per_point=10, fee_bps=0)
    assert payout.total_for(1) == 0  # nobody loses more than their cashier amount
    assert payout.total_for(0) == 6000
    assert by_component(payout, 0)[CAP_ADJUSTMENT] == -(1900 - 1000)
    assert payout.statement["caps_applied"] == [{"seat": 1, "cap": "loser_cashier", "amount": 1000}]


def test_winner_cashier_caps_the_winnings():
    scores = money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    )
    payout = money_play_payout(cashier=(800, 5000), scores=scores, stake_per_point=10, fee_bps=0)
    assert payout.total_for(0) == 1600  # nobody wins more than their own cashier amount
    assert payout.total_for(1) == 4200
    assert payout.statement["caps_applied"] == [{"seat": 0, "cap": "winner_cashier", "amount": 800}]


def test_zero_point_bonus_line():
    scores = money_play_final_scores(
        hand_points=(0, 100), hands_won=(0, 2), target=100, reached_target=1
    )
    payout = money_play_payout(
        cashier=(100_000, 100_000), scores=scores, stake_per_point=1, fee_bps=0
    )
    assert by_component(payout, 1)[ZERO_POINT_BONUS] == 100
    assert by_component(payout, 0)[ZERO_POINT_BONUS] == -100
    assert payout.statement["winnings"] == 100 + 50 + 100 + 100


def test_equal_final_scores_move_no_money():
    scores = MoneyPlayResult(
        hand_points=(50, 100),
        line_bonus=(75, 25),
        target_bonus=(0, 0),
        zero_point_bonus=(0, 0),
        totals=(125, 125),
        winner=None,
        point_difference=0,
        target=100,
        reached_target=None,
    )
    payout = money_play_payout(cashier=(700, 900), scores=scores, stake_per_point=5, fee_bps=500)
    assert payout.fee == 0
    assert (payout.total_for(0), payout.total_for(1)) == (700, 900)


@given(
    stake=st.integers(0, 10**9),
    bps=st.integers(0, 10_000),
    winner=st.sampled_from([0, 1]),
)
def test_pot_payout_always_empties_the_escrow_exactly(stake, bps, winner):
    payout = pot_payout(stakes=(stake, stake), winner=winner, fee_bps=bps)
    assert payout.total == 2 * stake
    assert payout.total_for(winner) >= 0 and payout.total_for(1 - winner) == 0


@given(
    points=st.tuples(st.integers(0, 300), st.integers(0, 300)),
    won=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    reached=st.sampled_from([0, 1, None]),
    cashier=st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)),
    spp=st.integers(1, 10_000),
    bps=st.integers(0, 2_000),
)
def test_money_play_never_overdraws_and_always_balances(points, won, reached, cashier, spp, bps):
    scores = money_play_final_scores(
        hand_points=points, hands_won=won, target=100, reached_target=reached
    )
    payout = money_play_payout(cashier=cashier, scores=scores, stake_per_point=spp, fee_bps=bps)
    assert payout.total == cashier[0] + cashier[1]
    for seat in (0, 1):
        assert payout.total_for(seat) >= 0
        # Nobody wins more than their own cashier amount (before the fee).
        assert payout.total_for(seat) <= 2 * cashier[seat]


def test_fee_for_refuses_nonsense():
    with pytest.raises(ValueError):
        fee_for(-1, 100)
    with pytest.raises(ValueError):
        fee_for(100, 10_001)
