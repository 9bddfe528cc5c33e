"""Going out (R6), showing and laying off (R8), scoring a hand (R9)."""

import json

import pytest
from hypothesis import assume, given, settings

from games.engine import (
    DuplicateCardError,
    InvalidHandError,
    KnockOverLimitError,
    KnockResult,
    RuleSet,
    card_value,
    deadwood,
    parse_cards,
    score_knock,
    settle_knock,
)
from tests.games.engine import brute_force
from tests.games.engine.strategies import two_hands

# R9's first worked example (docs/rules.md): sets 4-4-4 and 7-8-9 of spades, deadwood
# AC AS 6C 2D = 10.
SEED_KNOCKER = "4H 4D 4C 7S 8S 9S AC AS 6C 2D"


def melds_text(melds):
    return [str(meld) for meld in melds]


def test_r9_worked_example_seed_000_knocker_10_defender_50_scores_40():
    # Defender: run 7-8-9 of clubs, lays 6S off onto 7-8-9S, 50 left.
    result = settle_knock(SEED_KNOCKER, "7C 8C 9C 6S KH QD JH TD 5H 5D")
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 40)
    assert (result.knocker_deadwood, result.defender_deadwood) == (10, 50)
    assert melds_text(result.knocker_melds) == ["4H 4D 4C", "7S 8S 9S"]
    assert melds_text(result.defender_melds) == ["7C 8C 9C"]
    assert [(str(layoff.card), layoff.meld_index) for layoff in result.layoffs] == [("6S", 1)]


def test_r9_worked_example_seed_001_defender_46_after_layoff_scores_36():
    result = settle_knock(SEED_KNOCKER, "7C 8C 9C 6S KH QD JH TD 5H AH")
    assert (result.kind, result.points, result.defender_deadwood) == ("knock", 36, 46)


def test_r9_worked_example_seed_003_knocker_8_defender_10_scores_2():
    result = settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 8C", "5H 6H 7H KS KH KC 2H 2D 2C QH")
    assert (result.knocker_deadwood, result.defender_deadwood) == (8, 10)
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 2)


def test_r9_undercut_defender_scores_difference_plus_bonus():
    # Knocker 8 (8C); defender 1 (AH), no lay-offs.
    result = settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 8C", "5H 6H 7H KS KH KC 2H 2C 2D AH")
    assert result.defender_deadwood == 1
    assert (result.kind, result.winner, result.points) == ("undercut", "defender", 8 - 1 + 25)


@pytest.mark.parametrize("bonus", [10, 20, 25])
def test_r9_undercut_bonus_room_option(bonus):
    rules = RuleSet(undercut_bonus=bonus)
    result = settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 8C", "5H 6H 7H KS KH KC 2H 2C 2D AH", rules)
    assert result.points == 7 + bonus


def test_r9_tie_is_an_undercut_by_default_and_scores_nothing_with_no_score():
    knocker, defender = "AS 2S 3S 4H 4D 4C 9D TD JD 8C", "5H 6H 7H KS KH KC 2H 2C 2D 8S"
    default = settle_knock(knocker, defender)
    assert (default.knocker_deadwood, default.defender_deadwood) == (8, 8)
    assert (default.kind, default.winner, default.points) == ("undercut", "defender", 25)
    tie = settle_knock(knocker, defender, RuleSet(tie_rule="no_score"))
    assert (tie.kind, tie.winner, tie.points) == ("knock", None, 0)


def test_r9_no_score_tie_rule_still_undercuts_when_defender_is_lower():
    rules = RuleSet(tie_rule="no_score")
    result = settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 8C", "5H 6H 7H KS KH KC 2H 2C 2D AH", rules)
    assert (result.kind, result.points) == ("undercut", 32)


def test_r6_r9_gin_scores_defender_deadwood_plus_bonus_without_layoffs():
    # 8D would lay off onto 9-T-J of diamonds, and 4S onto the fours: not against Gin (R8).
    knocker = "AS 2S 3S 4H 4D 4C 9D TD JD QD"
    defender = "8D 4S 5H 6H 7H KS KH KC 2C 9C"
    result = settle_knock(knocker, defender)
    assert (result.kind, result.winner) == ("gin", "knocker")
    assert result.layoffs == ()
    assert result.defender_deadwood == 8 + 4 + 2 + 9
    assert result.points == 23 + 25
    assert settle_knock(knocker, defender, RuleSet(gin_bonus=20)).points == 23 + 20


