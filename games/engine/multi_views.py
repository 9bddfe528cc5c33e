"""R12 hidden information and storage: views and JSON of a :class:`MultiHandState`.

A player sees their own cards (with their best arrangement), the discard pile, the stock
count and every other seat's card COUNT only; never another hand, the dead cards of a seat
that forfeited, the stock order or the seed before the hand ends. Watchers see only the
public part. Once the hand has ended the showdown, every hand, the dead cards and the seed
are public. ``multi_state_to_json`` is for server storage only (it holds the seed and stock).
"""

from __future__ import annotations

from games.engine.cards import card_text, card_texts, cards_to_mask, coerce_cards, sort_by_suit
from games.engine.errors import EngineError
from games.engine.hand import ENDED
from games.engine.melds import best_arrangement_r12
from games.engine.multi_hand import (
    MultiHandOutcome,
    MultiHandState,
    all_cards,
    check_multi_seat,
    legal_actions,
)
from games.engine.rules import RuleSet
from games.engine.serialization import check_consistent, common_state_fields, common_state_json
from games.engine.views import action_view, arrangement_view

MULTI_STATE_FORMAT = 1


def _public(state: MultiHandState) -> dict:
    view = {
        "seats": state.seats,
        "phase": state.phase,
        "to_act": state.to_act,
        "dealer": state.dealer,
        "seq": state.seq,
        "discard_pile": card_texts(state.discard_pile),
        "stock_count": len(state.stock),
        "card_counts": [len(hand) for hand in state.hands],
        "out": list(state.out),
        "dead_count": len(state.dead),
        "upcard_passes": state.upcard_passes,
        "taken_from_discard": card_text(state.taken_from_discard),
        "reshuffles": state.reshuffles,
        "rules": state.rules.to_dict(),
        "outcome": None,
    }
    if state.phase == ENDED:
        view.update(
            {
                "outcome": state.outcome.to_dict(),
                "hands": [card_texts(hand) for hand in state.hands],
                "dead": card_texts(state.dead),
                "knock_card": card_text(state.knock_card),
                "seed": state.seed,
            }
        )
    return view


def multi_player_view(state: MultiHandState, seat: int) -> dict:
    """What ``seat`` may see now: the public part plus its own hand, its best arrangement
    (R12: 7 cards, or 8 with ``best_discard``, never the card just taken from the pile), the
    other seats' card counts and its own legal actions (knocks with their deadwood)."""
    seat = check_multi_seat(seat, state.seats)
    view = _public(state)
    hand = sort_by_suit(state.hands[seat])
    view["seat"] = seat
    view["hand"] = card_texts(hand)
    if len(hand) in (7, 8):
        taken = state.taken_from_discard
        keep = taken if taken is not None and taken in hand else None
        view.update(arrangement_view(best_arrangement_r12(hand, keep=keep)))
    else:  # a seat that forfeited holds nothing
        view.update({"deadwood": 0, "melds": [], "deadwood_cards": [], "best_discard": None})
    mask = cards_to_mask(hand)
    # Knocks carry the deadwood of the 7 cards they would show (R12).
    view["legal_actions"] = [action_view(action, mask) for action in legal_actions(state, seat)]
    return view


def multi_watcher_view(state: MultiHandState) -> dict:
    """What a watcher may see: the public part only (R11)."""
    return _public(state)


def multi_state_to_json(state: MultiHandState) -> dict:
    """Every field of ``state`` as JSON-able data (server storage only)."""
    return {
        **common_state_json(state, MULTI_STATE_FORMAT),
        "out": list(state.out),
        "dead": card_texts(state.dead),
        "outcome": None if state.outcome is None else state.outcome.to_dict(),
    }


def multi_state_from_json(data: dict) -> MultiHandState:
    """Rebuild the exact state saved by :func:`multi_state_to_json`, checking the 52 cards."""
    if data.get("format") != MULTI_STATE_FORMAT:
        raise EngineError(f"unknown hand state format {data.get('format')!r}")
    rules = RuleSet.from_dict(data["rules"])
    if not rules.is_multi:
        raise EngineError("not an R12 hand state: the rules seat two players")
    if len(data["hands"]) != rules.seats:
        raise EngineError(f"{rules.seats} seats need {rules.seats} hands")
    outcome = data["outcome"]
    state = MultiHandState(
        rules=rules,
        **common_state_fields(data, _hands),
        out=tuple(data["out"]),
        dead=coerce_cards(data["dead"]),
        outcome=None if outcome is None else MultiHandOutcome.from_dict(outcome),
    )
    check_consistent(state, all_cards(state))
    return state


def _hands(hands: list) -> tuple[tuple, ...]:
    return tuple(coerce_cards(hand) for hand in hands)
