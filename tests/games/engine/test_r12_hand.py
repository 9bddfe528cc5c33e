"""R12 hand state machine: deal, upcard round, turns, reshuffles and void, forfeits, hidden
information in views, replay and JSON round trips, 8-card deadwood."""

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings

from games.engine import (
    FULL_DECK,
    Action,
    EngineError,
    HandState,
    IllegalActionError,
    KnockOverLimitError,
    NotYourTurnError,
    RuleSet,
    apply,
    choose_action,
    choose_action_from_view,
    deal,
    event_view,
    forfeit,
    legal_actions,
    parse_card,
    parse_cards,
    player_view,
    random_action,
    replay,
    seven_card_deadwood,
    shuffled_deck,
    sort_by_suit,
    state_from_json,
    state_to_json,
    watcher_view,
)
from games.engine.hand import all_cards
from tests.games.engine import brute_force
from tests.games.engine.strategies import hands as hand_strategy


def _three(**options) -> RuleSet:
    return RuleSet(seats=3, **options)


def _rules(seats: int, **options) -> RuleSet:
    return RuleSet(seats=seats, **options)


def _act(state, kind, card=None):
    return apply(state, Action(kind, state.to_act, None if card is None else parse_card(card)))


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_the_deal_is_seven_each_one_at_a_time_from_the_dealers_left(seats, dealer):
    state = deal(seed="r12-deal", dealer=dealer, rules=_rules(seats))
    deck = shuffled_deck("r12-deal")
    for k in range(7 * seats):
        assert deck[k] in state.hands[(dealer + 1 + k) % seats]
    assert all(len(hand) == 7 for hand in state.hands)
    assert state.discard_pile == (deck[7 * seats],)
    assert state.stock == deck[7 * seats + 1 :]
    assert state.phase == "upcard_offer" and state.to_act == (dealer + 1) % seats
    assert all(hand == sort_by_suit(hand) for hand in state.hands)


def test_rules_for_three_and_four_seats():
    rules = _three()
    assert rules.stock_exhaustion == "reshuffle" and rules.max_reshuffles == 2
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.to_dict()["seats"] == 3
    assert "seats" not in RuleSet().to_dict() and RuleSet().stock_exhaustion == "void"
    assert RuleSet(seats=4, stock_exhaustion="void").stock_exhaustion == "void"
    with pytest.raises(ValueError, match="tie_rule"):
        RuleSet(seats=3, tie_rule="no_score")
    with pytest.raises(ValueError, match="max_reshuffles"):
        RuleSet(max_reshuffles=3)
    with pytest.raises(ValueError, match="seats"):
        RuleSet(seats=5)


def test_two_seat_deal_is_unchanged_and_refuses_forfeited_seats():
    state = deal(seed="heads-up", dealer=0, rules=RuleSet())
    assert isinstance(state, HandState) and len(state.hands[0]) == 10
    with pytest.raises(EngineError):
        deal(seed="heads-up", dealer=0, rules=RuleSet(), out=(1,))
    with pytest.raises(EngineError):
        forfeit(state, 1)


def test_upcard_offer_goes_round_the_table_then_the_dealers_left_draws_from_the_stock():
    state = deal(seed="offer", dealer=1, rules=_rules(4))
    upcard = state.upcard
    seen = []
    for _ in range(4):
        seen.append(state.to_act)
        with pytest.raises(IllegalActionError):
            apply(state, Action("draw_stock", state.to_act))
        state, events = _act(state, "pass")
        assert events[0].kind == "pass"
    assert seen == [2, 3, 0, 1]
    assert state.phase == "draw" and state.to_act == 2 and state.stock_only
    assert [action.kind for action in legal_actions(state, 2)] == ["draw_stock"]
    with pytest.raises(IllegalActionError, match="everybody passed"):
        apply(state, Action("draw_discard", 2))
    state, _ = _act(state, "draw_stock")
    assert state.upcard == upcard and not state.stock_only


def test_taking_the_upcard_mid_round_then_the_next_player_draws_normally():
    state = deal(seed="offer-take", dealer=0, rules=_three())
    state, _ = _act(state, "pass")  # seat 1
    upcard = state.upcard
    state, events = _act(state, "take_upcard")  # seat 2
    assert events[0].card == upcard and state.phase == "discard" and state.to_act == 2
    actions = legal_actions(state, 2)
    assert all(action.card != upcard for action in actions if action.card is not None)
    with pytest.raises(IllegalActionError, match="just taken"):
        apply(state, Action("discard", 2, upcard))
    other = next(card for card in state.hands[2] if card != upcard)
    state, _ = apply(state, Action("discard", 2, other))
    assert state.phase == "draw" and state.to_act == 0 and not state.stock_only
    assert {action.kind for action in legal_actions(state, 0)} == {"draw_stock", "draw_discard"}


