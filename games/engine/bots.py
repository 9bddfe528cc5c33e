"""Built-in players: the house bot at its two levels, and a random player.

Both levels play heads-up and R12 (three and four seats) hands alike and use only what their
seat may see. ``easy`` (:func:`choose_action`, :func:`choose_action_from_view`) decides from
its own cards, the discard pile and its legal actions, so the same decision runs on a
:class:`~games.engine.state.HandState` or on a ``player_view`` dict; ``strong``
(:mod:`games.engine.strong_bot`) also remembers the hand's public events
(:mod:`games.engine.bot_memory`). :func:`choose_bot_action` plays either from a view.

``easy``, the greedy bot:

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

from games.engine.bot_memory import SeatMemory
from games.engine.cards import FULL_DECK, Card, card_value, cards_to_mask, coerce_cards
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
from games.engine.strong_bot import strong_choice_from_view

Choice = tuple[str, Card | None]  # (action kind, card)

BOT_EASY, BOT_STRONG = "easy", "strong"
BOT_LEVELS = (BOT_EASY, BOT_STRONG)


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


def choose_bot_action(
    view: Mapping[str, Any],
    *,
    level: str = BOT_EASY,
    memory: SeatMemory | None = None,
    first_to_knock: bool = False,
) -> dict[str, str | None]:
    """The house bot's move at ``level`` from its own ``player_view`` (and, for ``strong``,
    its :class:`~games.engine.bot_memory.SeatMemory` of the hand; without one it remembers
    nothing but what the view shows). ``first_to_knock``: the game is First To Knock (R10),
    where the first knock wins whatever the score. Returns one of the view's legal actions
    as a client sends it back. ``easy`` is exactly :func:`choose_action_from_view`."""
    if level == BOT_EASY:
        return choose_action_from_view(view)
    if level != BOT_STRONG:
        raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
    if memory is None:
        memory = SeatMemory.start(seat=view["seat"], seats=len(view["card_counts"]), upcard=None)
    kind, index = strong_choice_from_view(view, memory, first_to_knock=first_to_knock)
    return {"kind": kind, "card": None if index is None else str(FULL_DECK[index])}


def random_action(state: HandState, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action (test player)."""
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError("no legal action: it is not this seat's turn")
    return rng.choice(legal)