@pytest.mark.parametrize("bonus", [25, 31, 50])
def test_r6_r9_big_gin_eleven_cards_scores_defender_deadwood_plus_bonus(bonus):
    knocker = "AS 2S 3S 4H 4D 4C 9D TD JD QD KD"
    defender = "8D 4S 5H 6H 7H KS KH KC 2C 9C"
    result = settle_knock(knocker, defender, RuleSet(big_gin_bonus=bonus))
    assert (result.kind, result.winner, result.points) == ("big_gin", "knocker", 23 + bonus)
    assert result.layoffs == ()
    assert sum(len(meld.cards) for meld in result.knocker_melds) == 11


def test_r6_big_gin_needs_all_eleven_melded():
    with pytest.raises(InvalidHandError, match="Big Gin"):
        settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD QD 2C", "8D 4S 5H 6H 7H KS KH KC 3C 9C")


def test_r6_knock_over_the_limit_is_refused_naming_the_deadwood():
    with pytest.raises(KnockOverLimitError) as caught:
        settle_knock("AS 2S 3S 4H 4D 4C 2H 3D AC 5C", "5H 6H 7H KS KH KC 9D 9C 9S 8S")
    assert (caught.value.deadwood, caught.value.limit) == (11, 10)
    assert "11" in str(caught.value)


def test_r6_r9_knock_limit_room_option():
    knocker = "AS 2S 3S 4H 4D 4C 9D TD JD 6C"
    defender = "5H 6H 7H KS KH KC 2H 2C 2D QS"
    assert settle_knock(knocker, defender, RuleSet(knock_limit=6)).knocker_deadwood == 6
    with pytest.raises(KnockOverLimitError):
        settle_knock(knocker, defender, RuleSet(knock_limit=5))


def test_r8_three_sets_or_three_runs_decides_whether_the_defender_undercuts():
    # The knocker's 7-8-9 of spades, hearts and diamonds split as three runs or three sets,
    # both with deadwood 4 (4C). Against runs the defender lays off everything (5-6 below and
    # 10(-J) above each run): 0 deadwood, an undercut for 4 + 25. Against sets nothing but
    # 7C/8C/9C could lay off, so the defender keeps 5s, 6s and 10s as sets and JS (10)
    # as deadwood: the knocker wins 6. R8 makes the knocker show the sets.
    knocker = "7S 8S 9S 7H 8H 9H 7D 8D 9D 4C"
    defender = "5S 6S TS JS 5H 6H TH 5D 6D TD"
    result = settle_knock(knocker, defender)
    assert melds_text(result.knocker_melds) == ["7S 7H 7D", "8S 8H 8D", "9S 9H 9D"]
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 6)
    assert result.defender_deadwood == 10
    assert result.layoffs == ()
    # The first minimum-deadwood split, three runs, would have been an undercut for 4 + 25:
    runs = [parse_cards(run) for run in ("7S 8S 9S", "7H 8H 9H", "7D 8D 9D")]
    assert brute_force.defender_reply(runs, parse_cards(defender)) == 0


def test_r8_knocker_may_leave_a_meld_unshown_when_that_scores_better():
    # A-2-3 of spades shown invites 4S-5S as lay-offs (9 points off the defender); leaving
    # them as deadwood costs the knocker only 6: K 3 -> 9, D 58 -> 67, +3 for the knocker.
    knocker = "AS 2S 3S 7H 8H 9H JD QD KD 3C"
    defender = "4S 5S KH KC QC 9C 7C 2D 4D 6D"
    result = settle_knock(knocker, defender)
    shown_all = 58 - 3
    assert result.points == 67 - 9 > shown_all
    assert result.knocker_deadwood == 9
    assert result.layoffs == ()


def test_r8_layoffs_chain_nine_then_ten_onto_six_seven_eight():
    result = settle_knock("6H 7H 8H 2S 2D 2C KS KD KC 3C", "9H TH 4S 5D 7C 8C QS JD AH 2H")
    laid = [(str(layoff.card), layoff.meld_index) for layoff in result.layoffs]
    run_index = melds_text(result.knocker_melds).index("6H 7H 8H")
    assert ("9H", run_index) in laid and ("TH", run_index) in laid
    assert laid.index(("9H", run_index)) < laid.index(("TH", run_index))