def test_turns_pass_clockwise_and_errors_change_nothing():
    state = deal(seed="turns", dealer=2, rules=_rules(4))
    for _ in range(4):
        state, _ = _act(state, "pass")
    order = []
    for _ in range(8):
        order.append(state.to_act)
        with pytest.raises(NotYourTurnError):
            apply(state, Action("draw_stock", (state.to_act + 1) % 4))
        state, _ = _act(state, "draw_stock")
        assert len(state.hands[state.to_act]) == 8
        card = max(state.hands[state.to_act], key=lambda c: c.rank)
        state, _ = apply(state, Action("discard", state.to_act, card))
    assert order == [3, 0, 1, 2, 3, 0, 1, 2]


def _state_with(*hands_text, phase="discard", to_act=1, dealer=0):
    hands = tuple(sort_by_suit(parse_cards(text)) for text in hands_text)
    used = {card for hand in hands for card in hand}
    rest = tuple(card for card in FULL_DECK if card not in used)
    state = deal(seed="with", dealer=dealer, rules=_rules(len(hands)))
    return replace(
        state, hands=hands, stock=rest[1:], discard_pile=rest[:1], phase=phase, to_act=to_act
    )


def test_knock_over_the_limit_is_refused_with_its_deadwood():
    state = _state_with("AS 2S 3S 4H 5H 6H 7C", "KS KD QC JC 2H 3H 5C 9S", "AD 2D 3D 4D 5D 6D 7D")
    with pytest.raises(KnockOverLimitError) as raised:
        apply(state, Action("knock", 1, parse_card("KS")))
    assert raised.value.deadwood == seven_card_deadwood("KD QC JC 2H 3H 5C 9S")
    assert all(action.kind == "discard" for action in legal_actions(state, 1))
    assert state_from_json(state_to_json(state)) == state


def test_big_gin_with_eight_cards_ends_the_hand():
    state = _state_with("AS 2S 3S 4H 5H 6H 7C", "2C 3C 4C 5C 9S 9H 9D 9C", "AD 2D 3D 4D 5D 6D 7D")
    assert Action("big_gin", 1) in legal_actions(state, 1)
    state, _ = apply(state, Action("big_gin", 1))
    assert state.outcome.kind == "big_gin" and state.outcome.winner == 1
    assert state.outcome.penalties == (7 + 31, 0, 0 + 31)


def _bot_hand(seed, seats, dealer=0, rules=None, rng=None):
    rules = rules or _rules(seats)
    state = deal(seed=seed, dealer=dealer, rules=rules)
    log = []
    while not state.is_over:
        seat = state.to_act
        action = choose_action(state, seat) if rng is None else random_action(state, seat, rng)
        state, events = apply(state, action)
        log.append((action, events))
    return state, log


def test_reshuffles_come_from_the_fair_stream_and_the_hand_is_void_after_max_reshuffles():
    """Random players rarely knock: many hands reach the stock's end."""
    rng = random.Random(5)
    voids = reshuffled = 0
    for k in range(60):
        rules = _rules(3 + k % 2, max_reshuffles=k % 3)
        state = deal(seed=f"low-{k}", dealer=0, rules=rules)
        while not state.is_over:
            before = state
            state, events = apply(state, random_action(state, state.to_act, rng))
            kinds = [event.kind for event in events]
            if "stock_reshuffled" in kinds:
                reshuffled += 1
                assert len(before.stock) - (0 if events[0].kind == "discard" else 1) <= 3
                assert state.reshuffles == before.reshuffles + 1 <= rules.max_reshuffles
                assert state.discard_pile == (events[0].card,)
            if state.is_over and state.outcome.kind == "void":
                voids += 1
                assert state.reshuffles == rules.max_reshuffles
                assert state.outcome.penalties == (0,) * rules.seats
            assert len(all_cards(state)) == 52 == len(set(all_cards(state)))
    assert voids > 5 and reshuffled > 10


def test_void_stock_exhaustion_option_voids_at_the_first_low_stock():
    rng = random.Random(9)
    for k in range(30):
        state = deal(seed=f"void-{k}", dealer=1, rules=_three(stock_exhaustion="void"))
        while not state.is_over:
            state, _ = apply(state, random_action(state, state.to_act, rng))
        assert state.reshuffles == 0


