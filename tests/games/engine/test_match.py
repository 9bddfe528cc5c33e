"""R10 game-level scoring: First To Knock, Match Play, Money Play, forfeits."""

import pytest

from games.engine import (
    VARIANTS,
    ForfeitResult,
    HandOutcome,
    MatchScore,
    forfeit_result,
    ftk_winner,
    hands_won,
    match_progress,
    money_play_final_scores,
    next_dealer,
    targets_for,
)

VOID = HandOutcome(kind="void", knocker=None, winner=None, points=0)


def won(seat: int, points: int, kind: str = "knock", knocker: int | None = None) -> HandOutcome:
    return HandOutcome(
        kind=kind, knocker=seat if knocker is None else knocker, winner=seat, points=points
    )


# --- First To Knock ----------------------------------------------------------------------


def test_r10_ftk_first_to_knock_wins_even_when_undercut():
    assert ftk_winner(won(0, 12)) == 0
    assert ftk_winner(won(1, 30, kind="undercut", knocker=0)) == 0  # undercut: knocker wins
    assert ftk_winner(won(1, 45, kind="gin")) == 1
    assert ftk_winner(won(0, 52, kind="big_gin")) == 0
    tie = HandOutcome(kind="knock", knocker=1, winner=None, points=0)  # R9 no_score tie
    assert ftk_winner(tie) == 1


def test_r10_ftk_void_hand_has_no_winner_and_is_redealt():
    assert ftk_winner(VOID) is None


# --- Match Play --------------------------------------------------------------------------


def test_r10_match_play_first_to_reach_the_target_wins():
    outcomes = [won(0, 40), VOID, won(1, 55), won(0, 35), won(0, 30)]
    assert match_progress(outcomes[:4], 100) == MatchScore(points=(75, 55), winner=None)
    points, winner = match_progress(outcomes, 100)
    assert (points, winner) == ((105, 55), 0)


def test_r10_match_play_reaching_exactly_the_target_wins():
    assert match_progress([won(1, 100)], 100).winner == 1


def test_r10_match_play_refuses_hands_after_the_winner():
    with pytest.raises(ValueError):
        match_progress([won(1, 100), won(0, 5)], 100)


def test_hands_won_counts_scoring_hands_only():
    assert hands_won([won(0, 4), VOID, won(1, 25, kind="undercut", knocker=0), won(0, 9)]) == (
        2,
        1,
    )


# --- Money Play --------------------------------------------------------------------------


def test_r10_money_play_worked_example():
    # 100-point game, A won 3 hands for 105 hand points, B won 2 for 40.
    result = money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    )
    assert result.line_bonus == (75, 50)
    assert result.target_bonus == (100, 0)
    assert result.zero_point_bonus == (0, 0)
    assert result.totals == (280, 90)
    assert (result.winner, result.point_difference) == (0, 190)


def test_r10_money_play_zero_point_bonus_when_the_loser_scored_nothing():
    result = money_play_final_scores(
        hand_points=(0, 110), hands_won=(0, 3), target=100, reached_target=1
    )
    assert result.zero_point_bonus == (0, 100)
    assert result.totals == (0, 110 + 75 + 100 + 100)
    assert (result.winner, result.point_difference) == (1, 385)


def test_r10_fifty_point_game_bonuses_are_fifty():
    result = money_play_final_scores(
        hand_points=(52, 0), hands_won=(2, 0), target=50, reached_target=0
    )
    assert result.target_bonus == (50, 0)
    assert result.zero_point_bonus == (50, 0)
    assert result.totals == (52 + 50 + 50 + 50, 0)


def test_r10_money_play_equal_totals_no_money_moves():
    result = money_play_final_scores(
        hand_points=(0, 0), hands_won=(0, 0), target=100, reached_target=None
    )
    assert (result.winner, result.point_difference) == (None, 0)


def test_money_play_validates_input():
    with pytest.raises(ValueError):
        money_play_final_scores(hand_points=(1, 2), hands_won=(1, 1), target=250, reached_target=0)
    with pytest.raises(ValueError):
        money_play_final_scores(hand_points=(-1, 2), hands_won=(1, 1), target=100, reached_target=0)
    with pytest.raises(ValueError):
        money_play_final_scores(hand_points=(1, 2), hands_won=(1, 1), target=100, reached_target=2)