def test_r8_layoffs_extend_runs_at_either_end_and_sets_with_the_fourth_card():
    result = settle_knock("6H 7H 8H 2S 2D 2C KS KD KC 3C", "5H 9H 2H 4S 5D 7C 8C QS JD AD")
    laid = sorted(str(layoff.card) for layoff in result.layoffs)
    assert laid == ["2H", "5H", "9H"]
    assert result.defender_deadwood == 4 + 5 + 7 + 8 + 10 + 10 + 1


def test_r8_own_melds_and_layoffs_are_chosen_together():
    # Laying 8H-9H-TH-JH off onto 5-6-7H would strand 8S 8D (16); keeping the set of eights
    # and the run 9-T-J of hearts leaves nothing.
    result = settle_knock("5H 6H 7H 2S 2D 2C KS KD KC 3C", "8H 9H TH JH 8S 8D 4S AD 6C 9S")
    assert result.defender_deadwood == 4 + 1 + 6 + 9
    assert result.layoffs == ()
    assert melds_text(result.defender_melds) == ["8S 8H 8D", "9H TH JH"]


def test_r8_knocker_never_lays_off():
    # The knocker's deadwood 9C would extend the defender's 6-7-8 of clubs: it still counts.
    result = settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 9C", "6C 7C 8C KS KH QC 2H 2D JS TH")
    assert result.knocker_deadwood == 9
    assert [str(card) for card in result.knocker_deadwood_cards] == ["9C"]


def test_settle_knock_validates_its_input():
    with pytest.raises(DuplicateCardError):
        settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 9C", "9C 7C 8C KS KH QC 2H 2D JS TH")
    with pytest.raises(InvalidHandError):
        settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD", "6C 7C 8C KS KH QC 2H 2D JS TH")
    with pytest.raises(InvalidHandError):
        settle_knock("AS 2S 3S 4H 4D 4C 9D TD JD 9C", "6C 7C 8C KS KH QC 2H 2D JS")


def test_knock_result_round_trips_through_json():
    result = settle_knock(SEED_KNOCKER, "7C 8C 9C 6S KH QD JH TD 5H 5D")
    data = json.loads(json.dumps(result.to_dict()))
    assert KnockResult.from_dict(data) == result


def _check_partition(result, knocker, defender):
    shown = [card for meld in result.knocker_melds for card in meld.cards]
    assert sorted(shown + list(result.knocker_deadwood_cards), key=str) == sorted(knocker, key=str)
    own = [card for meld in result.defender_melds for card in meld.cards]
    laid = [layoff.card for layoff in result.layoffs]
    parts = own + laid + list(result.defender_deadwood_cards)
    assert sorted(parts, key=str) == sorted(defender, key=str)
    assert result.knocker_deadwood == sum(map(card_value, result.knocker_deadwood_cards))
    assert result.defender_deadwood == sum(map(card_value, result.defender_deadwood_cards))
    for meld in (*result.knocker_melds, *result.defender_melds):
        assert brute_force.is_meld(meld.cards)


def _check_layoffs_legal(result):
    """Each lay-off, in order, extends a knocker meld into a valid meld (R8)."""
    melds = [frozenset(meld.cards) for meld in result.knocker_melds]
    for layoff in result.layoffs:
        assert brute_force.fits(melds[layoff.meld_index], layoff.card)
        melds[layoff.meld_index] |= {layoff.card}


def _knocker_score(kind_winner_points):
    _, winner, points = kind_winner_points
    return points if winner == "knocker" else -points if winner == "defender" else 0


@settings(max_examples=120, deadline=None)
@given(two_hands())
def test_property_showdown_is_legal_and_optimal_for_both_sides(hands):
    knocker, defender = hands
    assume(deadwood(knocker) <= 10)
    rules = RuleSet()
    result = settle_knock(knocker, defender, rules)
    _check_partition(result, knocker, defender)
    _check_layoffs_legal(result)
    if result.kind == "gin":
        assert result.layoffs == ()
        assert result.defender_deadwood == brute_force.min_deadwood(defender)
        return
    # R8: the defender's deadwood is the brute-force best reply to the melds shown ...
    shown = [meld.cards for meld in result.knocker_melds]
    assert result.defender_deadwood == brute_force.defender_reply(shown, defender)
    # ... and no other split within the limit scores better for the knocker.
    best = max(
        _knocker_score(score_knock(k, brute_force.defender_reply(melds, defender), rules))
        for melds, k in brute_force.knocker_splits(knocker, rules.knock_limit)
    )
    assert _knocker_score((result.kind, result.winner, result.points)) == best
