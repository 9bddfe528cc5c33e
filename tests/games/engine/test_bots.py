"""The built-in bot and the random player; complete hands end properly (R3-R9)."""

import random
from collections import Counter
from itertools import cycle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    RuleSet,
    apply,
    choose_action,
    choose_action_from_view,
    deadwood,
    deal,
    legal_actions,
    parse_card,
    player_view,
    random_action,
)
from games.engine.hand import all_cards
from tests.games.engine.helpers import state_with

KNOCKABLE = "AS 2S 3S 7H 8H 9H 4D 4C 4S 2C 3D"  # 9 cards meld; knocking with 3D leaves 2
ENDINGS = {"knock", "gin", "big_gin", "undercut", "void"}
RULE_OPTIONS = (
    RuleSet(),
    RuleSet(stock_exhaustion="reshuffle"),
    RuleSet(knock_limit=0, gin_bonus=20, big_gin_bonus=50),
    RuleSet(knock_limit=5, tie_rule="no_score", undercut_bonus=10),
)


def play(seed, dealer, rules, players, max_actions=2_000):
    state = deal(seed=seed, dealer=dealer, rules=rules)
    while state.phase != "ended" and state.seq < max_actions:
        state, _ = apply(state, players[state.to_act](state, state.to_act))
    return state


def bot(state, seat):
    return choose_action(state, seat)


def view_bot(state, seat):
    chosen = choose_action_from_view(player_view(state, seat))
    return Action.from_dict(chosen, seat=seat)


def check_finished(state):
    assert state.phase == "ended", f"hand {state.seed!r} did not end"
    outcome = state.outcome
    assert outcome.kind in ENDINGS
    assert len(all_cards(state)) == len(set(all_cards(state))) == 52
    if outcome.kind == "void":
        assert (outcome.winner, outcome.points, outcome.knocker) == (None, 0, None)
    else:
        assert outcome.knocker in (0, 1) and outcome.points >= 0
        assert outcome.result.kind == outcome.kind


# --- decisions ---------------------------------------------------------------------------


def test_bot_takes_the_upcard_only_when_it_lowers_its_deadwood():
    hand = "AS 2S 5H 6H 7H 9D TD JD KC QC"
    taking = state_with(hand, "4C 5C 6C 8S 9S TS 2H 3H 4H QD", discard="3S", phase="upcard_offer")
    assert choose_action(taking, 0).kind == "take_upcard"
    passing = state_with(hand, "4C 5C 6C 8S 9S TS 2H 3H 4H QD", discard="KH", phase="upcard_offer")
    assert choose_action(passing, 0).kind == "pass"


def test_bot_draws_a_useful_discard_else_from_the_stock():
    hand = "AS 2S 5H 6H 7H 9D TD JD KC QC"
    other = "4C 5C 6C 8S 9S TS 2H 3H 4H QD"
    assert choose_action(state_with(hand, other, discard="3S"), 0).kind == "draw_discard"
    assert choose_action(state_with(hand, other, discard="KH"), 0).kind == "draw_stock"


def test_bot_discards_to_minimise_deadwood_then_the_highest_card():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD 2C 4C KC", "4D 5C 6C 8S 9S TS 2H 3H 4H QD", phase="discard"
    )
    action = choose_action(state, 0)
    assert action == Action("discard", 0, parse_card("KC"))


def test_bot_knocks_when_allowed_and_prefers_gin():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD 4C KC", "4D 5C 6C 8S 9S TS 2H 3H 4H QD", phase="discard"
    )
    assert choose_action(state, 0) == Action("knock", 0, parse_card("KC"))
    gin = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD QD KC", "4D 5C 6C 8S 9S TS 2H 3H 4H 4C", phase="discard"
    )
    assert choose_action(gin, 0) == Action("knock", 0, parse_card("KC"))


def test_bot_declares_big_gin():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD QD KD", "4D 5C 6C 8S 9S TS 2H 3H 4H 4C", phase="discard"
    )
    assert choose_action(state, 0) == Action("big_gin", 0)


