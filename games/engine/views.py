"""Hidden information (docs/games.md): what each viewer may see, as JSON-able dicts.

A player sees their own cards with their best arrangement (R2), the discard pile, the stock
count, the opponent's card count and their own legal actions (each knock with the deadwood it
would show, R6); watchers see only public information. Nobody sees the stock order, and before
the hand ends nobody sees the opponent's hand or the server seed. Once the hand has ended, the
showdown (both arrangements, R8) and the seed are public.
"""

from __future__ import annotations

from games.engine.cards import Card, card_text, card_texts, cards_to_mask, sort_by_suit
from games.engine.hand import (
    DRAW_STOCK,
    ENDED,
    HAND_ENDED,
    KNOCK,
    STOCK_RESHUFFLED,
    Action,
    Event,
    HandState,
    check_seat,
    knock_deadwood,
    legal_actions,
    other_seat,
)
from games.engine.melds import Arrangement, best_arrangement

PRIVATE_CARD_EVENTS = (DRAW_STOCK,)  # R5: a stock draw is seen by the drawer only


def own_arrangement(cards: tuple[Card, ...], *, keep: Card | None = None) -> dict:
    """A player's own best arrangement (R2), the one that gives their ``deadwood``: 10 cards
    as they are; 11 cards after the best discard they may make (``best_discard``, in neither
    ``melds`` nor ``deadwood_cards``; never ``keep``, the card just taken from the pile, R5;
    None with 10 cards). Only ever built from the viewer's own cards."""
    return arrangement_view(best_arrangement(cards, keep=keep))


def arrangement_view(arrangement: Arrangement) -> dict:
    """A player's own arrangement as JSON (heads-up or R12's 7-8 cards)."""
    return {
        "deadwood": arrangement.deadwood,
        "melds": [meld.to_dict() for meld in arrangement.melds],
        "deadwood_cards": card_texts(arrangement.deadwood_cards),
        "best_discard": card_text(arrangement.discard),
    }


def _public(state: HandState) -> dict:
    """The public part of the table: shared by player and watcher views."""
    view = {
        "phase": state.phase,
        "to_act": state.to_act,
        "dealer": state.dealer,
        "seq": state.seq,
        "discard_pile": card_texts(state.discard_pile),
        "stock_count": len(state.stock),
        "card_counts": [len(state.hands[0]), len(state.hands[1])],
        "upcard_passes": state.upcard_passes,
        "taken_from_discard": card_text(state.taken_from_discard),
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
        "hands": [card_texts(state.hands[0]), card_texts(state.hands[1])],
        "knock_card": card_text(state.knock_card),
        "seed": state.seed,
    }


def action_view(action: Action, held: int) -> dict:
    """An action as the client sends it back: ``{"kind": ..., "card": "7H" or None}``; a
    knock also carries the deadwood of the 10 cards it would show (R6; ``held``: the mask of
    the 11 cards held), so a client never works it out."""
    view = {"kind": action.kind, "card": card_text(action.card)}
    if action.kind == KNOCK:
        view["deadwood"] = knock_deadwood(held, action.card)
    return view


def _taken_by(state: HandState, seat: int) -> Card | None:
    """The card ``seat`` took from the discard pile this turn, if they did (R5: it stays)."""
    taken = state.taken_from_discard
    if taken is None or all(card.index != taken.index for card in state.hands[seat]):
        return None
    return taken


def player_view(state: HandState, seat: int) -> dict:
    """What ``seat`` may see now."""
    seat = check_seat(seat)
    view = _public(state)
    hand = sort_by_suit(state.hands[seat])
    mask = cards_to_mask(hand)
    view.update(
        {
            "seat": seat,
            "hand": card_texts(hand),
            **own_arrangement(hand, keep=_taken_by(state, seat)),
            "opponent_card_count": len(state.hands[other_seat(seat)]),
            "legal_actions": [action_view(action, mask) for action in legal_actions(state, seat)],
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
        view["hands"] = [card_texts(hand) for hand in event.hands]
        view["seed"] = event.seed
    return view
