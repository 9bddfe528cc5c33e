"""Hidden information (docs/games.md): what each viewer may see, as JSON-able dicts.

A player sees their own cards with their best arrangement (R2), the discard pile, the stock
count, every other seat's card count and their own legal actions (each knock with the
deadwood it would show, R6); watchers see only public information. Nobody sees the stock
order, and before the hand ends nobody sees another hand, the dead cards of a seat that
forfeited (R12) or the server seed. Once the hand has ended, the showdown (every
arrangement, R8, R12), every hand and the seed are public.
"""

from __future__ import annotations

from typing import Any

from games.engine.cards import Card, card_text, card_texts, cards_to_mask, sort_by_suit
from games.engine.hand import knock_deadwood, legal_actions
from games.engine.melds import Arrangement, arrangement_of_hand
from games.engine.state import (
    DRAW_STOCK,
    ENDED,
    HAND_ENDED,
    KNOCK,
    STOCK_RESHUFFLED,
    Action,
    Event,
    HandState,
    check_seat,
)

PRIVATE_CARD_EVENTS = (DRAW_STOCK,)  # R5: a stock draw is seen by the drawer only
# R12: a seat that forfeited holds nothing, so there is nothing to arrange.
NO_ARRANGEMENT: dict[str, Any] = {
    "deadwood": 0,
    "melds": [],
    "deadwood_cards": [],
    "best_discard": None,
}


def arrangement_view(arrangement: Arrangement) -> dict[str, Any]:
    """A player's own arrangement as JSON: the one that gives their ``deadwood``; with one
    card more than a hand (after drawing) also ``best_discard``, the discard it assumes."""
    return {
        "deadwood": arrangement.deadwood,
        "melds": [meld.to_dict() for meld in arrangement.melds],
        "deadwood_cards": card_texts(arrangement.deadwood_cards),
        "best_discard": card_text(arrangement.discard),
    }


def _public(state: HandState) -> dict[str, Any]:
    """The public part of the table: shared by player and watcher views."""
    leavers = state.rules.seat_rules.play_on_after_forfeit
    view: dict[str, Any] = {"seats": state.seats} if leavers else {}
    view.update(
        {
            "phase": state.phase,
            "to_act": state.to_act,
            "dealer": state.dealer,
            "seq": state.seq,
            "discard_pile": card_texts(state.discard_pile),
            "stock_count": len(state.stock),
            "card_counts": [len(hand) for hand in state.hands],
        }
    )
    if leavers:  # R12: who left, and how many cards went dead with them
        view.update({"out": list(state.out), "dead_count": len(state.dead)})
    view.update(
        {
            "upcard_passes": state.upcard_passes,
            "taken_from_discard": card_text(state.taken_from_discard),
            "reshuffles": state.reshuffles,
            "rules": state.rules.to_dict(),
            "outcome": None,
        }
    )
    if state.phase == ENDED and state.outcome is not None:
        # Revealed once the hand has ended: the outcome with every arrangement, the hands
        # (and the dead cards) and the seed.
        view.update(
            {
                "outcome": state.outcome.to_dict(),
                "hands": [card_texts(hand) for hand in state.hands],
                **({"dead": card_texts(state.dead)} if leavers else {}),
                "knock_card": card_text(state.knock_card),
                "seed": state.seed,
            }
        )
    return view


def action_view(action: Action, held: int) -> dict[str, Any]:
    """An action as the client sends it back: ``{"kind": ..., "card": "7H" or None}``; a
    knock also carries the deadwood of the cards it would show (R6; ``held``: the mask of
    the cards held), so a client never works it out."""
    view: dict[str, Any] = {"kind": action.kind, "card": card_text(action.card)}
    if action.kind == KNOCK and action.card is not None:
        view["deadwood"] = knock_deadwood(held, action.card)
    return view


def _taken_by(state: HandState, seat: int) -> Card | None:
    """The card ``seat`` took from the discard pile this turn, if they did (R5: it stays)."""
    taken = state.taken_from_discard
    if taken is None or all(card.index != taken.index for card in state.hands[seat]):
        return None
    return taken


def player_view(state: HandState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see now: the public part plus its own hand and best arrangement
    (never discarding the card just taken from the pile), the opponent's card count
    heads-up, and its own legal actions (knocks with their deadwood)."""
    seat = check_seat(seat, state.seats)
    view = _public(state)
    hand = sort_by_suit(state.hands[seat])
    mask = cards_to_mask(hand)
    view["seat"] = seat
    view["hand"] = card_texts(hand)
    if hand:
        table = state.rules.seat_rules
        arrangement = arrangement_of_hand(
            mask, hand_size=table.hand_size, keep=_taken_by(state, seat)
        )
        view.update(arrangement_view(arrangement))
    else:
        view.update(NO_ARRANGEMENT)
    if state.seats == 2:
        view["opponent_card_count"] = len(state.hands[1 - seat])
    view["legal_actions"] = [action_view(action, mask) for action in legal_actions(state, seat)]
    return view


def watcher_view(state: HandState) -> dict[str, Any]:
    """What a watcher may see: public information only (R11)."""
    return _public(state)


def event_view(event: Event, viewer: int | None) -> dict[str, Any]:
    """``event`` as ``viewer`` (a seat, or None for a watcher) may see it."""
    view: dict[str, Any] = {"kind": event.kind, "seat": event.seat, "seq": event.seq}
    if event.card is not None:
        hidden = event.kind in PRIVATE_CARD_EVENTS and viewer != event.seat
        view["card"] = None if hidden else str(event.card)
    if event.kind == STOCK_RESHUFFLED:
        view["stock_count"] = event.stock_count
    if event.kind == HAND_ENDED and event.outcome is not None and event.hands is not None:
        view["outcome"] = event.outcome.to_dict()
        view["hands"] = [card_texts(hand) for hand in event.hands]
        view["seed"] = event.seed
    return view
