"""What one seat has seen of a hand: the memory the ``strong`` bot decides from.

Built only from the hand's events as that seat receives them (``event_view`` dicts: a stock
draw's card is hidden from everybody but the drawer) and the upcard, which is face up (R3).
Nothing here can read another seat's hand, the stock order or the seed, so a bot that decides
from a ``player_view`` and this memory sees no more than a person at that seat.

What it keeps, per seat: the cards that seat took from the discard pile and has not put down
since (they are in its hand: public knowledge, R5), the cards it declined (passed on at the
upcard offer, R4, or left on top of the pile by drawing from the stock), how many cards it
has put down and the last of them. It also follows the discard pile, so it knows which card
was on top when a seat declined it; R7's reshuffle leaves only the top card in the pile.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.engine.cards import Card, coerce_cards
from games.engine.state import (
    DISCARD_CARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    STOCK_RESHUFFLED,
    TAKE_UPCARD,
)

UNKNOWN = -1  # a card this seat never saw (the upcard of a memory started without it)


def _index(card: Card | str | None) -> int:
    return UNKNOWN if card is None else coerce_cards([card])[0].index


def _with(values: tuple[int, ...], seat: int, value: int) -> tuple[int, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


@dataclass(frozen=True, slots=True)
class SeatMemory:
    """One seat's memory of a hand; masks are 52-bit card masks, one entry per seat.

    ``held``: cards each seat took from the discard pile and still holds; ``declined``: cards
    each seat passed on or left on the pile; ``turns``: how many cards each seat has put down
    (discards and the knock card); ``last``: the index of the last of them (:data:`UNKNOWN`
    before the first); ``pile``: the discard pile as followed from the events, bottom first
    (:data:`UNKNOWN` where this seat never saw the card)."""

    seat: int
    held: tuple[int, ...]
    declined: tuple[int, ...]
    turns: tuple[int, ...]
    last: tuple[int, ...]
    pile: tuple[int, ...]

    @classmethod
    def start(cls, *, seat: int, seats: int, upcard: Card | str | None) -> SeatMemory:
        """A fresh memory at the deal: nothing seen but the upcard (None: not known)."""
        empty = (0,) * seats
        return cls(
            seat=seat,
            held=empty,
            declined=empty,
            turns=empty,
            last=(UNKNOWN,) * seats,
            pile=(_index(upcard),),
        )

    @property
    def top(self) -> int:
        """The index of the card on top of the pile (:data:`UNKNOWN` when not known)."""
        return self.pile[-1] if self.pile else UNKNOWN

    def observe(self, event: Mapping[str, Any]) -> SeatMemory:
        """The memory after ``event`` (an ``event_view`` dict as this seat sees it)."""
        kind = event.get("kind")
        actor = event.get("seat")
        if kind == STOCK_RESHUFFLED:  # R7: the pile except its top card went into the stock
            return replace(self, pile=self.pile[-1:])
        if type(actor) is not int or not 0 <= actor < len(self.held):
            return self
        card = _index(event.get("card"))
        bit = 0 if card == UNKNOWN else 1 << card
        if kind in (TAKE_UPCARD, DRAW_DISCARD):
            return replace(
                self, held=_with(self.held, actor, self.held[actor] | bit), pile=self.pile[:-1]
            )
        if kind in (PASS, DRAW_STOCK):
            if self.top == UNKNOWN:
                return self
            declined = self.declined[actor] | 1 << self.top
            return replace(self, declined=_with(self.declined, actor, declined))
        if kind in (DISCARD_CARD, KNOCK) and card != UNKNOWN:
            return replace(
                self,
                held=_with(self.held, actor, self.held[actor] & ~bit),
                turns=_with(self.turns, actor, self.turns[actor] + 1),
                last=_with(self.last, actor, card),
                pile=(*self.pile, card) if kind == DISCARD_CARD else self.pile,
            )
        return self

    def observe_all(self, events: Iterable[Mapping[str, Any]]) -> SeatMemory:
        memory = self
        for event in events:
            memory = memory.observe(event)
        return memory


def seat_memory(
    *, seat: int, seats: int, upcard: Card | str | None, events: Iterable[Mapping[str, Any]]
) -> SeatMemory:
    """The memory of ``seat`` after ``events`` (its own ``event_view`` of each, in order)."""
    return SeatMemory.start(seat=seat, seats=seats, upcard=upcard).observe_all(events)