def test_bot_respects_r5_after_taking_a_discard():
    state = state_with(
        "AS 2S 5H 6H 7H 9D TD JD KC QC", "4C 5C 6C 8S 9S TS 2H 3H 4H QD", discard="3S"
    )
    state, _ = apply(state, choose_action(state, 0))
    action = choose_action(state, 0)
    assert action.card != parse_card("3S")
    assert action in legal_actions(state, 0)


def test_view_bot_returns_one_of_the_views_legal_actions():
    state = deal(seed="view-bot", dealer=0, rules=RuleSet())
    view = player_view(state, 1)
    assert choose_action_from_view(view) in view["legal_actions"]
    knocking = player_view(
        state_with(KNOCKABLE, "AH 2H 9D TD TC JC QS KS TH JH", phase="discard"), 0
    )
    move = choose_action_from_view(knocking)  # as sent back: without the knock's deadwood
    assert move == {"kind": "knock", "card": "3D"}
    assert {**move, "deadwood": 2} in knocking["legal_actions"]
    with pytest.raises(ValueError):
        choose_action_from_view(player_view(state, 0))  # not seat 0's turn


@settings(max_examples=60, deadline=None)
@given(seed=st.text(min_size=1, max_size=12), moves=st.integers(0, 60), rng=st.randoms())
def test_property_bots_always_choose_a_legal_action_and_agree_with_the_view_bot(seed, moves, rng):
    state = deal(seed=seed, dealer=1, rules=RuleSet(stock_exhaustion="reshuffle"))
    for _ in range(moves):
        if state.phase == "ended":
            return
        state, _ = apply(state, random_action(state, state.to_act, rng))
    if state.phase == "ended":
        return
    seat = state.to_act
    action = choose_action(state, seat)
    assert action in legal_actions(state, seat)
    assert random_action(state, seat, rng) in legal_actions(state, seat)
    assert Action.from_dict(choose_action_from_view(player_view(state, seat)), seat=seat) == action


def test_view_bot_plays_complete_hands():
    for k in range(100):
        check_finished(play(f"view-{k}", k % 2, RuleSet(), {0: view_bot, 1: bot}))


def test_bot_beats_the_random_player():
    wins = Counter()
    rng = random.Random(5)
    for k in range(200):
        state = play(
            f"duel-{k}", k % 2, RuleSet(), {0: bot, 1: lambda s, p: random_action(s, p, rng)}
        )
        check_finished(state)
        wins[state.outcome.winner] += 1
    assert wins[0] > 150


# --- complete hands ----------------------------------------------------------------------

HANDS = 10_000


@pytest.mark.slow
def test_ten_thousand_bot_hands_end_in_knock_gin_big_gin_or_void():
    kinds = Counter()
    options = cycle(RULE_OPTIONS)
    for k in range(HANDS):
        state = play(f"bot-{k}", k % 2, next(options), {0: bot, 1: bot})
        check_finished(state)
        kinds[state.outcome.kind] += 1
    assert sum(kinds.values()) == HANDS
    assert kinds["knock"] and kinds["gin"] and kinds["undercut"]


@pytest.mark.slow
def test_ten_thousand_random_hands_end_in_knock_gin_big_gin_or_void():
    rng = random.Random(20240603)
    kinds = Counter()
    options = cycle(rules for rules in RULE_OPTIONS if rules.stock_exhaustion == "void")
    player = {0: lambda s, p: random_action(s, p, rng), 1: lambda s, p: random_action(s, p, rng)}
    for k in range(HANDS):
        state = play(f"random-{k}", k % 2, next(options), player)
        check_finished(state)
        kinds[state.outcome.kind] += 1
    assert sum(kinds.values()) == HANDS
    assert kinds["void"] and kinds["knock"]


def test_bot_knock_leaves_the_lowest_deadwood_the_eleven_cards_allow():
    # The bot's knock choice leaves the minimum deadwood the 11 cards allow (R2).
    cards = "AS 2S 3S 5H 6H 7H 9D TD JD 4C KC"
    state = state_with(cards, "4D 5C 6C 8S 9S TS 2H 3H 4H QD", phase="discard")
    action = choose_action(state, 0)
    left = [card for card in state.hands[0] if card != action.card]
    assert deadwood(left) == deadwood(cards)
