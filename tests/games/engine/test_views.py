"""Hidden information (R11, docs/games.md "The player's view"): player, watcher and event views."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    FULL_DECK,
    Action,
    EngineError,
    RuleSet,
    apply,
    choose_action,
    deadwood,
    deal,
    event_view,
    legal_actions,
    parse_card,
    player_view,
    random_action,
    watcher_view,
)
from tests.games.engine import brute_force
from tests.games.engine.helpers import assert_knock_deadwood, assert_own_arrangement, state_with
from tests.games.engine.strategies import hands

SEED = "5eed" * 16


def texts(cards):
    return {str(card) for card in cards}


def hidden_in_hand(state, seat) -> set[str]:
    """A seat's cards that others may not see: all but one just taken from the pile (R5),
    which everyone saw being taken."""
    public = {str(state.taken_from_discard)} if state.taken_from_discard else set()
    return texts(state.hands[seat]) - public


def leaked_cards(view: dict, secret: set[str]) -> set[str]:
    """Every secret card text appearing anywhere in the JSON of ``view``."""
    blob = json.dumps(view)
    return {card for card in secret if f'"{card}"' in blob}


def test_player_view_shows_own_cards_sorted_by_suit_and_public_information():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    view = player_view(state, 1)
    assert view["hand"] == [str(card) for card in state.hands[1]]
    suits = "SHDC"
    keys = [(suits.index(text[-1]), "A23456789TJQK".index(text[0])) for text in view["hand"]]
    assert keys == sorted(keys)
    assert view["discard_pile"] == [str(state.upcard)]
    assert view["stock_count"] == 31
    assert view["opponent_card_count"] == 10
    assert (view["phase"], view["to_act"], view["seat"]) == ("upcard_offer", 1, 1)
    assert view["legal_actions"] == [
        {"kind": "take_upcard", "card": None},
        {"kind": "pass", "card": None},
    ]
    assert player_view(state, 0)["legal_actions"] == []
    assert view["outcome"] is None


def test_r11_views_never_show_the_stock_the_opponent_or_the_seed_before_the_end():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    for seat in (0, 1):
        view = player_view(state, seat)
        secret = texts(state.hands[1 - seat]) | texts(state.stock)
        assert leaked_cards(view, secret) == set()
        assert SEED not in json.dumps(view)
        assert "stock" not in view and "hands" not in view
    watcher = watcher_view(state)
    assert leaked_cards(watcher, texts(state.hands[0] + state.hands[1] + state.stock)) == set()
    assert SEED not in json.dumps(watcher)


@settings(max_examples=25, deadline=None)
@given(choices=st.randoms(use_true_random=False), seed=st.text(min_size=8, max_size=12))
def test_property_no_view_leaks_hidden_cards_during_play(choices, seed):
    state = deal(seed=seed, dealer=1, rules=RuleSet())
    while state.phase != "ended":
        for seat in (0, 1):
            view = player_view(state, seat)
            secret = hidden_in_hand(state, 1 - seat) | texts(state.stock)
            assert leaked_cards(view, secret) == set()
            assert [{"kind": a["kind"], "card": a["card"]} for a in view["legal_actions"]] == [
                {"kind": a.kind, "card": None if a.card is None else str(a.card)}
                for a in legal_actions(state, seat)
            ]
            assert_own_arrangement(view, deadwood)
            assert_knock_deadwood(view, brute_force.min_deadwood)
        watcher = watcher_view(state)
        hidden = hidden_in_hand(state, 0) | hidden_in_hand(state, 1) | texts(state.stock)
        assert leaked_cards(watcher, hidden) == set()
        assert '"seed"' not in json.dumps(watcher)
        state, events = apply(state, random_action(state, state.to_act, choices))
        for event in events:
            if event.kind == "draw_stock":
                assert event_view(event, event.seat)["card"] == str(event.card)
                assert event_view(event, 1 - event.seat)["card"] is None
                assert event_view(event, None)["card"] is None


def test_stock_draw_is_shown_only_to_the_drawer_and_discards_to_everyone():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    state, _ = apply(state, Action("pass", 1))
    state, _ = apply(state, Action("pass", 0))
    drawn = state.stock[0]
    state, (draw,) = apply(state, legal_actions(state, 1)[0])
    assert draw.kind == "draw_stock"
    assert event_view(draw, 1) == {"kind": "draw_stock", "seat": 1, "seq": 3, "card": str(drawn)}
    assert event_view(draw, 0)["card"] is None
    assert event_view(draw, None)["card"] is None
    discard = next(a for a in legal_actions(state, 1) if a.kind == "discard")
    state, (discarded,) = apply(state, discard)
    assert event_view(discarded, 0)["card"] == str(discard.card)
    assert event_view(discarded, None)["card"] == str(discard.card)


def test_end_of_hand_shows_both_arrangements_and_the_seed():
    rng = random.Random(3)
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    events = ()
    while state.phase != "ended":
        state, events = apply(state, choose_action(state, state.to_act, rng))
    ended = events[-1]
    assert ended.kind == "hand_ended"
    for viewer in (0, 1, None):
        view = event_view(ended, viewer)
        assert view["seed"] == SEED
        assert view["hands"] == [[str(c) for c in hand] for hand in state.hands]
        assert view["outcome"] == state.outcome.to_dict()
    for view in (player_view(state, 0), player_view(state, 1), watcher_view(state)):
        assert view["outcome"] == state.outcome.to_dict()
        assert view["seed"] == SEED
        json.dumps(view)
    if state.outcome.result is not None:
        shown = state.outcome.to_dict()["result"]
        assert shown["knocker_melds"] is not None and shown["defender_melds"] is not None


def test_r12_views_exist_for_seats_0_and_1_only():
    state = deal(seed=SEED, dealer=0, rules=RuleSet())
    with pytest.raises(EngineError):
        player_view(state, 2)


# R2's example: a run and a set, deadwood K + Q + 2 + 3 = 25.
R2_EXAMPLE = "7S 8S 9S 4H 4D 4C KD QC 2S 3H"
OPPONENT = "AH 2H 9D TD TC JC QS KS TH JH"


def test_r2_the_player_view_arranges_the_players_own_cards():
    view = player_view(state_with(R2_EXAMPLE, OPPONENT), 0)
    assert view["melds"] == [
        {"kind": "set", "cards": ["4H", "4D", "4C"]},
        {"kind": "run", "cards": ["7S", "8S", "9S"]},
    ]
    assert view["deadwood_cards"] == ["2S", "3H", "KD", "QC"]
    assert (view["deadwood"], view["best_discard"]) == (25, None)
    assert leaked_cards(view, set(OPPONENT.split())) == set()
    assert "melds" not in watcher_view(state_with(R2_EXAMPLE, OPPONENT))


def test_r2_with_eleven_cards_the_arrangement_is_the_one_after_the_best_discard():
    # R2's pinned hand: the best 11-card split minus its highest card would say 12; the best
    # discard (6S) leaves 3C-4C-5C-6C, 4D-5D-6D and 2D 3H 5H: 10.
    state = state_with("6S 3C 4C 5C 6C 2D 4D 5D 6D 3H 5H", OPPONENT, phase="discard")
    view = player_view(state, 0)
    assert view["best_discard"] == "6S"
    assert view["melds"] == [
        {"kind": "run", "cards": ["3C", "4C", "5C", "6C"]},
        {"kind": "run", "cards": ["4D", "5D", "6D"]},
    ]
    assert view["deadwood_cards"] == ["3H", "5H", "2D"]
    assert view["deadwood"] == 10
    knocks = {a["card"]: a["deadwood"] for a in view["legal_actions"] if a["kind"] == "knock"}
    assert knocks == {"6S": 10}  # R6: within the default limit of 10 with 6S down only


def test_r5_the_best_discard_is_never_the_card_just_taken_from_the_pile():
    # 6S would be the best discard (see above), but it was just taken from the pile: it stays,
    # and the arrangement is the best one the player may still reach.
    cards = "6S 3C 4C 5C 6C 2D 4D 5D 6D 3H 5H"
    state = state_with(
        cards,
        OPPONENT,
        phase="discard",
        taken_from_discard=parse_card("6S"),
    )
    view = player_view(state, 0)
    assert view["best_discard"] != "6S"
    assert view["best_discard"] in {
        a["card"] for a in view["legal_actions"] if a["kind"] == "discard"
    }
    assert "6S" in view["deadwood_cards"] + [
        card for meld in view["melds"] for card in meld["cards"]
    ]
    assert view["deadwood"] == brute_force.min_deadwood(
        [parse_card(card) for card in cards.split() if card != view["best_discard"]]
    )
    assert view["deadwood"] > 10


def test_r6_each_knock_action_says_the_deadwood_it_would_show():
    state = state_with("AS 2S 3S 7H 8H 9H 4D 4C 4S 2C 3D", OPPONENT, phase="discard")
    view = player_view(state, 0)
    knocks = {a["card"]: a["deadwood"] for a in view["legal_actions"] if a["kind"] == "knock"}
    # Nine cards meld (A-2-3 of spades, the 4s, 7-8-9 of hearts): 2C or 3D is left over.
    assert knocks["2C"] == 3 and knocks["3D"] == 2
    assert view["best_discard"] == "3D" and view["deadwood"] == 2
    assert_knock_deadwood(view, brute_force.min_deadwood)
    assert all("deadwood" not in a for a in view["legal_actions"] if a["kind"] != "knock")


def brute_deadwood(cards) -> int:
    """R2 by brute force: 10 cards as they are, 11 after the best discard."""
    if len(cards) == 11:
        return brute_force.min_deadwood_11(cards)
    return brute_force.min_deadwood(cards)


@settings(max_examples=100, deadline=None)
@given(cards=st.one_of(hands(10), hands(11)))
def test_property_the_players_arrangement_is_an_exact_r2_split_of_their_own_cards(cards):
    rest = [str(card) for card in FULL_DECK if card not in cards]
    phase = "discard" if len(cards) == 11 else "draw"
    state = state_with(" ".join(map(str, cards)), " ".join(rest[:10]), phase=phase)
    view = player_view(state, 0)
    assert_own_arrangement(view, brute_deadwood)
    assert_knock_deadwood(view, brute_force.min_deadwood)
    assert leaked_cards(view, set(rest)) == set()  # only the player's own cards
