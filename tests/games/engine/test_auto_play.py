"""R13's auto-played move: pass, draw from the stock, discard by the lowest deadwood, never go
out. Checked against an independent reading of the rule (brute-force deadwood)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    IllegalActionError,
    RuleSet,
    apply,
    auto_action,
    auto_turn,
    choose_action,
    deal,
    parse_card,
)
from tests.games.engine import brute_force
from tests.games.engine.helpers import state_with

SUIT_ORDER = "SHDC"  # R1


def expected_discard(hand, taken):
    """R13 read literally: every card but the one just taken from the pile, the lowest
    deadwood left, then the higher rank, then the earlier suit."""
    candidates = [card for card in hand if taken is None or card != taken]
    return min(
        candidates,
        key=lambda card: (
            brute_force.min_deadwood([c for c in hand if c != card]),
            -card.rank,
            SUIT_ORDER.index(card.suit),
        ),
    )


def test_upcard_offer_is_passed():
    state = deal(seed="r13-offer", dealer=1, rules=RuleSet())
    assert state.phase == "upcard_offer"
    action = auto_action(state, state.to_act)
    assert action.kind == "pass"
    played = auto_turn(state, state.to_act)
    assert [a.kind for a, _, _ in played] == ["pass"]


def test_draw_is_from_the_stock_then_the_discard_by_the_rule():
    # The top of the pile (5S) would complete a run: R13 still draws from the stock.
    state = state_with(
        "3S 4S 6S 7H 8H 9H 2D 2C KD QC",
        "AH 2H 3H 4H 5H 6H 7H AC AD JC",
        discard="5S",
        stock="KS QS JS TD 9D",
        phase="draw",
        to_act=0,
    )
    played = auto_turn(state, 0)
    kinds = [(action.kind, action.card) for action, _, _ in played]
    assert kinds[0] == ("draw_stock", None)
    after_draw = played[0][1]
    assert parse_card("KS") in after_draw.hands[0]
    discard = kinds[1]
    assert discard == ("discard", expected_discard(after_draw.hands[0], None))
    assert played[-1][1].to_act == 1  # the turn passed


def test_ties_go_to_the_higher_rank_then_the_earlier_suit():
    # KD, KC, QC ... all unmatched 10-pointers: discarding any leaves the same deadwood
    # except by value; the kings tie on deadwood and rank, so spades/hearts before diamonds.
    state = state_with(
        "AS 2S 3S 4H 5H 6H 7C 8C 9C KD KH",
        "AD 2D 3D 4D 5D 6D 7D 8D 9D TD",
        discard="QS",
        stock="JS JH",
        phase="discard",
        to_act=0,
    )
    action = auto_action(state, 0)
    assert (action.kind, str(action.card)) == ("discard", "KH")


def test_never_the_card_just_taken_and_never_going_out():
    # Taking 4S gave a Gin hand (every card melds): R13 does not knock, it discards, and
    # never the 4S it took.
    state = state_with(
        "AS 2S 3S 4S 5H 6H 7H 8C 9C TC JC",
        "AD 2D 3D 4D 5D 6D 7D 8D 9D TD",
        discard="",
        stock="KS QS JS",
        phase="discard",
        to_act=0,
        taken_from_discard=parse_card("4S"),
    )
    action = auto_action(state, 0)
    assert action.kind == "discard"
    assert str(action.card) != "4S"
    assert action.card == expected_discard(state.hands[0], parse_card("4S"))


def test_not_the_seats_turn_is_refused():
    state = deal(seed="r13-turn", dealer=1, rules=RuleSet())
    with pytest.raises(IllegalActionError):
        auto_action(state, 1 - state.to_act)


@settings(max_examples=60, deadline=None)
@given(seed=st.text(min_size=1, max_size=12), seats=st.sampled_from([2, 3, 4]))
def test_whole_hands_of_auto_play_follow_the_rule(seed, seats):
    """Hands where one seat is always auto-played and the others play the bot: every
    auto-played action is R13's, the hand always ends, nobody auto-played ever goes out."""
    rules = RuleSet(seats=seats, stock_exhaustion="reshuffle" if seats > 2 else "void")
    state = deal(seed=seed, dealer=random.Random(seed).randrange(seats), rules=rules)
    absent = (state.to_act + 1) % seats
    for _ in range(2_000):
        if state.is_over:
            break
        seat = state.to_act
        if seat != absent:
            state, _ = apply(state, choose_action(state, seat))
            continue
        for action, after, _events in auto_turn(state, seat):
            if action.kind == "discard":
                assert action.card == expected_discard(state.hands[seat], state.taken_from_discard)
            else:
                assert action.kind in ("pass", "draw_stock")
            state = after
    assert state.is_over
    outcome = state.outcome
    assert outcome.knocker != absent or outcome.kind == "void"
