"""The hand state machine: deal (R3), upcard offer (R4), turns (R5), going out (R6),
exhausted stock (R7), errors, replay and JSON round-trip."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    EngineError,
    HandState,
    IllegalActionError,
    KnockOverLimitError,
    NotYourTurnError,
    RuleSet,
    apply,
    deal,
    legal_actions,
    parse_card,
    parse_cards,
    random_action,
    replay,
    shuffled_deck,
    state_from_json,
    state_to_json,
)
from games.engine.hand import all_cards
from tests.games.engine.helpers import state_with

SEED = "b1f3" * 16


def act(state, kind, seat=None, card=None):
    seat = state.to_act if seat is None else seat
    return apply(state, Action(kind, seat, None if card is None else parse_card(card)))


# --- R3 the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_r3_deal_one_at_a_time_starting_with_the_non_dealer(dealer):
    deck = shuffled_deck(SEED)
    state = deal(seed=SEED, dealer=dealer, rules=RuleSet())
    non_dealer = 1 - dealer
    assert set(state.hands[non_dealer]) == set(deck[0:20:2])
    assert set(state.hands[dealer]) == set(deck[1:20:2])
    assert state.discard_pile == (deck[20],)  # the upcard
    assert state.stock == deck[21:]  # stock[0] is drawn first
    assert len(state.stock) == 31
    assert (state.phase, state.to_act, state.seq) == ("upcard_offer", non_dealer, 0)
    assert state.outcome is None


def test_r12_two_players_only_seats_are_0_and_1():
    with pytest.raises(EngineError):
        deal(seed=SEED, dealer=2, rules=RuleSet())


# --- R4 the upcard offer -----------------------------------------------------------------


def test_r4_1_non_dealer_may_take_the_upcard_then_discards():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    upcard = state.upcard
    state, events = act(state, "take_upcard")
    assert upcard in state.hands[1] and len(state.hands[1]) == 11
    assert (state.phase, state.to_act, state.discard_pile) == ("discard", 1, ())
    assert [event.kind for event in events] == ["take_upcard"]
    # R4.4 / R5: the upcard may not go straight back.
    assert Action("discard", 1, upcard) not in legal_actions(state, 1)
    other = next(card for card in state.hands[1] if card != upcard)
    state, _ = apply(state, Action("discard", 1, other))
    assert (state.phase, state.to_act) == ("draw", 0)  # R4.4: play goes on with the other


def test_r4_2_after_the_non_dealer_passes_the_dealer_may_take_it():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    state, _ = act(state, "pass")
    assert (state.phase, state.to_act) == ("upcard_offer", 0)
    assert {a.kind for a in legal_actions(state, 0)} == {"take_upcard", "pass"}
    state, _ = act(state, "take_upcard")
    assert (state.phase, state.to_act, len(state.hands[0])) == ("discard", 0, 11)


def test_r4_3_when_both_pass_nobody_takes_it_and_the_non_dealer_draws_from_stock():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    state, _ = act(state, "pass")
    state, _ = act(state, "pass")
    assert (state.phase, state.to_act) == ("draw", 1)
    assert legal_actions(state, 1) == (Action("draw_stock", 1),)
    with pytest.raises(IllegalActionError, match=r"R4\.3"):
        act(state, "draw_discard")
    state, _ = act(state, "draw_stock")
    state, _ = act(state, "discard", card=str(state.hands[1][0]))
    # Play goes on normally: the dealer may take the discard now.
    assert Action("draw_discard", 0) in legal_actions(state, 0)


def test_r4_drawing_from_the_stock_is_illegal_while_the_offer_is_open():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    with pytest.raises(IllegalActionError) as caught:
        act(state, "draw_stock")
    assert set(caught.value.legal) == {Action("take_upcard", 1), Action("pass", 1)}


# --- R5 a turn ---------------------------------------------------------------------------


def test_r5_card_taken_from_the_discard_pile_may_not_be_put_down_this_turn():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD KC", "4C 5C 6C 8S 9S TS 2H 3H 4H QD", discard="KS"
    )
    state, events = act(state, "draw_discard")
    assert events[0].card == parse_card("KS")
    for kind in ("discard", "knock"):
        with pytest.raises(IllegalActionError, match="R5"):
            act(state, kind, card="KS")
    state, _ = act(state, "discard", card="KC")
    assert state.discard_pile[-1] == parse_card("KC")


def test_r5_card_drawn_from_the_stock_may_be_discarded():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD KC", "4C 5C 6C 8S 9S TS 2H 3H 4H QD", discard="KS"
    )
    drawn = state.stock[0]
    state, _ = act(state, "draw_stock")
    state, _ = act(state, "discard", card=str(drawn))
    assert state.discard_pile[-1] == drawn
    assert (state.phase, state.to_act) == ("draw", 1)


def test_r5_draw_then_discard_moves_one_card_each_way():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    state, _ = act(state, "pass")
    state, _ = act(state, "pass")
    state, _ = act(state, "draw_stock")
    assert len(state.hands[1]) == 11 and len(state.stock) == 30
    assert {a.kind for a in legal_actions(state, 1)} >= {"discard"}
    assert len([a for a in legal_actions(state, 1) if a.kind == "discard"]) == 11


# --- R6 going out ------------------------------------------------------------------------

KNOCKABLE = "AS 2S 3S 5H 6H 7H 9D TD JD 4C"  # deadwood 4 once it has 11 cards and puts 1 down
DEFENDER = "4S 5S 8H KC QC 2D 3D 7C 8C 9S"


def test_r6_knock_within_the_limit_ends_the_hand_and_scores():
    state = state_with(KNOCKABLE, DEFENDER, discard="KS")
    state, _ = act(state, "draw_stock")
    knocks = [a for a in legal_actions(state, 0) if a.kind == "knock"]
    assert knocks
    card = knocks[0].card
    state, events = apply(state, knocks[0])
    assert state.phase == "ended" and state.to_act is None
    assert state.knock_card == card and len(state.hands[0]) == 10
    assert state.outcome.knocker == 0
    assert [event.kind for event in events] == ["knock", "hand_ended"]
    assert len(all_cards(state)) == 52


def test_r6_knock_over_the_limit_is_refused_and_nothing_changes():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD 2C 4C", DEFENDER, discard="KS", stock="KH QH JH TH 9H"
    )
    state, _ = act(state, "draw_stock")  # KH: best knock would leave 9D TD 2C 4C = 25
    before = state
    with pytest.raises(KnockOverLimitError) as caught:
        act(state, "knock", card="KH")
    assert caught.value.deadwood == 25 and caught.value.limit == 10
    assert "25" in str(caught.value)
    assert state == before
    assert not [a for a in legal_actions(state, 0) if a.kind == "knock"]
    state, _ = act(state, "discard", card="KH")  # the player still has to discard
    assert state.phase == "draw"


def test_r6_gin_is_a_knock_with_zero_deadwood():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD KC",
        "QH KH 5S 8H 2D 3D 7C 8C 9S TC",
        discard="QS",
        stock="4S JH 6S 7S 8S",
    )
    state, _ = act(state, "draw_stock")  # 4S makes A-2-3-4S
    state, _ = act(state, "knock", card="KC")
    assert (state.outcome.kind, state.outcome.winner) == ("gin", 0)
    # 5S, 8H and 8D-less diamonds could extend the runs, but nobody lays off onto Gin (R8).
    assert state.outcome.result.layoffs == ()
    assert state.outcome.points == state.outcome.result.defender_deadwood + 25
    assert len(all_cards(state)) == 52


def test_r6_big_gin_declared_without_discarding():
    state = state_with("AS 2S 3S 5H 6H 7H 9D TD JD QD", DEFENDER, discard="KS", stock="KD 6S 7S 8S")
    state, _ = act(state, "draw_stock")  # KD: 9-T-J-Q-K of diamonds
    assert Action("big_gin", 0) in legal_actions(state, 0)
    state, events = act(state, "big_gin")
    assert (state.outcome.kind, state.outcome.winner, state.outcome.knocker) == ("big_gin", 0, 0)
    assert state.outcome.points == state.outcome.result.defender_deadwood + 31
    assert len(state.hands[0]) == 11 and state.knock_card is None
    assert [event.kind for event in events] == ["big_gin", "hand_ended"]


def test_r6_big_gin_is_illegal_without_eleven_melded_cards():
    state = state_with(KNOCKABLE, DEFENDER, discard="KS", stock="KD 6S 7S 8S")
    state, _ = act(state, "draw_stock")
    with pytest.raises(IllegalActionError):
        act(state, "big_gin")


def test_r6_r9_undercut_outcome_goes_to_the_defender_seat():
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD JD 4C",
        "QS QH QC 5C 6C 7C KS KH KD 2D",
        discard="TH",
        stock="9S 6S 7S 8H",
    )
    state, _ = act(state, "draw_stock")  # 9S: no help; knock putting 9S down leaves 4C
    state, _ = act(state, "knock", card="9S")
    result = state.outcome.result
    assert (result.knocker_deadwood, result.defender_deadwood) == (4, 2)
    assert (state.outcome.kind, state.outcome.points) == ("undercut", 4 - 2 + 25)
    assert state.outcome.winner == 1 and state.outcome.knocker == 0


# --- R7 an exhausted stock ---------------------------------------------------------------


def test_r7_void_when_the_stock_is_down_to_two_after_a_discard():
    state = state_with("AS 2S 3S 5H 6H 7H 9D TD 2C 4C", DEFENDER, discard="KS", stock="KH QH JH")
    state, _ = act(state, "draw_stock")  # the third-last card
    assert len(state.stock) == 2
    state, events = act(state, "discard", card="KH")
    assert state.phase == "ended"
    assert (state.outcome.kind, state.outcome.winner, state.outcome.points) == ("void", None, 0)
    assert [event.kind for event in events] == ["discard", "hand_ended"]


def test_r7_knocking_on_the_third_last_card_is_still_allowed():
    state = state_with(KNOCKABLE, DEFENDER, discard="KS", stock="KH QH JH")
    state, _ = act(state, "draw_stock")
    state, _ = act(state, "knock", card="KH")
    assert state.outcome.kind in {"knock", "undercut"}


def test_r7_reshuffle_option_shuffles_the_pile_under_the_last_two_cards():
    rules = RuleSet(stock_exhaustion="reshuffle")
    state = state_with(
        "AS 2S 3S 5H 6H 7H 9D TD 2C 4C", DEFENDER, discard="KS", stock="KH QH JH", rules=rules
    )
    pile_before = state.discard_pile
    state, _ = act(state, "draw_stock")
    state, events = act(state, "discard", card="KH")
    assert state.phase == "draw" and state.to_act == 1
    assert state.discard_pile == (parse_card("KH"),)
    assert state.stock[:2] == parse_cards("QH JH")
    assert sorted(state.stock[2:], key=str) == sorted(pile_before, key=str)
    assert state.reshuffles == 1
    assert [event.kind for event in events] == ["discard", "stock_reshuffled"]
    assert events[1].stock_count == len(state.stock)
    assert len(all_cards(state)) == 52
    # Deterministic from the seed.
    again, _ = act(
        act(
            state_with(
                "AS 2S 3S 5H 6H 7H 9D TD 2C 4C",
                DEFENDER,
                discard="KS",
                stock="KH QH JH",
                rules=rules,
            ),
            "draw_stock",
        )[0],
        "discard",
        card="KH",
    )
    assert again == state


# --- errors ------------------------------------------------------------------------------


def test_acting_out_of_turn_raises_not_your_turn():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    with pytest.raises(NotYourTurnError):
        apply(state, Action("pass", 0))
    assert legal_actions(state, 0) == ()


def test_illegal_action_carries_the_legal_actions():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    with pytest.raises(IllegalActionError) as caught:
        apply(state, Action("discard", 1, state.hands[1][0]))
    assert caught.value.legal == legal_actions(state, 1)
    with pytest.raises(IllegalActionError, match="unknown action"):
        apply(state, Action("fold", 1))
    with pytest.raises(IllegalActionError):
        apply(state, Action("pass", 1, state.upcard))  # no card on a pass


def test_no_action_after_the_hand_ended():
    state = state_with(KNOCKABLE, DEFENDER, discard="KS", stock="KH QH JH")
    state, _ = act(state, "draw_stock")
    state, _ = act(state, "knock", card="KH")
    with pytest.raises(IllegalActionError):
        apply(state, Action("draw_stock", 1))


def test_action_dict_round_trip_uses_card_text():
    action = Action("discard", 1, parse_card("7H"))
    assert action.to_dict() == {"kind": "discard", "seat": 1, "card": "7H"}
    assert Action.from_dict(action.to_dict()) == action
    assert Action.from_dict({"kind": "pass"}, seat=0) == Action("pass", 0)


# --- properties over whole hands ---------------------------------------------------------


def play_random(seed: str, dealer: int, rules: RuleSet, rng: random.Random, limit: int = 400):
    state = deal(seed=seed, dealer=dealer, rules=rules)
    actions = []
    while state.phase != "ended" and len(actions) < limit:
        action = random_action(state, state.to_act, rng)
        state, _ = apply(state, action)
        actions.append(action)
        assert len(all_cards(state)) == 52
        assert len(set(all_cards(state))) == 52
    return state, actions


RULES = st.builds(
    RuleSet,
    knock_limit=st.integers(0, 10),
    tie_rule=st.sampled_from(["undercut", "no_score"]),
    stock_exhaustion=st.sampled_from(["void", "reshuffle"]),
)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.text(min_size=1, max_size=20),
    dealer=st.sampled_from([0, 1]),
    rules=RULES,
    choices=st.randoms(use_true_random=False),
)
def test_property_cards_conserved_replay_deterministic_json_round_trip(
    seed, dealer, rules, choices
):
    state, actions = play_random(seed, dealer, rules, choices)
    assert state.seq == len(actions)
    assert replay(seed=seed, dealer=dealer, rules=rules, actions=actions) == state
    dicts = [action.to_dict() for action in actions]
    assert replay(seed=seed, dealer=dealer, rules=rules, actions=dicts) == state
    stored = json.loads(json.dumps(state_to_json(state)))
    assert state_from_json(stored) == state


@settings(max_examples=30, deadline=None)
@given(seed=st.text(min_size=1, max_size=10), choices=st.randoms(use_true_random=False))
def test_property_every_intermediate_state_round_trips_through_json(seed, choices):
    state = deal(seed=seed, dealer=0, rules=RuleSet(stock_exhaustion="reshuffle"))
    for _ in range(60):
        assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
        if state.phase == "ended":
            break
        state, _ = apply(state, random_action(state, state.to_act, choices))


def test_state_from_json_refuses_a_tampered_state():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    data = state_to_json(state)
    data["stock"] = data["stock"][1:]
    with pytest.raises(EngineError, match="52"):
        state_from_json(data)
    data = state_to_json(state)
    data["stock"][0] = data["hands"][0][0]
    with pytest.raises(ValueError):
        state_from_json(data)
    with pytest.raises(EngineError):
        state_from_json({**state_to_json(state), "format": 99})


def test_hand_state_is_immutable():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    assert isinstance(state, HandState)
    with pytest.raises(AttributeError):
        state.phase = "ended"  # type: ignore[misc]
    assert isinstance(state.hands, tuple) and isinstance(state.stock, tuple)
