"""R12 hidden information and storage: views and JSON of a :class:`MultiHandState`.

A player sees their own cards (with their best arrangement), the discard pile, the stock
count and every other seat's card COUNT only; never another hand, the dead cards of a seat
that forfeited, the stock order or the seed before the hand ends. Watchers see only the
public part. Once the hand has ended the showdown, every hand, the dead cards and the seed
are public. ``multi_state_to_json`` is for server storage only (it holds the seed and stock).
"""

from __future__ import annotations

from collections import Counter

from games.engine.cards import FULL_DECK, Card, cards_to_mask, coerce_cards, sort_by_suit
from games.engine.errors import DuplicateCardError, EngineError
from games.engine.hand import ENDED, KNOCK, PHASES, Action
from games.engine.melds import best_arrangement_r12
from games.engine.multi_hand import (
    MultiHandOutcome,
    MultiHandState,
    all_cards,
    check_multi_seat,
    knock_deadwood,
    legal_actions,
)
from games.engine.rules import RuleSet

MULTI_STATE_FORMAT = 1


def _texts(cards) -> list[str]:
    return [str(card) for card in cards]


def _text(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _public(state: MultiHandState) -> dict:
    view = {
        "seats": state.seats,
        "phase": state.phase,
        "to_act": state.to_act,
        "dealer": state.dealer,
        "seq": state.seq,
        "discard_pile": _texts(state.discard_pile),
        "stock_count": len(state.stock),
        "card_counts": [len(hand) for hand in state.hands],
        "out": list(state.out),
        "dead_count": len(state.dead),
        "upcard_passes": state.upcard_passes,
        "taken_from_discard": _text(state.taken_from_discard),
        "reshuffles": state.reshuffles,
        "rules": state.rules.to_dict(),
        "outcome": None,
    }
    if state.phase == ENDED:
        view.update(
            {
                "outcome": state.outcome.to_dict(),
                "hands": [_texts(hand) for hand in state.hands],
                "dead": _texts(state.dead),
                "knock_card": _text(state.knock_card),
                "seed": state.seed,
            }
        )
    return view


def _action_view(action: Action, held: int) -> dict:
    view = {"kind": action.kind, "card": _text(action.card)}
    if action.kind == KNOCK:  # the deadwood of the 7 cards the knock would show (R12)
        view["deadwood"] = knock_deadwood(held, action.card)
    return view


def multi_player_view(state: MultiHandState, seat: int) -> dict:
    """What ``seat`` may see now: the public part plus its own hand, its best arrangement
    (R12: 7 cards, or 8 with ``best_discard``, never the card just taken from the pile), the
    other seats' card counts and its own legal actions (knocks with their deadwood)."""
    seat = check_multi_seat(seat, state.seats)
    view = _public(state)
    hand = sort_by_suit(state.hands[seat])
    view["seat"] = seat
    view["hand"] = _texts(hand)
    if len(hand) in (7, 8):
        taken = state.taken_from_discard
        keep = taken if taken is not None and taken in hand else None
        arrangement = best_arrangement_r12(hand, keep=keep)
        view.update(
            {
                "deadwood": arrangement.deadwood,
                "melds": [meld.to_dict() for meld in arrangement.melds],
                "deadwood_cards": _texts(arrangement.deadwood_cards),
                "best_discard": _text(arrangement.discard),
            }
        )
    else:  # a seat that forfeited holds nothing
        view.update({"deadwood": 0, "melds": [], "deadwood_cards": [], "best_discard": None})
    mask = cards_to_mask(hand)
    view["legal_actions"] = [_action_view(action, mask) for action in legal_actions(state, seat)]
    return view


def multi_watcher_view(state: MultiHandState) -> dict:
    """What a watcher may see: the public part only (R11)."""
    return _public(state)


def multi_state_to_json(state: MultiHandState) -> dict:
    """Every field of ``state`` as JSON-able data (server storage only)."""
    return {
        "format": MULTI_STATE_FORMAT,
        "rules": state.rules.to_dict(),
        "seed": state.seed,
        "dealer": state.dealer,
        "hands": [_texts(hand) for hand in state.hands],
        "stock": _texts(state.stock),
        "discard_pile": _texts(state.discard_pile),
        "phase": state.phase,
        "to_act": state.to_act,
        "seq": state.seq,
        "upcard_passes": state.upcard_passes,
        "stock_only": state.stock_only,
        "taken_from_discard": _text(state.taken_from_discard),
        "knock_card": _text(state.knock_card),
        "reshuffles": state.reshuffles,
        "out": list(state.out),
        "dead": _texts(state.dead),
        "outcome": None if state.outcome is None else state.outcome.to_dict(),
    }


def _card_or_none(text: str | None) -> Card | None:
    return None if text is None else coerce_cards([text])[0]


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
        seed=data["seed"],
        dealer=data["dealer"],
        hands=tuple(coerce_cards(hand) for hand in data["hands"]),
        stock=coerce_cards(data["stock"]),
        discard_pile=coerce_cards(data["discard_pile"]),
        phase=data["phase"],
        to_act=data["to_act"],
        seq=data["seq"],
        upcard_passes=data["upcard_passes"],
        stock_only=data["stock_only"],
        taken_from_discard=_card_or_none(data["taken_from_discard"]),
        knock_card=_card_or_none(data["knock_card"]),
        reshuffles=data["reshuffles"],
        out=tuple(data["out"]),
        dead=coerce_cards(data["dead"]),
        outcome=None if outcome is None else MultiHandOutcome.from_dict(outcome),
    )
    counts = Counter(all_cards(state))
    repeated = [card for card, count in counts.items() if count > 1]
    if repeated:
        raise DuplicateCardError(repeated[0])
    if len(counts) != len(FULL_DECK):
        raise EngineError(f"a hand state holds 52 cards, this one {len(counts)}")
    if state.phase not in PHASES:
        raise EngineError(f"unknown phase {state.phase!r}")
    if (state.phase == ENDED) != (state.outcome is not None):
        raise EngineError("a hand has an outcome exactly when it has ended")
    return state
