"""Full hand state <-> JSON for server storage (includes the seed and the stock order).

Never send this to a client: use :mod:`games.engine.views` for that.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from games.engine.cards import FULL_DECK, Card, card_from_text, card_text, card_texts, coerce_cards
from games.engine.errors import DuplicateCardError, EngineError
from games.engine.hand import ENDED, PHASES, HandOutcome, HandState, all_cards
from games.engine.rules import RuleSet

STATE_FORMAT = 1


def state_to_json(state: HandState) -> dict:
    """Every field of ``state`` as JSON-able data (cards as R1 text)."""
    return {
        **common_state_json(state, STATE_FORMAT),
        "outcome": None if state.outcome is None else state.outcome.to_dict(),
    }


def state_from_json(data: dict) -> HandState:
    """Rebuild the exact :class:`HandState` saved by :func:`state_to_json`, checking that the
    52 cards are all there exactly once (R1)."""
    if data.get("format") != STATE_FORMAT:
        raise EngineError(f"unknown hand state format {data.get('format')!r}")
    outcome = data["outcome"]
    state = HandState(
        rules=RuleSet.from_dict(data["rules"]),
        **common_state_fields(data, _heads_up_hands),
        outcome=None if outcome is None else HandOutcome.from_dict(outcome),
    )
    check_consistent(state, all_cards(state))
    return state


def _heads_up_hands(hands: list) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    return coerce_cards(hands[0]), coerce_cards(hands[1])


# What follows is written over the fields a heads-up HandState and an R12 MultiHandState
# share: games.engine.multi_views stores its states with it, adding its own fields.


def common_state_json(state, format_: int) -> dict:
    """The stored fields every hand state has, in their stored order, ``rules`` to
    ``reshuffles`` (the caller adds its own, then ``outcome``)."""
    return {
        "format": format_,
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


def common_state_fields(data: dict, hands_of: Callable[[list], tuple]) -> dict:
    """The keyword arguments, ``seed`` to ``reshuffles``, that rebuild the fields saved by
    :func:`common_state_json` (``hands_of`` parses the stored hands)."""
    return {
        "seed": data["seed"],
        "dealer": data["dealer"],
        "hands": hands_of(data["hands"]),
        "stock": coerce_cards(data["stock"]),
        "discard_pile": coerce_cards(data["discard_pile"]),
        "phase": data["phase"],
        "to_act": data["to_act"],
        "seq": data["seq"],
        "upcard_passes": data["upcard_passes"],
        "stock_only": data["stock_only"],
        "taken_from_discard": card_from_text(data["taken_from_discard"]),
        "knock_card": card_from_text(data["knock_card"]),
        "reshuffles": data["reshuffles"],
    }


def check_consistent(state, cards: Iterable[Card]) -> None:
    """R1: ``cards`` (every card of ``state``, wherever it is) are the 52 once each; the
    phase is known; there is an outcome exactly when the hand has ended."""
    counts = Counter(cards)
    repeated = [card for card, count in counts.items() if count > 1]
    if repeated:
        raise DuplicateCardError(repeated[0])
    if len(counts) != len(FULL_DECK):
        raise EngineError(f"a hand state holds 52 cards, this one {len(counts)}")
    if state.phase not in PHASES:
        raise EngineError(f"unknown phase {state.phase!r}")
    if (state.phase == ENDED) != (state.outcome is not None):
        raise EngineError("a hand has an outcome exactly when it has ended")
