"""R2 Melds: sets and runs, deadwood and the best arrangement of a hand.

``deadwood`` uses the table-driven solver in :mod:`games.engine.solver`; ``best_arrangement``
uses an exact search over the 329 possible melds (precomputed as 52-bit masks) that also
returns the melds. Both are exact; the tests check them against each other and against a
brute-force solver.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from games.engine.cards import (
    FULL_DECK,
    SUITS,
    Card,
    card_bit,
    card_value,
    cards_to_mask,
    coerce_cards,
    mask_to_cards,
)
from games.engine.errors import InvalidHandError
from games.engine.records import Record
from games.engine.solver import (
    ABOVE_ANY_DEADWOOD,
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)

MeldKind = Literal["set", "run"]
CARD_VALUES: tuple[int, ...] = tuple(card_value(card) for card in FULL_DECK)
# Arrangements kept per process (arrangement_of_mask): a few MB at most.
ARRANGEMENTS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class Meld(Record):
    """R2: a set (3-4 cards of one rank) or a run (3+ consecutive cards of one suit).

    ``cards`` are sorted: a run by rank, a set by suit (S, H, D, C).
    """

    kind: MeldKind
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if not is_valid_meld(self.kind, self.cards):
            raise InvalidHandError(f"not a valid {self.kind}: {' '.join(map(str, self.cards))}")

    def __str__(self) -> str:
        return " ".join(str(card) for card in self.cards)

    @property
    def mask(self) -> int:
        return cards_to_mask(self.cards)


def is_valid_meld(kind: str, cards: tuple[Card, ...]) -> bool:
    """R2 validity of a meld, including the canonical (sorted) card order."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if kind == "set":
        return (
            len(cards) <= 4
            and len({card.rank for card in cards}) == 1
            and list(cards) == sorted(cards, key=lambda card: card.index)
        )
    if kind == "run":
        # R1: the ace is low only and runs never wrap, so ranks must be n, n+1, ... within 1..13.
        first = cards[0]
        return all(
            card.suit == first.suit and card.rank == first.rank + offset
            for offset, card in enumerate(cards)
        )
    return False


def meld_from_mask(mask: int) -> Meld:
    """The :class:`Meld` made of exactly the cards in ``mask`` (which must form one)."""
    cards = mask_to_cards(mask)
    kind: MeldKind = "set" if len({card.rank for card in cards}) == 1 else "run"
    return Meld(kind=kind, cards=cards)


def _all_meld_masks() -> tuple[int, ...]:
    """Every possible meld of the deck as a mask: 264 runs and 65 sets (329 in all)."""
    masks = []
    for suit_index in range(len(SUITS)):
        base = 13 * suit_index
        for low in range(13):
            for high in range(low + 2, 13):
                masks.append(sum(1 << (base + r) for r in range(low, high + 1)))
    for r in range(13):
        column = [1 << (13 * suit_index + r) for suit_index in range(len(SUITS))]
        masks.append(sum(column))
        masks.extend(sum(column) ^ bit for bit in column)
    return tuple(masks)


ALL_MELD_MASKS: tuple[int, ...] = _all_meld_masks()
MELDS_BY_CARD: tuple[tuple[int, ...], ...] = tuple(
    tuple(meld for meld in ALL_MELD_MASKS if meld >> index & 1) for index in range(52)
)