def test_money_play_result_to_dict():
    result = money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    )
    assert result.to_dict()["totals"] == [280, 90]


# --- Leaving, timing out -----------------------------------------------------------------


def test_r10_forfeit_ftk_opponent_is_first_to_knock():
    result = forfeit_result("ftk", 0)
    assert isinstance(result, ForfeitResult)
    assert (result.winner, result.reached_target, result.money_play) == (1, 1, None)
    assert forfeit_result("ftk", 1).winner == 0


def test_r10_forfeit_match_play_opponent_reaches_the_target():
    result = forfeit_result("match", 1, hand_points=(20, 90), hands_won=(1, 3))
    assert (result.winner, result.reached_target, result.points) == (0, 0, (20, 90))


def test_r10_forfeit_money_play_scores_with_the_opponent_reaching_the_target():
    result = forfeit_result("money", 0, hand_points=(30, 45), hands_won=(1, 2), target=100)
    money = result.money_play
    assert money.target_bonus == (0, 100)
    assert money.totals == (30 + 25, 45 + 50 + 100)
    assert result.winner == money.winner == 1
    assert money.point_difference == 140


def test_r10_forfeit_before_anyone_scored_gives_the_zero_point_bonus():
    result = forfeit_result("money", 1, target=50)
    assert result.money_play.totals == (100, 0)
    assert result.winner == 0


def test_r10_forfeit_money_play_counts_every_scored_hand():
    """The leaver won 2 hands for 40 points, the opponent 2 for 19: 90 against 169."""
    result = forfeit_result("money", 0, hand_points=(40, 19), hands_won=(2, 2), target=100)
    money = result.money_play
    assert money.totals == (40 + 50, 19 + 50 + 100)
    assert money.zero_point_bonus == (0, 0)
    assert (result.winner, money.winner, money.point_difference) == (1, 1, 79)


@pytest.mark.parametrize(
    ("hand_points", "hands_won"),
    [((95, 0), (4, 0)), ((99, 30), (3, 1)), ((75, 0), (3, 0))],
)
def test_r10_a_leaver_still_ahead_wins_no_money(hand_points, hands_won):
    """R10: a player can never win money by leaving; ahead or level, no winnings move."""
    result = forfeit_result("money", 0, hand_points=hand_points, hands_won=hands_won, target=100)
    money = result.money_play
    assert money.totals[0] >= money.totals[1]
    assert result.winner is None and money.winner is None
    assert money.point_difference == 0
    assert money.target_bonus == (0, 100)


@pytest.mark.parametrize("variant", ["ftk", "match"])
def test_r10_forfeit_pot_games_go_to_the_opponent_even_when_the_leaver_leads(variant):
    result = forfeit_result(variant, 1, hand_points=(0, 95), hands_won=(0, 4))
    assert result.winner == 0


def test_one_vocabulary_for_the_variants():
    """The engine speaks the variant names the database and the API use: no aliases."""
    assert VARIANTS == ("ftk", "match", "money")
    for other_spelling in ("first_to_knock", "match_play", "money_play", "FTK"):
        with pytest.raises(ValueError):
            forfeit_result(other_spelling, 0, target=100)


def test_r10_targets_and_r3_dealer_rotation_live_in_the_engine():
    void = VOID
    assert targets_for("match") == (100, 250, 500) and targets_for("money") == (50, 100)
    assert targets_for("ftk") == ()
    assert next_dealer(0, void) == 0 and next_dealer(1, void) == 1  # R7: same dealer
    assert next_dealer(0, won(0, 5)) == 1 and next_dealer(1, won(1, 5)) == 0


def test_forfeit_validates_input():
    with pytest.raises(ValueError):
        forfeit_result("poker", 0)
    with pytest.raises(ValueError):
        forfeit_result("money", 0)  # target needed
    with pytest.raises(ValueError):
        forfeit_result("match", 3)
