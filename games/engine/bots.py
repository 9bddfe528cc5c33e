"""Built-in players: a sensible bot for practice tables and demos, and a random player.

It plays heads-up and R12 (three and four seats) hands alike. The bot only uses what its
seat may see (own cards, the discard pile, its legal actions), so the same decision runs on
a :class:`~games.engine.state.HandState` or on a ``player_view`` dict:

* Big Gin when possible (R6), else knock with the lowest deadwood left (Gin first) whenever
  a knock is legal;
* take the upcard / the top discard only when that lowers its deadwood (R4, R5), else pass /
  draw from the stock;
* discard the card that leaves the lowest deadwood, then the highest-value such card.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.engine.cards import Card, card_value, cards_to_mask, coerce_cards
from games.engine.hand import legal_actions
from games.engine.solver import min_deadwood_after_discard_mask, min_deadwood_mask
from games.engine.state import (
    BIG_GIN,
    DISCARD_CARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    TAKE_UPCARD,
    Action,
    HandState,
)

Choice = tuple[str, Card | None]  # (action kind, card)


def _improves(hand: int, top: Card | None) -> bool:
    """Would taking ``top`` lower the deadwood? Putting ``top`` straight back would restore
    the current hand, so the 11-card minimum beats the current deadwood only when the best
    discard is another card (which R5 then allows)."""
    if top is None:
        return False
    return min_deadwood_after_discard_mask(hand | 1 << top.index) < min_deadwood_mask(hand)


def _putdown_key(hand: int, card: Card) -> tuple[int, int, int]:
    """Lowest deadwood left, then the highest value put down, then the latest in deck order."""
    return (min_deadwood_mask(hand ^ 1 << card.index), -card_value(card), -card.index)


def decide(hand: tuple[Card, ...], top: Card | None, legal: list[Choice]) -> Choice:
    """The bot's choice among ``legal`` for a seat holding ``hand`` with ``top`` the top of
    the discard pile. Deterministic."""
    if not legal:
        raise ValueError("no legal action: it is not this seat's turn")
    kinds = {kind for kind, _ in legal}
    mask = cards_to_mask(hand)
    if BIG_GIN in kinds:
        return BIG_GIN, None
    for kind in (KNOCK, DISCARD_CARD):
        cards = [card for choice, card in legal if choice == kind and card is not None]
        if cards:
            return kind, min(cards, key=lambda card: _putdown_key(mask, card))
    for take, skip in ((TAKE_UPCARD, PASS), (DRAW_DISCARD, DRAW_STOCK)):
        if take in kinds and (_improves(mask, top) or skip not in kinds):
            return take, None
        if skip in kinds:
            return skip, None
    raise ValueError(f"no decision for legal actions {legal!r}")  # pragma: no cover


def choose_action(state: HandState, seat: int, rng: random.Random | None = None) -> Action:
    """The built-in bot's action for ``seat`` (always legal), heads-up or R12 (the same
    decisions with 7-8 cards). ``rng`` is accepted for interface symmetry with
    :func:`random_action`; the bot is deterministic."""
    legal = legal_actions(state, seat)
    kind, card = decide(state.hands[seat], state.upcard, [(a.kind, a.card) for a in legal])
    return Action(kind, seat, card)


def choose_action_from_view(view: Mapping[str, Any]) -> dict[str, str | None]:
    """The built-in bot working from a ``player_view`` dict only (server bot, HTTP demo).

    Returns one of ``view["legal_actions"]`` as a client sends it back (kind and card, without
    a knock's ``deadwood``): ``{"kind": "discard", "card": "7H"}``.
    """
    hand = coerce_cards(view["hand"])
    pile = view["discard_pile"]
    top = coerce_cards(pile[-1:])[0] if pile else None
    offered = view["legal_actions"]
    legal = [
        (action["kind"], None if action.get("card") is None else coerce_cards([action["card"]])[0])
        for action in offered
    ]
    kind, card = decide(hand, top, legal)
    return {"kind": kind, "card": None if card is None else str(card)}


def random_action(state: HandState, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action (test player)."""
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError("no legal action: it is not this seat's turn")
    return rng.choice(legal)
