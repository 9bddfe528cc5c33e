"""R13 auto-play: the fixed move the platform makes for a player whose turn ran out.

It is not a strategy but a rule anyone can replay from the hand's public record and the
player's cards, so it is deliberately simple and never goes out:

* at the upcard offer (R4): pass;
* to draw (R5): draw from the stock;
* to discard: the card that leaves the lowest deadwood (R2); ties to the higher rank, then to
  the earlier suit in R1's order (spades, hearts, diamonds, clubs); never the card just taken
  from the discard pile (R5); never a knock, never Gin or Big Gin.

``auto_turn`` plays the whole turn (a pass, or a draw and its discard) on a state and returns
each action with the state it was applied to, so a caller can store them one by one.
"""

from __future__ import annotations

from games.engine.cards import SUITS, Card, cards_to_mask
from games.engine.errors import IllegalActionError
from games.engine.hand import apply, legal_actions
from games.engine.solver import min_deadwood_mask
from games.engine.state import (
    DISCARD,
    DISCARD_CARD,
    DRAW,
    DRAW_STOCK,
    PASS,
    UPCARD_OFFER,
    Action,
    Event,
    HandState,
)

_SUIT_ORDER = {suit: index for index, suit in enumerate(SUITS)}


def _discard_key(mask: int, card: Card) -> tuple[int, int, int]:
    """Lowest deadwood left (R2), then the higher rank, then the earlier suit (R1)."""
    return (min_deadwood_mask(mask ^ card.bit), -card.rank, _SUIT_ORDER[card.suit])


def auto_action(state: HandState, seat: int) -> Action:
    """R13's fixed action for ``seat`` in ``state`` (it must be that seat's turn)."""
    if state.to_act != seat or state.phase not in (UPCARD_OFFER, DRAW, DISCARD):
        raise IllegalActionError(f"it is not seat {seat}'s turn to play")
    kinds = {action.kind: action for action in legal_actions(state, seat)}
    if state.phase == UPCARD_OFFER:
        return kinds[PASS]
    if state.phase == DRAW:
        # R7 keeps at least two cards in the stock whenever a player draws.
        if DRAW_STOCK not in kinds:  # pragma: no cover - the stock is never empty at a draw
            raise IllegalActionError("the stock is empty")
        return kinds[DRAW_STOCK]
    mask = cards_to_mask(state.hands[seat])
    taken = state.taken_from_discard
    cards = [card for card in state.hands[seat] if taken is None or card.index != taken.index]
    return Action(DISCARD_CARD, seat, min(cards, key=lambda card: _discard_key(mask, card)))


def auto_turn(
    state: HandState, seat: int
) -> tuple[tuple[Action, HandState, tuple[Event, ...]], ...]:
    """``seat``'s whole turn played by R13: each action, the state it produced and its
    events, in order. The turn is over when the seat is no longer to act in the same turn:
    after a pass, after a discard, or when the hand ended (the stock ran low and the hand was
    void or reshuffled and moved on)."""
    played: list[tuple[Action, HandState, tuple[Event, ...]]] = []
    while True:
        action = auto_action(state, seat)
        state, events = apply(state, action)
        played.append((action, state, events))
        if action.kind != DRAW_STOCK or state.is_over or state.to_act != seat:
            return tuple(played)