@dataclass(frozen=True, slots=True)
class Arrangement(Record):
    """A split of a hand into melds and deadwood (R2).

    For 11 cards, ``discard`` is the card whose discard reaches ``deadwood`` and is neither
    in ``melds`` nor in ``deadwood_cards``; for 10 cards it is ``None``.
    """

    melds: tuple[Meld, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int
    discard: Card | None = None


def _fast_mask(cards: str | Iterable[Card | str]) -> int | None:
    """Mask of a tuple or list of distinct :class:`Card` objects; None for anything else.

    The cards' bits are added in C (``sum``). A repeated card carries into another bit, so
    the sum has fewer set bits than there are cards: distinctness is one comparison.
    """
    if cards.__class__ is not tuple and cards.__class__ is not list:
        return None
    try:
        mask = sum(map(card_bit, cards))
    except (AttributeError, TypeError):  # card text, or not cards at all
        return None
    return mask if mask.bit_count() == len(cards) else None


def hand_mask(cards: str | Iterable[Card | str], sizes: tuple[int, ...] = (10, 11)) -> int:
    """Validate a hand (distinct cards, allowed size) and return its mask."""
    mask = _fast_mask(cards)
    if mask is None:  # slow path: parse text, name the bad or repeated card
        mask = cards_to_mask(coerce_cards(cards))
    count = mask.bit_count()
    if count not in sizes:
        allowed = " or ".join(str(size) for size in sizes)
        raise InvalidHandError(f"a hand here has {allowed} cards, got {count}")
    return mask


def deadwood(cards: str | Iterable[Card | str]) -> int:
    """R2: exact minimum deadwood of 10 cards, or of 11 cards after the best discard.

    ``cards``: :class:`Card` objects or R1 text; duplicates and other sizes are refused.
    """
    if cards.__class__ is tuple or cards.__class__ is list:  # fast path, as in _fast_mask
        try:
            mask = sum(map(card_bit, cards))
        except (AttributeError, TypeError):
            mask = -1
        count = len(cards)
        if mask.bit_count() == count:
            if count == 10:
                return min_deadwood_mask(mask)
            if count == 11:
                return min_deadwood_after_discard_mask(mask)
    mask = hand_mask(cards)
    if mask.bit_count() == 11:
        return min_deadwood_after_discard_mask(mask)
    return min_deadwood_mask(mask)


def melded_deadwood(cards: str | Iterable[Card | str]) -> int:
    """R2 minimum deadwood of all the given cards, with no discard (e.g. Big Gin is 0 on 11)."""
    return min_deadwood_mask(cards_to_mask(coerce_cards(cards)))


def best_split(mask: int, extra_groups: tuple[int, ...] = ()) -> tuple[int, tuple[int, ...]]:
    """Exact minimum free value of ``mask`` and the groups reaching it.

    The groups are the melds inside ``mask`` plus ``extra_groups`` (used for lay-offs, R8).
    Search: take the lowest remaining card; it is either left free or covered by one group
    containing it; memoised on the remaining mask. Ties keep the first found, melds before
    leaving a card free, so the result is deterministic.
    """
    groups_by_card: dict[int, list[int]] = {}
    for group in extra_groups:
        if group & mask == group:
            low = group
            while low:
                bit = low & -low
                groups_by_card.setdefault(bit.bit_length() - 1, []).append(group)
                low ^= bit
    memo: dict[int, tuple[int, int]] = {0: (0, 0)}

    def search(rest: int) -> int:
        found = memo.get(rest)
        if found is not None:
            return found[0]
        low = rest & -rest
        index = low.bit_length() - 1
        best_value, best_group = ABOVE_ANY_DEADWOOD, 0
        for group in (*MELDS_BY_CARD[index], *groups_by_card.get(index, ())):
            if group & rest == group:
                value = search(rest ^ group)
                if value < best_value:
                    best_value, best_group = value, group
        free_value = CARD_VALUES[index] + search(rest ^ low)
        if free_value < best_value:
            best_value, best_group = free_value, 0
        memo[rest] = (best_value, best_group)
        return best_value

    total = search(mask)
    groups = []
    rest = mask
    while rest:
        group = memo[rest][1]
        if group:
            groups.append(group)
            rest ^= group
        else:
            rest ^= rest & -rest
    return total, tuple(groups)


def sort_melds(melds: Iterable[Meld]) -> tuple[Meld, ...]:
    """Display order: by the meld's lowest rank, then its first card's suit order."""
    return tuple(sorted(melds, key=lambda meld: (meld.cards[0].rank, meld.cards[0].index)))


@lru_cache(maxsize=ARRANGEMENTS_KEPT)
def arrangement_of_mask(mask: int) -> Arrangement:
    """Best arrangement (R2) of all the cards in ``mask``, with no discard.

    Kept for the last ``ARRANGEMENTS_KEPT`` hands (an Arrangement is immutable): a player's
    view shows the arrangement of their own cards, which a move of the opponent leaves as
    it was, so the view each player reads after the other's move (and each push) works out
    nothing again; a move's answer after a draw reuses the arrangement its best discard
    already found."""
    total, groups = best_split(mask)
    melded = 0
    for group in groups:
        melded |= group
    return Arrangement(
        melds=sort_melds(meld_from_mask(group) for group in groups),
        deadwood_cards=mask_to_cards(mask ^ melded),
        deadwood=total,
    )


def best_arrangement(cards: str | Iterable[Card | str], *, keep: Card | None = None) -> Arrangement:
    """R2: the best arrangement of 10 cards, or of 11 cards with the discard that reaches it.

    For 11 cards every discard is tried and the lowest deadwood wins; ties go to the
    highest-value discard, then to the later card in deck order (deterministic). ``keep`` is
    a card that may not be discarded (R5: the one just taken from the discard pile).
    """
    return arrangement_of_hand(hand_mask(cards), hand_size=10, keep=keep)


def arrangement_of_hand(mask: int, *, hand_size: int, keep: Card | None = None) -> Arrangement:
    """The best arrangement (R2) of the ``hand_size`` cards in ``mask`` (10, or 7 in R12), or
    of ``hand_size + 1`` cards after the best discard, never ``keep`` (ties as in
    :func:`best_arrangement`)."""
    if mask.bit_count() == hand_size:
        return arrangement_of_mask(mask)
    return _arrangement_after_discard(mask, keep)


def _arrangement_after_discard(mask: int, keep: Card | None) -> Arrangement:
    """The best arrangement after the best discard (ties as in :func:`best_arrangement`)."""
    discard = min(
        (card for card in mask_to_cards(mask) if keep is None or card.index != keep.index),
        key=lambda card: (
            min_deadwood_mask(mask ^ 1 << card.index),
            -card_value(card),
            -card.index,
        ),
    )
    arrangement = arrangement_of_mask(mask ^ 1 << discard.index)
    return Arrangement(
        melds=arrangement.melds,
        deadwood_cards=arrangement.deadwood_cards,
        deadwood=arrangement.deadwood,
        discard=discard,
    )


R12_SIZES = (7, 8)  # R12: seven cards held, eight after drawing


def seven_card_deadwood(cards: str | Iterable[Card | str]) -> int:
    """R12 (R2 with seven cards): exact minimum deadwood of 7 cards, or of 8 cards after the
    best of the 8 discards. The 8-card figure uses the same table solver as 11 cards: like 11,
    8 is not a multiple of 3, so 8 melded cards always include a meld of 4+ cards and the
    solver's best-discard argument holds (docs/engine.md)."""
    mask = hand_mask(cards, R12_SIZES)
    if mask.bit_count() == 8:
        return min_deadwood_after_discard_mask(mask)
    return min_deadwood_mask(mask)


def best_arrangement_r12(
    cards: str | Iterable[Card | str], *, keep: Card | None = None
) -> Arrangement:
    """R12: :func:`best_arrangement` for 7 cards, or 8 cards with the discard reaching the
    minimum (same tie rules; ``keep`` may not be discarded)."""
    return arrangement_of_hand(hand_mask(cards, R12_SIZES), hand_size=7, keep=keep)
