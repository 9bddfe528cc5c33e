"""An independent brute-force R12 showdown for the tests: slow, obvious, no engine code.

Straight from the words of R12 (docs/rules.md): every split of the knocker's cards into
disjoint melds within the knock limit; for each, every opponent on its own tries every
sequence of lay-offs onto the knocker's melds as shown plus its own earlier lay-offs (chains),
then melds what is left as well as it can; the penalties follow R12's formulas; the split with
the highest (opponents' penalties - knocker's penalty) wins, then the lower knocker deadwood,
then the smallest ascending tuple of meld bit masks (bit 13 * suit + rank - 1, suits S H D C:
the documented tie-break).
"""

from tests.games.engine.brute_force import (
    defender_reply,
    is_meld,
    knocker_splits,
    min_deadwood,
    value,
)

SUIT_ORDER = "SHDC"


def bit_mask(cards) -> int:
    return sum(1 << (13 * SUIT_ORDER.index(card.suit) + card.rank - 1) for card in cards)


def turn_order(knocker: int, hands) -> list[int]:
    """Opponents still in, clockwise from the knocker's left."""
    seats = len(hands)
    order = []
    seat = (knocker + 1) % seats
    while seat != knocker:
        if hands[seat] is not None:
            order.append(seat)
        seat = (seat + 1) % seats
    return order


def penalties_for(knocker, k, answers, seats, undercut_bonus):
    """R12 scoring of a knock: answers is [(seat, D)] in turn order from the knocker's left."""
    penalties = [0] * seats
    if all(d > k for _, d in answers):
        for seat, d in answers:
            penalties[seat] = d - k
        return "knock", knocker, penalties
    lowest = min(d for _, d in answers)
    undercutter = next(seat for seat, d in answers if d == lowest)  # first in turn order
    for seat, d in answers:
        if seat != undercutter:
            penalties[seat] = max(0, d - lowest)
    penalties[knocker] = max(0, k - lowest) + undercut_bonus
    return "undercut", undercutter, penalties


def showdown(knocker, hands, *, limit=10, gin_bonus=25, big_gin_bonus=31, undercut_bonus=25):
    """R12 by brute force. ``hands`` per seat (None: out); the knocker's is 7 cards shown, or
    8 for Big Gin. Returns a dict with kind, winner, penalties, deadwood and knocker_melds
    (a set of frozensets; None for Gin / Big Gin, whose melds are not chosen)."""
    seats = len(hands)
    order = turn_order(knocker, hands)
    shown = list(hands[knocker])
    deadwood = [None] * seats
    if len(shown) == 8 or min_deadwood(shown) == 0:
        kind, bonus = ("big_gin", big_gin_bonus) if len(shown) == 8 else ("gin", gin_bonus)
        assert min_deadwood(shown) == 0
        penalties = [0] * seats
        deadwood[knocker] = 0
        for seat in order:
            deadwood[seat] = min_deadwood(hands[seat])
            penalties[seat] = deadwood[seat] + bonus
        return {
            "kind": kind,
            "winner": knocker,
            "penalties": penalties,
            "deadwood": deadwood,
            "knocker_melds": None,
        }
    best = None
    for melds, k in knocker_splits(shown, limit):
        answers = [(seat, defender_reply(melds, hands[seat])) for seat in order]
        kind, winner, penalties = penalties_for(knocker, k, answers, seats, undercut_bonus)
        gain = sum(penalties[seat] for seat in order) - penalties[knocker]
        canonical = tuple(sorted(bit_mask(meld) for meld in melds))
        key = (-gain, k, canonical)
        if best is None or key < best[0]:
            best = (key, kind, winner, penalties, melds, k, answers)
    _, kind, winner, penalties, melds, k, answers = best
    deadwood[knocker] = k
    for seat, d in answers:
        deadwood[seat] = d
    return {
        "kind": kind,
        "winner": winner,
        "penalties": penalties,
        "deadwood": deadwood,
        "knocker_melds": {frozenset(meld) for meld in melds},
    }


def check_reply_is_legal(reply, knocker_melds, hand) -> None:
    """An engine opponent reply is a real arrangement: own melds valid, each lay-off legal in
    the listed order onto the knocker's meld as grown by this opponent's own earlier lay-offs,
    everything a partition of the hand, and the deadwood the value of what is left."""
    grown = [frozenset(meld.cards) for meld in knocker_melds]
    used = []
    for layoff in reply.layoffs:
        target = grown[layoff.meld_index]
        assert layoff.card not in target and is_meld(tuple(target | {layoff.card})), layoff
        grown[layoff.meld_index] = target | {layoff.card}
        used.append(layoff.card)
    for meld in reply.melds:
        assert is_meld(meld.cards), meld
        used.extend(meld.cards)
    used.extend(reply.deadwood_cards)
    assert sorted(used, key=bit_mask_of) == sorted(hand, key=bit_mask_of)
    assert len(set(used)) == len(used)
    assert reply.deadwood == sum(value(card) for card in reply.deadwood_cards)


def bit_mask_of(card) -> int:
    return bit_mask([card])
