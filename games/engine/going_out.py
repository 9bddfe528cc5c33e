"""Going out (R6), showing and laying off (R8) and scoring a heads-up hand (R9).

The showdown's steps (the knocker's splits within the limit, the lay-off groups a meld
offers, choosing the knocker's melds against each opponent's best reply, showing them and
answering with lay-offs) are the same for every seat count; R12's penalty scoring
(:mod:`games.engine.showdown`) uses them as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from games.engine.cards import (
    FULL_DECK,
    Card,
    cards_to_mask,
    coerce_cards,
    mask_to_cards,
)
from games.engine.errors import DuplicateCardError, InvalidHandError, KnockOverLimitError
from games.engine.melds import (
    ALL_MELD_MASKS,
    CARD_VALUES,
    MELDS_BY_CARD,
    Meld,
    arrangement_of_mask,
    best_split,
    meld_from_mask,
    sort_melds,
)
from games.engine.records import Record
from games.engine.rules import RuleSet
from games.engine.solver import min_deadwood_mask

KnockKind = Literal["knock", "gin", "big_gin", "undercut"]
Side = Literal["knocker", "defender"]
_MELD_MASKS = frozenset(ALL_MELD_MASKS)


@dataclass(frozen=True, slots=True)
class Layoff(Record):
    """R8: one defender card added to the knocker's meld ``meld_index`` (in ``knocker_melds``).

    Lay-offs are listed in an order in which each one is legal when made (chains: 9 then 10
    onto 6-7-8).
    """

    card: Card
    meld_index: int


@dataclass(frozen=True, slots=True)
class KnockResult(Record):
    """The showdown of a hand that someone went out of (R6, R8, R9).

    ``winner`` is the side that scores ``points``; ``None`` only for an R9 ``no_score`` tie.
    ``defender_deadwood`` is after lay-offs (none against Gin or Big Gin).
    """

    kind: KnockKind
    winner: Side | None
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    knocker_melds: tuple[Meld, ...]
    defender_melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    knocker_deadwood_cards: tuple[Card, ...]
    defender_deadwood_cards: tuple[Card, ...]


def score_knock(
    knocker_deadwood: int, defender_deadwood: int, rules: RuleSet
) -> tuple[KnockKind, Side | None, int]:
    """R9 for a knock (not Gin): ``(kind, winner, points)``.

    ``D > K``: the knocker scores ``D - K``. ``D <= K``: undercut, the defender scores
    ``K - D + undercut bonus``; with ``tie_rule="no_score"`` a tie ``D == K`` scores nothing.
    """
    k, d = knocker_deadwood, defender_deadwood
    if d > k:
        return "knock", "knocker", d - k
    if d == k and rules.tie_rule == "no_score":
        return "knock", None, 0
    return "undercut", "defender", k - d + rules.undercut_bonus


def layoff_chains(meld: int) -> tuple[tuple[int, ...], ...]:
    """R8: the lay-off groups a knocker meld offers, each as its cards' bits in laying order.

    A three-card set takes its rank's fourth card; a four-card set takes nothing. A run takes
    a chain down from its low end and a chain up from its high end (chains: 9 then 10 onto
    6-7-8); the ace is low only and runs never wrap (R1), so chains stop at A and K.
    """
    cards = mask_to_cards(meld)
    if cards[0].rank == cards[-1].rank:
        if len(cards) == 4:
            return ()
        column = {FULL_DECK[13 * suit + cards[0].rank - 1] for suit in range(4)}
        (missing,) = column - set(cards)
        return ((1 << missing.index,),)
    low, high = cards[0].index, cards[-1].index
    first_of_suit = low - (cards[0].rank - 1)
    down = tuple(1 << index for index in range(low - 1, first_of_suit - 1, -1))
    up = tuple(1 << index for index in range(high + 1, first_of_suit + 13))
    chains = [down[:length] for length in range(1, len(down) + 1)]
    chains += [up[:length] for length in range(1, len(up) + 1)]
    return tuple(chains)


LayoffGroup = tuple[int, int, tuple[int, ...]]  # mask, meld index, card bits in laying order


def layoff_groups(knocker_melds: tuple[int, ...], defender: int) -> list[LayoffGroup]:
    """R8: the lay-off groups ``(mask, meld_index, bits in order)`` the cards in ``defender``
    can make onto ``knocker_melds`` (masks, in display order): a set's fourth card, a chain
    down from a run's low end or up from its high end."""
    groups: list[LayoffGroup] = []
    for meld_index, meld in enumerate(knocker_melds):
        for chain in layoff_chains(meld):
            mask = sum(chain)
            if mask & defender == mask:
                groups.append((mask, meld_index, chain))
    return groups


