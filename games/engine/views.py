"""Hidden information (docs/games.md): what each viewer may see, as JSON-able dicts.

A player sees their own cards, the discard pile, the stock count, the opponent's card count
and their own legal actions; watchers see only public information. Nobody sees the stock
order, and before the hand ends nobody sees the opponent's hand or the server seed. Once the
hand has ended, the showdown (both arrangements, R8) and the seed are public.
"""

from __future__ import annotations

from games.engine.cards import Card, cards_to_mask, sort_by_suit
from games.engine.hand import (
    DRAW_STOCK,
    ENDED,
    HAND_ENDED,
    STOCK_RESHUFFLED,
    Event,
    HandState,
    check_seat,
    legal_actions,
    other_seat,
)
from games.engine.solver import min_deadwood_after_discard_mask, min_deadwood_mask

PRIVATE_CARD_EVENTS = (DRAW_STOCK,)  # R5: a stock draw is seen by the drawer only


def _texts(cards) -> list[str]:
    return [str(card) for card in cards]


def _text(card: Card | None) -> str | None:
    return None if card is None else str(card)


def own_deadwood(cards: tuple[Card, ...]) -> int:
    """A player's own deadwood: R2 minimum for 10 cards, best after a discard for 11."""
    mask = cards_to_mask(cards)
    if len(cards) == 11:
        return min_deadwood_after_discard_mask(mask)
    return min_deadwood_mask(mask)


def _public(state: HandState) -> dict:
    """The public part of the table: shared by player and watcher views."""
    view = {
        "phase": state.phase,
        "to_act": state.to_act,
        "dealer": state.dealer,
        "seq": state.seq,
        "discard_pile": _texts(state.discard_pile),
        "stock_count": len(state.stock),
        "card_counts": [len(state.hands[0]), len(state.hands[1])],
        "upcard_passes": state.upcard_passes,
        "taken_from_discard": _text(state.taken_from_discard),
        "reshuffles": state.reshuffles,
        "rules": state.rules.to_dict(),
        "outcome": None,
    }
    if state.phase == ENDED:
        view.update(_showdown(state))
    return view


def _showdown(state: HandState) -> dict:
    """Revealed once the hand has ended: outcome with both arrangements, hands and seed."""
    return {
        "outcome": state.outcome.to_dict(),
        "hands": [_texts(state.hands[0]), _texts(state.hands[1])],
        "knock_card": _text(state.knock_card),
        "seed": state.seed,
    }


def action_view(action) -> dict:
    """An action as the client sends it back: ``{"kind": ..., "card": "7H" or None}``."""
    return {"kind": action.kind, "card": _text(action.card)}


def player_view(state: HandState, seat: int) -> dict:
    """What ``seat`` may see now."""
    seat = check_seat(seat)
    view = _public(state)
    hand = sort_by_suit(state.hands[seat])
    view.update(
        {
            "seat": seat,
            "hand": _texts(hand),
            "deadwood": own_deadwood(hand),
            "opponent_card_count": len(state.hands[other_seat(seat)]),
            "legal_actions": [action_view(action) for action in legal_actions(state, seat)],
        }
    )
    return view


def watcher_view(state: HandState) -> dict:
    """What a watcher may see: public information only (R11)."""
    return _public(state)


def event_view(event: Event, viewer: int | None) -> dict:
    """``event`` as ``viewer`` (a seat, or None for a watcher) may see it."""
    view = {"kind": event.kind, "seat": event.seat, "seq": event.seq}
    if event.card is not None:
        hidden = event.kind in PRIVATE_CARD_EVENTS and viewer != event.seat
        view["card"] = None if hidden else str(event.card)
    if event.kind == STOCK_RESHUFFLED:
        view["stock_count"] = event.stock_count
    if event.kind == HAND_ENDED:
        view["outcome"] = event.outcome.to_dict()
        view["hands"] = [_texts(hand) for hand in event.hands]
        view["seed"] = event.seed
    return view
