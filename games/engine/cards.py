"""R1 Cards: the 52-card deck, its text notation and deadwood values.

Internally a set of cards is also a 52-bit integer mask: bit ``card_index(card)`` is set when
the card is present. The index follows :data:`FULL_DECK`: suits in the order S, H, D, C, and
within a suit the ranks A..K, so ``index = 13 * suit_index + rank - 1``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter

from games.engine.errors import CardParseError, DuplicateCardError

SUITS: tuple[str, ...] = ("S", "H", "D", "C")  # R1; also the display order (sort_by_suit)
RANK_SYMBOLS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

_SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
_RANK_BY_SYMBOL = {symbol: rank for rank, symbol in enumerate(RANK_SYMBOLS, start=1)}
_RANK_BY_SYMBOL["10"] = 10  # R1: "also accept 10"
_TOKEN_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, eq=False, slots=True)
class Card:
    """One card (R1). ``rank`` 1..13 with the ace low (A=1, J=11, Q=12, K=13).

    ``index`` (derived, not compared) is the card's position in :data:`FULL_DECK` and its
    bit number in a card mask; ``bit`` is ``1 << index``.
    """

    rank: int
    suit: str
    index: int = field(init=False, repr=False, compare=False)
    bit: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if type(self.rank) is not int or not ACE <= self.rank <= KING:
            raise CardParseError(f"{self.rank}{self.suit}", "rank must be an int 1..13")
        if self.suit not in _SUIT_INDEX:
            raise CardParseError(f"{self.rank}{self.suit}", "suit must be one of S H D C")
        index = 13 * _SUIT_INDEX[self.suit] + self.rank - 1
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "bit", 1 << index)

    # Equality and hash by deck position (same as by rank and suit, and faster).
    def __eq__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return self.index

    def __str__(self) -> str:
        return RANK_SYMBOLS[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
"""The 52 cards in canonical order: AS 2S .. KS, AH .. KH, AD .. KD, AC .. KC."""

_CARD_BY_TEXT = {str(card): card for card in FULL_DECK}


card_bit = attrgetter("bit")
card_index = attrgetter("index")
"""Position of a card in :data:`FULL_DECK` (0..51): the sort key of the suit order."""


def card_value(card: Card) -> int:
    """R1 deadwood value: ace 1, 2-10 face value, J Q K 10."""
    return min(card.rank, 10)


def parse_card(token: str) -> Card:
    """Parse one R1 token such as ``AS``, ``td``, ``10D`` or ``kh``."""
    if type(token) is str:
        # Canonical text (stored states, the engine's own output) needs no normalising.
        card = _CARD_BY_TEXT.get(token)
        if card is not None:
            return card
    if not isinstance(token, str):
        raise CardParseError(repr(token), "not a string")
    text = token.strip().upper()
    if len(text) < 2:
        raise CardParseError(token, "too short")
    rank_text, suit = text[:-1], text[-1]
    rank = _RANK_BY_SYMBOL.get(rank_text)
    if rank is None:
        raise CardParseError(token, f"unknown rank {rank_text!r}")
    if suit not in _SUIT_INDEX:
        raise CardParseError(token, f"unknown suit {suit!r}")
    return _CARD_BY_TEXT[RANK_SYMBOLS[rank - 1] + suit]


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse whitespace- or comma-separated R1 tokens; duplicates are refused (one deck)."""
    if not isinstance(text, str):
        raise CardParseError(repr(text), "card text must be a string")
    tokens = [token for token in _TOKEN_SEPARATORS.split(text) if token]
    return ensure_distinct(parse_card(token) for token in tokens)


def ensure_distinct(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Return ``cards`` as a tuple, raising :class:`DuplicateCardError` on a repeated card."""
    result = tuple(cards)
    seen = 0  # a card mask: one bit per card (Card.bit)
    for card in result:
        if seen & card.bit:
            raise DuplicateCardError(card)
        seen |= card.bit
    return result


def coerce_cards(cards: str | Iterable[Card | str]) -> tuple[Card, ...]:
    """Accept card text, or an iterable of :class:`Card` or card tokens; refuse duplicates."""
    if isinstance(cards, str):
        return parse_cards(cards)
    return ensure_distinct(card if isinstance(card, Card) else parse_card(card) for card in cards)


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated R1 notation, in the given order: ``"AS TD KH"``."""
    return " ".join(str(card) for card in cards)


def card_texts(cards: Iterable[Card]) -> list[str]:
    """Cards as a JSON list of R1 text, in the given order (views, storage, results)."""
    return [str(card) for card in cards]


def card_text(card: Card | None) -> str | None:
    """One card as R1 text for JSON; None stays None."""
    return None if card is None else str(card)


def card_from_text(text: str | None) -> Card | None:
    """The reverse of :func:`card_text`: R1 text (or None) from stored JSON."""
    return None if text is None else coerce_cards([text])[0]


def sort_by_suit(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in display order: suits S, H, D, C, then rank (the :data:`FULL_DECK` order)."""
    return tuple(sorted(cards, key=card_index))


def cards_to_mask(cards: Iterable[Card]) -> int:
    """52-bit mask of ``cards`` (duplicates collapse; callers check distinctness first)."""
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


def mask_to_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a 52-bit mask, in :data:`FULL_DECK` order."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(FULL_DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(cards)