def knocker_splits(mask: int, limit: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """R8: every split of the knocker's cards into melds with deadwood <= the knock limit.

    Each split is produced once: the lowest remaining card is either covered by one meld
    containing it or left as deadwood. Branches that cannot get within the limit are cut
    using the exact minimum deadwood of the remaining cards.
    """
    stack: list[tuple[int, tuple[int, ...], int]] = [(mask, (), 0)]
    while stack:
        rest, melds, free_value = stack.pop()
        if not rest:
            yield melds, free_value
            continue
        if free_value + min_deadwood_mask(rest) > limit:
            continue
        low = rest & -rest
        index = low.bit_length() - 1
        children = [
            (rest ^ meld, (*melds, meld), free_value)
            for meld in MELDS_BY_CARD[index]
            if meld & rest == meld
        ]
        children.append((rest ^ low, melds, free_value + CARD_VALUES[index]))
        stack.extend(reversed(children))


def _validate_hands(
    knocker_cards: str | Iterable[Card | str], defender_cards: str | Iterable[Card | str]
) -> tuple[int, int]:
    knocker = coerce_cards(knocker_cards)
    defender = coerce_cards(defender_cards)
    if len(knocker) not in (10, 11):
        raise InvalidHandError(
            f"the knocker shows 10 cards (11 for Big Gin, R6), got {len(knocker)}"
        )
    if len(defender) != 10:
        raise InvalidHandError(f"the defender holds 10 cards, got {len(defender)}")
    shared = set(knocker) & set(defender)
    if shared:
        raise DuplicateCardError(min(shared, key=lambda card: card.index))
    return cards_to_mask(knocker), cards_to_mask(defender)


def settle_knock(
    knocker_cards: str | Iterable[Card | str],
    defender_cards: str | Iterable[Card | str],
    rules: RuleSet = RuleSet(),  # noqa: B008 - RuleSet is frozen, a shared default is safe
) -> KnockResult:
    """Show, lay off and score a hand that the knocker goes out of (R6, R8, R9).

    ``knocker_cards``: the 10 cards shown after the knock card is put down, or all 11 for
    Big Gin. ``defender_cards``: the defender's 10 cards.
    """
    knocker, defender = _validate_hands(knocker_cards, defender_cards)
    if knocker.bit_count() == 11:
        melded = min_deadwood_mask(knocker)
        if melded:
            raise InvalidHandError(
                f"Big Gin needs all 11 cards melded (R6); these leave {melded} deadwood"
            )
        return _settle_gin(knocker, defender, "big_gin", rules.big_gin_bonus)
    knocker_deadwood = min_deadwood_mask(knocker)
    if knocker_deadwood > rules.knock_limit:
        raise KnockOverLimitError(deadwood=knocker_deadwood, limit=rules.knock_limit)
    if knocker_deadwood == 0:
        return _settle_gin(knocker, defender, "gin", rules.gin_bonus)
    return _settle_knock(knocker, defender, rules)


def _settle_gin(knocker: int, defender: int, kind: KnockKind, bonus: int) -> KnockResult:
    """R9 Gin / Big Gin: ``D + bonus`` with D the defender's own deadwood (R8: no lay-offs)."""
    shown = arrangement_of_mask(knocker)
    reply = arrangement_of_mask(defender)
    return KnockResult(
        kind=kind,
        winner="knocker",
        points=reply.deadwood + bonus,
        knocker_deadwood=0,
        defender_deadwood=reply.deadwood,
        knocker_melds=shown.melds,
        defender_melds=reply.melds,
        layoffs=(),
        knocker_deadwood_cards=(),
        defender_deadwood_cards=reply.deadwood_cards,
    )


def _settle_knock(knocker: int, defender: int, rules: RuleSet) -> KnockResult:
    """R8: the knocker shows the split that scores best given the defender's best reply:
    the most points won (or the fewest conceded), then the lower knocker deadwood, then the
    first split found (deterministic)."""

    def points_won(knocker_deadwood: int, replies: Sequence[int]) -> int:
        _, winner, points = score_knock(knocker_deadwood, replies[0], rules)
        return points if winner == "knocker" else -points

    melds = best_knocker_melds(
        knocker, (defender,), limit=rules.knock_limit, gain=points_won, ties_to_smallest=False
    )
    return _show_knock(knocker, defender, melds, rules)


def _show_knock(knocker: int, defender: int, melds: tuple[int, ...], rules: RuleSet) -> KnockResult:
    """Build the :class:`KnockResult` for the chosen knocker melds."""
    knocker_melds, ordered, knocker_free, knocker_deadwood = show_melds(knocker, melds)
    defender_deadwood, defender_melds, layoffs, defender_free = lay_off_reply(defender, ordered)
    kind, winner, points = score_knock(knocker_deadwood, defender_deadwood, rules)
    return KnockResult(
        kind=kind,
        winner=winner,
        points=points,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        knocker_melds=knocker_melds,
        defender_melds=defender_melds,
        layoffs=layoffs,
        knocker_deadwood_cards=mask_to_cards(knocker_free),
        defender_deadwood_cards=mask_to_cards(defender_free),
    )


# The steps of a showdown below are the same whatever the seat count: R12's showdown
# (games.engine.showdown) chooses and shows the knocker's melds and answers each opponent
# with them, each on its own.


def best_knocker_melds(
    knocker: int,
    opponents: Sequence[int],
    *,
    limit: int,
    gain: Callable[[int, Sequence[int]], int],
    ties_to_smallest: bool,
) -> tuple[int, ...]:
    """R8 (R12): the knocker's melds, as meld masks. Every split of ``knocker`` within the
    knock ``limit`` is scored against each opponent's best reply (its own melds and lay-offs
    onto the split, found on its own: one opponent's lay-offs never help another): ``gain``
    says what the split is worth to the knocker, from the knocker's deadwood and the
    opponents' deadwood after lay-offs. The best gain wins, then the lower knocker deadwood,
    then the first split found, or with ``ties_to_smallest`` (R12) the split whose melds, as
    the ascending tuple of their 52-bit masks, compare smallest."""
    replies: dict[tuple[int, tuple[int, ...]], int] = {}
    best_key: tuple[int, int] | None = None
    best_melds: tuple[int, ...] = ()
    for melds, knocker_deadwood in knocker_splits(knocker, limit):
        answers = []
        for opponent in opponents:
            groups = tuple(mask for mask, _, _ in layoff_groups(melds, opponent))
            reply = replies.get((opponent, groups))
            if reply is None:
                reply = replies[opponent, groups] = best_split(opponent, groups)[0]
            answers.append(reply)
        key = (gain(knocker_deadwood, answers), -knocker_deadwood)
        if ties_to_smallest:
            melds = tuple(sorted(melds))
            if best_key is None or key > best_key or (key == best_key and melds < best_melds):
                best_key, best_melds = key, melds
        elif best_key is None or key > best_key:
            best_key, best_melds = key, melds
    return best_melds


def show_melds(
    knocker: int, melds: tuple[int, ...]
) -> tuple[tuple[Meld, ...], tuple[int, ...], int, int]:
    """R8: the knocker shows ``melds`` (masks) from the cards in ``knocker``: the melds in
    display order, their masks in that order (what ``Layoff.meld_index`` counts in), the
    mask of the cards left over and their deadwood."""
    knocker_melds = sort_melds(meld_from_mask(meld) for meld in melds)
    ordered = tuple(meld.mask for meld in knocker_melds)
    free = knocker
    for meld in ordered:
        free ^= meld
    deadwood = sum(CARD_VALUES[card.index] for card in mask_to_cards(free))
    return knocker_melds, ordered, free, deadwood


def lay_off_reply(
    defender: int, ordered: tuple[int, ...]
) -> tuple[int, tuple[Meld, ...], tuple[Layoff, ...], int]:
    """R8: the defender's own melds and lay-offs onto the knocker's melds ``ordered`` (in
    display order), chosen together for minimum deadwood: ``(deadwood, own melds, lay-offs
    in an order in which each is legal, mask of the cards left over)``."""
    groups = layoff_groups(ordered, defender)
    deadwood, chosen = best_split(defender, tuple(mask for mask, _, _ in groups))
    own: list[Meld] = []
    layoffs: list[Layoff] = []
    free = defender
    for group in chosen:
        free ^= group
        if group in _MELD_MASKS:
            own.append(meld_from_mask(group))
            continue
        # A lay-off group that is no meld of its own: find the knocker meld it extends.
        _, meld_index, chain = next(entry for entry in groups if entry[0] == group)
        layoffs.extend(Layoff(FULL_DECK[bit.bit_length() - 1], meld_index) for bit in chain)
    layoffs.sort(key=lambda layoff: layoff.meld_index)
    return deadwood, sort_melds(own), tuple(layoffs), free
