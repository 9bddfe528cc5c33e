"""Full hand state <-> JSON for server storage (includes the seed and the stock order).

Never send this to a client: use :mod:`games.engine.views` for that. The stored form is the
same for every seat count, with two fields more where a seat can leave mid-hand (R12:
``out`` and ``dead``, before ``outcome``); a heads-up state has neither, exactly as it was
stored before R12 existed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.engine.cards import FULL_DECK, card_from_text, card_text, card_texts, coerce_cards
from games.engine.errors import DuplicateCardError, EngineError
from games.engine.hand import all_cards
from games.engine.rules import RuleSet
from games.engine.state import ENDED, PHASES, HandOutcome, HandState

STATE_FORMAT = 1


def state_to_json(state: HandState) -> dict[str, Any]:
    """Every field of ``state`` as JSON-able data (cards as R1 text)."""
    data: dict[str, Any] = {
        "format": STATE_FORMAT,
        "rules": state.rules.to_dict(),
        "seed": state.seed,
        "dealer": state.dealer,
        "hands": [card_texts(hand) for hand in state.hands],
        "stock": card_texts(state.stock),
        "discard_pile": card_texts(state.discard_pile),
        "phase": state.phase,
        "to_act": state.to_act,
        "seq": state.seq,
        "upcard_passes": state.upcard_passes,
        "stock_only": state.stock_only,
        "taken_from_discard": card_text(state.taken_from_discard),
        "knock_card": card_text(state.knock_card),
        "reshuffles": state.reshuffles,
    }
    if state.rules.seat_rules.play_on_after_forfeit:
        data["out"] = list(state.out)
        data["dead"] = card_texts(state.dead)
    data["outcome"] = None if state.outcome is None else state.outcome.to_dict()
    return data


def state_from_json(data: Mapping[str, Any]) -> HandState:
    """Rebuild the exact :class:`HandState` saved by :func:`state_to_json`, checking that the
    52 cards are all there exactly once (R1)."""
    if data.get("format") != STATE_FORMAT:
        raise EngineError(f"unknown hand state format {data.get('format')!r}")
    rules = RuleSet.from_dict(data["rules"])
    if len(data["hands"]) != rules.seats:
        raise EngineError(f"{rules.seats} seats need {rules.seats} hands")
    leavers = rules.seat_rules.play_on_after_forfeit
    outcome = data["outcome"]
    state = HandState(
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
        taken_from_discard=card_from_text(data["taken_from_discard"]),
        knock_card=card_from_text(data["knock_card"]),
        reshuffles=data["reshuffles"],
        out=tuple(data["out"]) if leavers else (),
        dead=coerce_cards(data["dead"]) if leavers else (),
        outcome=None if outcome is None else HandOutcome.from_dict(outcome),
    )
    _check_consistent(state)
    return state


def _check_consistent(state: HandState) -> None:
    """R1: every card of ``state``, wherever it is, is one of the 52, once each; the phase
    is known; there is an outcome exactly when the hand has ended."""
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
