"""Full hand state <-> JSON for server storage (includes the seed and the stock order).

Never send this to a client: use :mod:`games.engine.views` for that.
"""

from __future__ import annotations

from collections import Counter

from games.engine.cards import FULL_DECK, Card, coerce_cards
from games.engine.errors import DuplicateCardError, EngineError
from games.engine.hand import ENDED, PHASES, HandOutcome, HandState, all_cards
from games.engine.rules import RuleSet

STATE_FORMAT = 1


def _texts(cards) -> list[str]:
    return [str(card) for card in cards]


def _card_or_none(text: str | None) -> Card | None:
    return None if text is None else coerce_cards([text])[0]


def state_to_json(state: HandState) -> dict:
    """Every field of ``state`` as JSON-able data (cards as R1 text)."""
    return {
        "format": STATE_FORMAT,
        "rules": state.rules.to_dict(),
        "seed": state.seed,
        "dealer": state.dealer,
        "hands": [_texts(state.hands[0]), _texts(state.hands[1])],
        "stock": _texts(state.stock),
        "discard_pile": _texts(state.discard_pile),
        "phase": state.phase,
        "to_act": state.to_act,
        "seq": state.seq,
        "upcard_passes": state.upcard_passes,
        "stock_only": state.stock_only,
        "taken_from_discard": None
        if state.taken_from_discard is None
        else str(state.taken_from_discard),
        "knock_card": None if state.knock_card is None else str(state.knock_card),
        "reshuffles": state.reshuffles,
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
        seed=data["seed"],
        dealer=data["dealer"],
        hands=(coerce_cards(data["hands"][0]), coerce_cards(data["hands"][1])),
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
        outcome=None if outcome is None else HandOutcome.from_dict(outcome),
    )
    _check_consistent(state)
    return state


def _check_consistent(state: HandState) -> None:
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
