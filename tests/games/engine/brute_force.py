"""An independent brute-force R2 solver for the tests: slow, obvious, shares no engine code."""

from functools import cache
from itertools import combinations


def value(card) -> int:
    return min(card.rank, 10)


def is_meld(cards) -> bool:
    """R2: 3-4 cards of one rank, or 3+ consecutive ranks of one suit (ace low, no wrap)."""
    if len(cards) < 3:
        return False
    ranks = sorted(card.rank for card in cards)
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    suits = {card.suit for card in cards}
    return len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(cards)))


def all_melds(hand) -> list[frozenset]:
    hand = list(hand)
    return [
        frozenset(group)
        for size in range(3, len(hand) + 1)
        for group in combinations(hand, size)
        if is_meld(group)
    ]


def min_deadwood(hand) -> int:
    """Minimum over every collection of disjoint melds of the unmelded value."""
    hand = frozenset(hand)
    melds = all_melds(hand)

    @cache
    def best(rest: frozenset) -> int:
        result = sum(value(card) for card in rest)
        for meld in melds:
            if meld <= rest:
                result = min(result, best(rest - meld))
        return result

    return best(hand)


def min_deadwood_11(hand) -> int:
    """R2: the exact best over the 11 possible discards."""
    hand = list(hand)
    return min(min_deadwood(hand[:i] + hand[i + 1 :]) for i in range(len(hand)))


def fits(meld: frozenset, card) -> bool:
    """R8: the card lays off onto the meld (4th card of a set, or extends a run)."""
    return card not in meld and is_meld(tuple(meld | {card}))


def defender_reply(knocker_melds, defender) -> int:
    """R8 by brute force: every reachable sequence of lay-offs (chains included), then the
    defender's own minimum deadwood on what is left; the minimum over all of them."""
    start = (frozenset(defender), tuple(frozenset(meld) for meld in knocker_melds))
    seen = set()
    best = None
    stack = [start]
    while stack:
        rest, melds = stack.pop()
        if (rest, melds) in seen:
            continue
        seen.add((rest, melds))
        own = min_deadwood(rest)
        best = own if best is None else min(best, own)
        for card in rest:
            for i, meld in enumerate(melds):
                if fits(meld, card):
                    grown = (*melds[:i], meld | {card}, *melds[i + 1 :])
                    stack.append((rest - {card}, grown))
    return best


def knocker_splits(knocker, limit: int):
    """Every collection of disjoint melds of the knocker's cards with deadwood <= limit."""
    hand = frozenset(knocker)
    melds = all_melds(hand)
    found = []

    def collect(rest, chosen, start):
        if sum(value(card) for card in rest) <= limit:
            found.append((tuple(chosen), sum(value(card) for card in rest)))
        for i in range(start, len(melds)):
            if melds[i] <= rest:
                collect(rest - melds[i], [*chosen, melds[i]], i + 1)

    collect(hand, [], 0)
    return found
