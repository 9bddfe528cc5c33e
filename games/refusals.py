"""A refused move in the player's words and language (docs/api-errors.md "Languages").

The engine (standard library only) explains a refusal to a developer: action kinds, phases,
rule numbers. A player reads this instead: what the move was and what to do now, built
from the state the move was refused in, in the active language, with card names and
numbers written for it.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext, pgettext_lazy

from games import engine
from games.engine.state import (
    BIG_GIN,
    CARD_ACTIONS,
    DISCARD,
    DISCARD_CARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    ENDED,
    KNOCK,
    PASS,
    TAKE_UPCARD,
    UPCARD_OFFER,
)
from gin_platform.i18n.formatting import number_text

_RANKS: dict[int, Promise] = {
    1: pgettext_lazy("card rank", "ace"),
    11: pgettext_lazy("card rank", "jack"),
    12: pgettext_lazy("card rank", "queen"),
    13: pgettext_lazy("card rank", "king"),
}
_SUITS: dict[str, Promise] = {
    "S": pgettext_lazy("card suit", "spades"),
    "H": pgettext_lazy("card suit", "hearts"),
    "D": pgettext_lazy("card suit", "diamonds"),
    "C": pgettext_lazy("card suit", "clubs"),
}

# What the player may do in each phase, said when a move of another phase is sent.
_UPCARD_OFFER_MOVES: dict[str, Promise] = {
    DRAW_STOCK: gettext_lazy("You cannot draw from the stock yet: take the upcard or pass first."),
    DRAW_DISCARD: gettext_lazy("The upcard is on offer: take it or pass."),
    DISCARD_CARD: gettext_lazy("You cannot discard yet: take the upcard or pass first."),
    KNOCK: gettext_lazy("You cannot knock yet: take the upcard or pass first."),
    BIG_GIN: gettext_lazy("You cannot go Big Gin yet: take the upcard or pass first."),
}
_DRAW_MOVES: dict[str, Promise] = {
    TAKE_UPCARD: gettext_lazy(
        "The upcard is no longer on offer: draw from the stock or the discard pile."
    ),
    PASS: gettext_lazy("You cannot pass now: draw from the stock or the discard pile."),
    DISCARD_CARD: gettext_lazy("You cannot discard yet: draw a card first."),
    KNOCK: gettext_lazy("You cannot knock yet: draw a card first."),
    BIG_GIN: gettext_lazy("You cannot go Big Gin now: draw a card first."),
}
_DRAWN_ALREADY = gettext_lazy("You have already drawn this turn: discard a card, or knock.")
_PHASE_MOVES: dict[str, dict[str, Promise]] = {
    UPCARD_OFFER: _UPCARD_OFFER_MOVES,
    DRAW: _DRAW_MOVES,
    DISCARD: {kind: _DRAWN_ALREADY for kind in (TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD)},
}


def card_name(card: engine.Card) -> str:
    """``card`` as a player reads it in the active language: "queen of spades"."""
    rank = _RANKS.get(card.rank)
    return pgettext("card", "%(rank)s of %(suit)s") % {
        "rank": str(rank) if rank is not None else number_text(card.rank),
        "suit": str(_SUITS[card.suit]),
    }


def not_your_turn_detail() -> str:
    return gettext("It is not your turn: wait for the other players to play.")


def knock_over_limit_detail(*, deadwood: int, limit: int) -> str:
    return gettext(
        "You cannot knock with %(deadwood)s points of deadwood: the limit is %(limit)s. "
        "Discard a card instead."
    ) % {"deadwood": number_text(deadwood), "limit": number_text(limit)}


def illegal_move_detail(*, state: engine.HandState, action: engine.Action) -> str:
    """Why ``action`` may not be played in ``state`` (the engine refused it with
    IllegalActionError), said to the player who sent it."""
    if state.phase == ENDED:
        return gettext("This hand is over: wait for the next deal.")
    card = action.card
    if action.kind in CARD_ACTIONS and card is not None:
        if state.taken_from_discard is not None and card == state.taken_from_discard:
            return gettext(
                "You took this card from the discard pile this turn, so you cannot put it "
                "down now: %(card)s."
            ) % {"card": card_name(card)}
        if card not in state.hands[action.seat]:
            return gettext("This card is not in your hand: %(card)s.") % {"card": card_name(card)}
    if action.kind == DRAW_DISCARD and state.phase == DRAW and state.stock_only:
        return gettext("Everybody passed the upcard: draw from the stock.")
    if action.kind == BIG_GIN and state.phase == DISCARD:
        return gettext("You cannot go Big Gin: all %(count)s of your cards must make melds.") % {
            "count": number_text(state.rules.seat_rules.held_after_drawing)
        }
    refusal = _PHASE_MOVES.get(state.phase, {}).get(action.kind)
    if refusal is not None:
        return str(refusal)
    if action.kind in CARD_ACTIONS and card is None:
        return gettext("Choose the card to put down.")
    if card is not None and action.kind not in CARD_ACTIONS:
        return gettext("Only a discard or a knock names a card: send this move without one.")
    return gettext("That move is not allowed now.")


def match_not_in_progress_detail(status: str) -> str:
    """Why a game of this status takes no move (``Match.Status``)."""
    if status == "waiting":
        return gettext("This game has not started yet: it is waiting for players.")
    if status == "suspended":
        return gettext("This game is interrupted: no move can be played until it is decided.")
    return gettext("This game is over.")