def test_forfeits_skip_the_seat_kill_its_cards_and_the_last_seat_wins():
    state = deal(seed="leave", dealer=0, rules=_rules(4))
    state, _ = _act(state, "pass")  # seat 1
    state, events = forfeit(state, 2)  # seat 2 leaves on its offer turn: the offer moves on
    assert events[0].kind == "forfeit" and state.to_act == 3 and state.out == (2,)
    assert state.hands[2] == () and len(state.dead) == 7
    state, _ = _act(state, "pass")  # seat 3
    state, _ = _act(state, "pass")  # seat 0, the dealer
    assert state.phase == "draw" and state.to_act == 1
    state, _ = _act(state, "draw_stock")
    state, _ = apply(state, Action("discard", 1, state.hands[1][0]))
    assert state.to_act == 3  # seat 2 is skipped
    state, _ = forfeit(state, 0)
    assert state.to_act == 3 and state.out == (2, 0)
    state, _ = _act(state, "draw_stock")
    state, events = forfeit(state, 3)  # the seat to act leaves mid-turn, 8 cards go dead
    assert state.is_over and state.outcome.kind == "forfeit" and state.outcome.winner == 1
    assert events[-1].kind == "hand_ended" and events[-1].seat == 1
    assert len(state.dead) == 7 + 7 + 8
    assert len(set(all_cards(state))) == 52 == len(all_cards(state))
    with pytest.raises(IllegalActionError):
        forfeit(state, 1)


def test_a_hand_goes_on_after_a_forfeit_and_the_showdown_leaves_the_leaver_out():
    for k in range(40):
        state = deal(seed=f"goes-on-{k}", dealer=k % 4, rules=_rules(4))
        leaver = k % 4
        state, _ = forfeit(state, leaver)
        with pytest.raises(EngineError, match="already"):
            forfeit(state, leaver)
        while not state.is_over:
            state, _ = apply(state, choose_action(state, state.to_act))
        assert state.outcome.penalties[leaver] == 0
        result = state.outcome.result
        if result is not None:
            assert leaver not in [reply.seat for reply in result.opponents]
            assert result.deadwood[leaver] is None


def test_a_forfeited_seat_is_dealt_to_with_its_cards_dead():
    state = deal(seed="later", dealer=1, rules=_rules(4), out=(3,))
    assert state.hands[3] == () and len(state.dead) == 7 and state.out == (3,)
    fresh = deal(seed="later", dealer=1, rules=_rules(4))
    assert set(state.dead) == set(fresh.hands[3]) and state.stock == fresh.stock
    with pytest.raises(EngineError, match="dealer"):
        deal(seed="later", dealer=3, rules=_rules(4), out=(3,))
    with pytest.raises(EngineError, match="two seats"):
        deal(seed="later", dealer=1, rules=_three(), out=(0, 2))


def _hidden_cards_check(state, viewer_views, watcher):
    """No viewer sees another seat's cards, the dead cards, the stock order or the seed."""
    secret_stock = {str(card) for card in state.stock}
    for seat, view in viewer_views.items():
        text = json.dumps(view)
        assert view["hand"] == [str(card) for card in state.hands[seat]]
        others = {
            str(card) for other, hand in enumerate(state.hands) if other != seat for card in hand
        }
        hidden = others | {str(card) for card in state.dead} | secret_stock
        # The card taken from the discard pile this turn was public when it was taken.
        visible = set(view["discard_pile"]) | set(view["hand"]) | {view["taken_from_discard"]}
        assert not (hidden - visible) & _tokens(text)
        assert "seed" not in view and state.seed not in text
        assert view["card_counts"] == [len(hand) for hand in state.hands]
    text = json.dumps(watcher)
    public = set(watcher["discard_pile"]) | {watcher["taken_from_discard"]}
    assert not (_all_hand_cards(state) - public) & _tokens(text)


def _tokens(text):
    return set(text.replace('"', " ").replace(",", " ").replace("[", " ").replace("]", " ").split())


def _all_hand_cards(state):
    return (
        {str(card) for hand in state.hands for card in hand}
        | {str(c) for c in state.dead}
        | {str(card) for card in state.stock}
    )


@pytest.mark.parametrize("seats", [3, 4])
def test_views_hide_every_other_hand_the_stock_and_the_seed_over_whole_hands(seats):
    rng = random.Random(seats)
    for k in range(25):
        state = deal(seed=f"views-{seats}-{k}", dealer=k % seats, rules=_rules(seats))
        if k % 5 == 0:
            state, _ = forfeit(state, (k + 1) % seats)
        while not state.is_over:
            views = {seat: player_view(state, seat) for seat in state.active}
            _hidden_cards_check(state, views, watcher_view(state))
            seat = state.to_act
            if k % 2:
                chosen = choose_action_from_view(views[seat])
                action = Action.from_dict(chosen, seat=seat)
                assert action == choose_action(state, seat)
            else:
                action = random_action(state, seat, rng)
            state, events = apply(state, action)
            for event in events:
                for viewer in range(seats):
                    shown = event_view(event, viewer)
                    if event.kind == "draw_stock" and viewer != event.seat:
                        assert shown["card"] is None
        ended = watcher_view(state)
        assert ended["seed"] == state.seed and len(ended["hands"]) == seats
        assert ended["outcome"] == state.outcome.to_dict()


@pytest.mark.parametrize("seats", [3, 4])
def test_player_view_shows_own_arrangement_and_knock_deadwood(seats):
    state = deal(seed=f"arr-{seats}", dealer=0, rules=_rules(seats))
    view = player_view(state, 1)
    assert view["deadwood"] == seven_card_deadwood(state.hands[1])
    assert view["best_discard"] is None
    for _ in range(seats):
        state, _ = _act(state, "pass")
    state, _ = _act(state, "draw_stock")
    view = player_view(state, state.to_act)
    assert view["deadwood"] == seven_card_deadwood(state.hands[state.to_act])
    assert view["best_discard"] is not None
    for action in view["legal_actions"]:
        if action["kind"] == "knock":
            rest = [c for c in state.hands[state.to_act] if str(c) != action["card"]]
            assert action["deadwood"] == seven_card_deadwood(rest) <= 10


@pytest.mark.parametrize("seats", [3, 4])
def test_json_round_trip_and_replay_of_whole_hands(seats):
    rng = random.Random(11 * seats)
    for k in range(20):
        rules = _rules(seats, max_reshuffles=k % 3)
        state = deal(seed=f"json-{k}", dealer=k % seats, rules=rules)
        moves = []
        while not state.is_over:
            if k % 4 == 1 and len(state.out) == 0 and state.seq == 6:
                state, _ = forfeit(state, state.to_act)
                moves.append({"kind": "forfeit", "seat": state.out[-1]})
                continue
            action = (
                random_action(state, state.to_act, rng)
                if k % 2
                else choose_action(state, state.to_act)
            )
            state, _ = apply(state, action)
            moves.append(action.to_dict())
            stored = json.loads(json.dumps(state_to_json(state)))
            assert state_from_json(stored) == state
        assert replay(seed=f"json-{k}", dealer=k % seats, rules=rules, actions=moves) == state
        assert isinstance(state, HandState)


def test_state_from_json_refuses_a_broken_state():
    state = deal(seed="broken", dealer=0, rules=_three())
    data = state_to_json(state)
    data["stock"] = data["stock"][1:]
    with pytest.raises(EngineError, match="52"):
        state_from_json(data)
    data = state_to_json(state)
    data["hands"][0][0] = data["hands"][1][0]
    with pytest.raises(ValueError):
        state_from_json(data)


@pytest.mark.parametrize("seats", [3, 4])
def test_bots_play_whole_hands_to_an_r12_outcome(seats):
    kinds = set()
    for k in range(150):
        state, log = _bot_hand(f"bots-{seats}-{k}", seats, dealer=k % seats)
        outcome = state.outcome
        kinds.add(outcome.kind)
        assert len(outcome.penalties) == seats
        if outcome.kind in ("knock", "gin", "big_gin"):
            assert outcome.winner == outcome.knocker
            assert outcome.penalties[outcome.knocker] == 0
        if outcome.kind == "undercut":
            assert outcome.winner != outcome.knocker
            assert outcome.penalties[outcome.knocker] >= state.rules.undercut_bonus
        ended = log[-1][1][-1]
        assert ended.kind == "hand_ended" and ended.seed == state.seed
    assert {"knock", "gin"} <= kinds


@settings(max_examples=300, deadline=None)
@given(hand_strategy(8))
def test_eight_card_deadwood_is_the_exact_best_over_the_eight_discards(cards):
    assert seven_card_deadwood(cards) == brute_force.min_deadwood_11(cards)


@settings(max_examples=200, deadline=None)
@given(hand_strategy(7))
def test_seven_card_deadwood_is_the_exact_minimum(cards):
    assert seven_card_deadwood(cards) == brute_force.min_deadwood(cards)


def test_eight_card_deadwood_on_pinned_hands():
    # All eight melded (a four-card run and a set): a discard from the run end costs nothing.
    assert seven_card_deadwood("2S 3S 4S 5S 9H 9D 9C KD") == 0
    assert seven_card_deadwood("5S 5H 5D 9C TC JC 2D 3H") == 2  # discard 3H
    # A forced set and a run: discarding breaks nothing when the two spare cards are free.
    assert seven_card_deadwood("5S 5H 5D 9C TC JC KD QH") == 10
    with pytest.raises(ValueError):
        seven_card_deadwood("5S 5H 5D")
