"""The ``strong`` bot level: look-ahead over the cards its seat cannot see.

It decides from what its seat may see only: its own cards, the discard pile, its legal
actions and a :class:`~games.engine.bot_memory.SeatMemory` of the hand's public events (the
cards each opponent took from the pile, declined, and the last card each put down). The
cards it cannot see (the stock and the opponents' cards not known from the pile) are the
*unseen* cards; each is taken as equally likely to be the next card drawn.

* **Worth of a hand.** A hand before the draw is worth, averaged over the unseen cards, the
  chance of holding a hand it may knock with (R6) after drawing that card, and otherwise a
  credit that shrinks with every point of deadwood above the knock limit
  (``_Search.worth``: one draw ahead, every unseen card tried; the deadwood of each is
  ``draw_deadwoods``, the exact R2 figure). Discards look one draw further (``_Search.drawn``:
  each unseen card drawn, the discard that leaves the least deadwood, then ``worth``) for the
  most promising candidates. The opponent may go out first meanwhile: a draw further ahead
  counts for less the more turns the opponent has played (``HAZARD``).
* **The pile as a second source.** Heads-up, each draw also offers the opponent's next
  discard, and a player throws its highest unmatched card: the pile brings high cards far
  more often than the stock does, and never a card under 4. Both look-aheads take the card on
  top of the pile when it is worth more than a stock draw on average, each unseen card being
  that discard with the chance ``next_discard_chances`` gives it (by its value, the value of
  the opponent's last discard and the melds still open to it): a hand waiting for high
  cards is worth more than a uniform draw says.
* **Draw** (R4, R5): the better of "take the top card, then the best discard" and the average
  over the unseen cards of "draw it, then the best discard". The last seat offered the upcard
  (the dealer) gets no card by passing, so it compares with its hand as it is; the first seat
  offered also takes any upcard that lowers its deadwood, which the dealer would otherwise
  get for nothing.
* **Denial.** A discard is charged with the chance that it completes a meld for an opponent
  (``_Search.danger``): two cards that meld with it, each known in that opponent's hand (it
  took it from the pile), or unseen and held at the opponent's share of the unseen cards.
  A player throws its highest unmatched card first, so unseen cards above the value of the
  opponent's last discard are less likely to be unmatched in its hand; a card it declined
  once is cheaper. The charge grows with the opponent's turns: late in the hand, a meld given
  away is often the opponent's knock.
* **Going out.** First To Knock is won by the first knock (R10): it knocks at once. In points
  games it always takes Gin, knocks at once early in the hand, and later only with deadwood
  low enough that an undercut is unlikely (``_knock_now``), else plays on.

Deterministic: the same view and memory give the same action (ties go to the card of higher
value, then the later in deck order). It needs no more than a few thousand table look-ups
per decision; docs/engine.md "Bot levels" has its measured CPU time and win rate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.bot_memory import UNKNOWN, SeatMemory
from games.engine.cards import FULL_DECK
from games.engine.solver import (
    RANK_VALUES,
    RUN_DEADWOOD,
    RUN_DROP_GAIN,
    SUIT_MASK,
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)
from games.engine.state import (
    BIG_GIN,
    DISCARD_CARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    TAKE_UPCARD,
)

StrongChoice = tuple[str, int | None]  # (action kind, card index 0..51)

ALL_CARDS = (1 << 52) - 1
VALUE = tuple(RANK_VALUES[index % 13] for index in range(52))

# Tuned on tests/benchmarks/bench_bots.py (docs/engine.md "Bot levels").
DEEP_CANDIDATES = 4  # discards looked at two draws ahead
MISS_CREDIT = 0.7  # worth of a draw that misses the knock limit by one point...
MISS_DECAY = 0.9  # ...times this for each point more
DANGER_WEIGHT = 0.03  # the charge for a discard that surely completes a meld, per...
DANGER_PER_TURN = 1.0  # ...1 + this many times the turns the opponent has played
DECLINED = 0.3  # the danger of a card the opponent passed up once, relative
ABOVE_LAST_DISCARD = 0.3  # an unseen card above the opponent's last discard: held, relative
# The chance that the opponent goes out on its next turn, its n-th (the easy bot against
# itself, 4,000 hands), and how much of it counts.
HAZARD: tuple[float, ...] = (0.007, 0.007, 0.014, 0.033, 0.055, 0.09, 0.12, 0.149, 0.189)
HAZARD += (0.216, 0.246, 0.25, 0.26, 0.3)
HAZARD_SCALE = 2.0


def _bits(mask: int) -> list[int]:
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low)
        mask ^= low
    return bits


def _meld_pairs(index: int) -> tuple[tuple[int, int], ...]:
    """The pairs of cards that complete a meld with the card ``index`` (R2): two other cards
    of its rank, or two cards of its suit next to it in a run (as bits)."""
    rank, suit = index % 13, index // 13
    same_rank = [1 << (13 * other + rank) for other in range(4) if other != suit]
    pairs = [(same_rank[i], same_rank[j]) for i in range(3) for j in range(i + 1, 3)]
    for low, high in ((-2, -1), (-1, 1), (1, 2)):
        if rank + low >= 0 and rank + high < 13:
            pairs.append((1 << (index + low), 1 << (index + high)))
    return tuple(pairs)


MELD_PAIRS = tuple(_meld_pairs(index) for index in range(52))
# The cards as bits in the easy bot's order of preference for a discard among those leaving
# the same deadwood: the highest value first, then the latest in deck order.
PUT_DOWN_ORDER = tuple(1 << index for index in sorted(range(52), key=lambda i: (-VALUE[i], -i)))

# The chance that an unseen card is the opponent's next discard, by its value (rows, 1..10)
# and the value of the opponent's last discard (columns, 1..10, then none yet): what the easy
# bot threw in 8,000 turns against this bot (tune seeds, not the benchmark's), the columns
# below 4 filled from the lowest seen. It throws its highest unmatched card: never a card
# under 4, mostly one as high as its last discard, or a higher card it has just drawn.
NEXT_DISCARD: tuple[tuple[float, ...], ...] = (
    (0.0,) * 11,
    (0.0,) * 11,
    (0.0,) * 11,
    (0.018, 0.018, 0.018, 0.018, 0.018, 0.002, 0.003, 0.003, 0.000, 0.000, 0.000),
    (0.117, 0.117, 0.117, 0.117, 0.117, 0.057, 0.015, 0.013, 0.007, 0.002, 0.000),
    (0.034, 0.034, 0.034, 0.034, 0.034, 0.118, 0.085, 0.037, 0.018, 0.008, 0.001),
    (0.055, 0.055, 0.055, 0.055, 0.055, 0.049, 0.087, 0.093, 0.036, 0.016, 0.000),
    (0.039, 0.039, 0.039, 0.039, 0.039, 0.032, 0.040, 0.093, 0.092, 0.030, 0.002),
    (0.162, 0.162, 0.162, 0.162, 0.048, 0.045, 0.028, 0.026, 0.094, 0.055, 0.010),
    (0.100, 0.100, 0.100, 0.100, 0.043, 0.040, 0.037, 0.029, 0.027, 0.066, 0.082),
)
# ...times this by how many meld pairs for the card are still live (0, 1, 2, 3 or more).
PAIRS_FACTOR = (1.2, 1.12, 1.1, 0.86)


def next_discard_chances(*, unseen: Sequence[int], live: int, last: int) -> list[float]:
    """For each unseen card (bits, in that order): the chance that it is the opponent's next
    discard, from its value, the value of the opponent's last discard (``last``: a card
    index, or :data:`~games.engine.bot_memory.UNKNOWN` before the first) and how many pairs of
    ``live`` cards (unseen, or known in the opponent's hand) could meld with it."""
    column = VALUE[last] - 1 if last >= 0 else 10
    chances = []
    for bit in unseen:
        index = bit.bit_length() - 1
        pairs = sum(1 for first, second in MELD_PAIRS[index] if first & live and second & live)
        chances.append(NEXT_DISCARD[VALUE[index] - 1][column] * PAIRS_FACTOR[min(pairs, 3)])
    return chances


SetOption = tuple[tuple[int, int, int, int], bool]  # cards removed per suit, four melded


def _set_options(patterns: Sequence[int], ranks: int) -> list[SetOption]:
    """Every way of melding sets at the ``ranks`` (bits of a suit pattern) held in three or
    four suits: for each rank none, all, or (four held) all but one; as the cards each
    choice removes from each suit pattern and whether it melds four cards. A superset of
    ``solver``'s undominated choices, so the minimum over them is the same."""
    options: list[SetOption] = [((0, 0, 0, 0), False)]
    for rank in _bits(ranks):
        held = [suit for suit in range(4) if patterns[suit] & rank]
        choices: list[tuple[int, ...]] = [(), tuple(held)]
        if len(held) == 4:
            choices.extend(tuple(s for s in held if s != left) for left in held)
        grown: list[SetOption] = []
        for removed, four in options:
            for choice in choices:
                taken = list(removed)
                for suit in choice:
                    taken[suit] |= rank
                grown.append(((taken[0], taken[1], taken[2], taken[3]), four or len(choice) == 4))
        options = grown
    return options


def _undominated(options: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The set choices (rest, others, pattern) of one suit that may give the least deadwood:
    with the same pattern left, a choice with no more ``rest`` and no more ``rest - others``
    is never worse, whatever card is added."""
    kept: list[tuple[int, int, int]] = []
    ordered = sorted(options, key=lambda option: (option[2], option[0], option[0] - option[1]))
    pattern, lowest = -1, 0
    for option in ordered:
        rest, others, left = option
        if left != pattern:
            pattern, lowest = left, rest - others
            kept.append(option)
        elif rest - others < lowest:
            lowest = rest - others
            kept.append(option)
    return kept


def draw_deadwoods(hand: int, unseen_by_suit: Sequence[Sequence[int]]) -> list[int]:
    """``min_deadwood_after_discard_mask(hand | card)`` for every unseen card (given per
    suit, as bits of a 13-bit suit pattern, in that order): the same figures, faster. Adding
    one card changes one suit pattern, so for each way of melding the sets the hand already
    allows the figure is the other suits' table values (``solver``'s) and the changed suit's;
    a card that makes a new set possible (the third of its rank) or joins one (the fourth)
    goes to the full solver."""
    patterns = [hand >> 13 * suit & SUIT_MASK for suit in range(4)]
    a, b, c, d = patterns
    set_ranks = (a & b & (c | d)) | (c & d & (a | b))
    two_suits = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    # Per set choice and per suit: the other suits' deadwood, their best single-card gain
    # (0 when a four-card set may give a card up), and what is left of this suit.
    prepared: list[list[tuple[int, int, int]]] = [[], [], [], []]
    for removed, four in _set_options(patterns, set_ranks):
        left = [patterns[suit] ^ removed[suit] for suit in range(4)]
        deadwood = [RUN_DEADWOOD[pattern] for pattern in left]
        g0, g1, g2, g3 = (RUN_DROP_GAIN[pattern] for pattern in left)
        by_suit = [max(g1, g2, g3), max(g0, g2, g3), max(g0, g1, g3), max(g0, g1, g2)]
        total = sum(deadwood)
        for suit in range(4):
            best_other = by_suit[suit]
            if four and best_other < 0:
                best_other = 0
            prepared[suit].append((total - deadwood[suit], best_other, left[suit]))
    for suit in range(4):
        if len(prepared[suit]) > 1:
            prepared[suit] = _undominated(prepared[suit])
    out = []
    for suit, ranks in enumerate(unseen_by_suit):
        options = prepared[suit]
        for rank in ranks:
            if rank & two_suits:  # the third or fourth card of a rank: the sets change
                out.append(min_deadwood_after_discard_mask(hand | rank << 13 * suit))
                continue
            best = 1000
            for rest, others, pattern in options:
                grown = pattern | rank
                gain = RUN_DROP_GAIN[grown]
                value = rest + RUN_DEADWOOD[grown] - (gain if gain > others else others)
                if value < best:
                    best = value
            out.append(best)
    return out


class _Opponent:
    """What the bot believes of one opponent's hand."""

    __slots__ = ("declined", "known", "share")

    def __init__(self, *, known: int, declined: int, share: float) -> None:
        self.known = known  # cards it took from the pile and still holds
        self.declined = declined  # cards it passed up
        self.share = share  # the chance that a given unseen card is in its hand


class _Search:
    """One decision's look-ahead: the unseen cards, the knock limit, a cache of worths."""

    def __init__(self, *, limit: int, unseen: int, opponents: Sequence[_Opponent]) -> None:
        self.limit = limit
        self.unseen = _bits(unseen)
        self.unseen_mask = unseen
        self.unseen_by_suit = tuple(
            tuple(bit >> 13 * suit for bit in self.unseen if bit >> 13 * suit & SUIT_MASK)
            for suit in range(4)
        )
        self.opponents = opponents
        self.cache: dict[int, float] = {}
        self.deadwoods: dict[int, list[int]] = {}  # per hand: draw_deadwoods
        self.miss = [
            1.0 if d <= limit else MISS_CREDIT * MISS_DECAY ** (d - limit - 1) for d in range(400)
        ]
        self.survive = 1.0  # the chance that no opponent goes out before the next draw
        self.danger_weight = DANGER_WEIGHT
        self.last_discard_value = 10  # the highest value an opponent's unmatched card has
        # (position among the unseen cards, chance): the opponent's next discard
        self.pile_chance: list[tuple[int, float]] = []

    def worth(self, hand: int) -> float:
        """Worth of a hand before the draw: over the unseen cards, 1 when the hand may knock
        after drawing it, else the credit for the deadwood it would have."""
        cached = self.cache.get(hand)
        if cached is not None:
            return cached
        miss = self.miss
        if self.unseen:
            deadwoods = self.draw_deadwoods(hand)
            values = [miss[deadwood] for deadwood in deadwoods]
            value = sum(values) / len(values)
            if self.pile_chance:
                value = self.with_pile(values, value)
        else:
            value = miss[min_deadwood_mask(hand)]
        self.cache[hand] = value
        return value

    def draw_deadwoods(self, hand: int) -> list[int]:
        """:func:`draw_deadwoods` of ``hand`` over the unseen cards, in their order (cached)."""
        deadwoods = self.deadwoods.get(hand)
        if deadwoods is None:
            deadwoods = self.deadwoods[hand] = draw_deadwoods(hand, self.unseen_by_suit)
        return deadwoods

    @staticmethod
    def best_discard(held: int, deadwood: int) -> int:
        """The hand left by the discard that leaves the lowest deadwood, ``deadwood`` (ties:
        the highest card put down, then the latest in deck order)."""
        for bit in PUT_DOWN_ORDER:
            if held & bit and min_deadwood_mask(held ^ bit) == deadwood:
                return held ^ bit
        raise ValueError("no discard leaves that deadwood")  # pragma: no cover

    def drawn(self, hand: int, *, pile: bool = True) -> float:
        """Over the unseen cards: 1 when drawing it lets the hand knock, else the worth of
        the hand after the discard that leaves the least deadwood, if nobody went out."""
        if not self.unseen:
            return self.worth(hand)
        limit = self.limit
        outcomes = [
            1.0
            if deadwood <= limit
            else self.survive * self.worth(self.best_discard(hand | bit, deadwood))
            for bit, deadwood in zip(self.unseen, self.draw_deadwoods(hand), strict=True)
        ]
        value = sum(outcomes) / len(outcomes)
        if self.pile_chance and pile:
            value = self.with_pile(outcomes, value)
        return value

    def with_pile(self, outcomes: Sequence[float], stock: float) -> float:
        """The worth of the next draw when the opponent's discard on top of the pile is
        taken whenever it is worth more than ``stock`` (the mean of ``outcomes``, one per
        unseen card drawn from the stock)."""
        gain = 0.0
        for position, chance in self.pile_chance:
            outcome = outcomes[position]
            if outcome > stock:
                gain += chance * (outcome - stock)
        return stock + gain

    def danger(self, index: int) -> float:
        """The chance that the card ``index``, discarded, completes a meld for an opponent
        (the likeliest of them)."""
        worst = 0.0
        for opponent in self.opponents:
            missed = 1.0
            for first, second in MELD_PAIRS[index]:
                missed *= 1.0 - self._holds(first, opponent) * self._holds(second, opponent)
            chance = 1.0 - missed
            if opponent.declined >> index & 1:
                chance *= DECLINED
            worst = max(worst, chance)
        return worst

    def _holds(self, bit: int, opponent: _Opponent) -> float:
        if bit & opponent.known:
            return 1.0
        if not bit & self.unseen_mask:
            return 0.0
        if VALUE[bit.bit_length() - 1] > self.last_discard_value:
            return opponent.share * ABOVE_LAST_DISCARD
        return opponent.share


def _put_down_key(hand: int, bit: int) -> tuple[int, int, int]:
    """The easy bot's order for the card put down to knock: the lowest deadwood left, then
    the highest value, then the latest in deck order."""
    index = bit.bit_length() - 1
    return (min_deadwood_mask(hand ^ bit), -VALUE[index], -index)


def _knock_now(*, deadwood: int, limit: int, stock: int, opponent_known: int) -> bool:
    """Points games (Match Play, Money Play): knock now, or play on for less deadwood or
    Gin? Early in the hand an opponent rarely holds less than the knocker, so any legal knock
    goes; the longer the hand runs (the smaller the stock) the lower the deadwood must be,
    and lower still when an opponent is known to be collecting melds from the pile."""
    if deadwood == 0:
        return True
    allowed = limit
    if stock < 24:
        allowed = min(allowed, 2 + (stock - 6) // 3)
    if opponent_known.bit_count() >= 2:
        allowed -= 2
    return deadwood <= allowed


def strong_decide(
    *,
    hand: int,
    pile: Sequence[int],
    legal: Sequence[StrongChoice],
    limit: int,
    memory: SeatMemory,
    card_counts: Sequence[int],
    stock: int,
    first_to_knock: bool,
    dealer: int | None = None,
) -> StrongChoice:
    """The strong bot's choice among ``legal`` (cards as indices 0..51). ``hand``: the
    seat's cards (mask); ``pile``: the discard pile, bottom first; ``card_counts``: every
    seat's card count; ``stock``: the cards left in the stock; ``first_to_knock``: the game is
    First To Knock (R10); ``dealer``: the hand's dealer (R4's last seat offered the upcard)."""
    if not legal:
        raise ValueError("no legal action: it is not this seat's turn")
    kinds = {kind for kind, _ in legal}
    if BIG_GIN in kinds:
        return BIG_GIN, None
    seat = memory.seat
    pile_mask = 0
    for index in pile:
        pile_mask |= 1 << index
    others = [other for other, count in enumerate(card_counts) if other != seat and count]
    known = {
        other: memory.held[other] & ~pile_mask & ~hand if other < len(memory.held) else 0
        for other in others
    }
    unseen = ALL_CARDS & ~hand & ~pile_mask
    for mask in known.values():
        unseen &= ~mask
    unseen_count = max(unseen.bit_count(), 1)
    search = _Search(
        limit=limit,
        unseen=unseen,
        opponents=[
            _Opponent(
                known=known[other],
                declined=memory.declined[other] if other < len(memory.declined) else 0,
                share=max(card_counts[other] - known[other].bit_count(), 0) / unseen_count,
            )
            for other in others
        ],
    )
    _read_the_opponents(search, memory, others)
    if KNOCK in kinds or DISCARD_CARD in kinds:
        return _put_down(
            search,
            legal=legal,
            hand=hand,
            first_to_knock=first_to_knock,
            stock=stock,
            opponent_known=sum(known.values()),
        )
    top = pile[-1] if pile else None
    for take, skip in ((TAKE_UPCARD, PASS), (DRAW_DISCARD, DRAW_STOCK)):
        if take in kinds and skip in kinds and top is not None:
            # R4: the last seat offered the upcard (the dealer) gets no card by passing.
            last_offer = take == TAKE_UPCARD and seat == dealer
            better = _take_is_better(search, hand, 1 << top, free=last_offer)
            if take == TAKE_UPCARD and not last_offer and not better:
                # Passed, the upcard goes to the dealer for nothing if it helps it.
                held = hand | 1 << top
                better = min_deadwood_after_discard_mask(held) < min_deadwood_mask(hand)
            return (take, None) if better else (skip, None)
        if take in kinds:
            return take, None
        if skip in kinds:
            return skip, None
    raise ValueError(f"no decision for legal actions {legal!r}")  # pragma: no cover


def _read_the_opponents(search: _Search, memory: SeatMemory, others: Sequence[int]) -> None:
    """What the opponents' play so far says: the more turns played, the likelier one goes
    out before the bot's next draw, and the dearer a meld given away; the value of an
    opponent's last discard bounds what it keeps unmatched."""
    survive = 1.0
    turns = 0
    for other in others:
        played = memory.turns[other] if other < len(memory.turns) else 0
        turns = max(turns, played)
        survive *= 1.0 - HAZARD_SCALE * HAZARD[min(played + 1, len(HAZARD) - 1)]
    search.survive = max(survive, 0.0)
    search.danger_weight = DANGER_WEIGHT * (1 + DANGER_PER_TURN * turns)
    lasts = [memory.last[other] for other in others if other < len(memory.last)]
    if lasts and min(lasts) >= 0:
        search.last_discard_value = max(VALUE[index] for index in lasts)
    if len(others) == 1:  # heads-up: the card on top of the pile at the next draw is its
        search.pile_chance = [
            (position, chance)
            for position, chance in enumerate(
                next_discard_chances(
                    unseen=search.unseen,
                    live=search.unseen_mask | search.opponents[0].known,
                    last=lasts[0] if lasts else UNKNOWN,
                )
            )
            if chance > 0
        ]


def _take_is_better(search: _Search, hand: int, top: int, *, free: bool) -> bool:
    """Taking ``top`` (then the best discard but ``top``, R5) against drawing an unseen card
    (then the discard that leaves the least deadwood), each followed by one more draw;
    ``free``: passing gets no card (the dealer at the upcard offer)."""
    held = hand | top
    if min(min_deadwood_mask(held ^ bit) for bit in _bits(hand)) <= search.limit:
        return True  # it may knock at once
    take = max(search.worth(held ^ bit) for bit in _bits(hand))
    if free or not search.unseen:
        return take > search.worth(hand)
    return search.survive * take > search.drawn(hand, pile=False)


def _put_down(
    search: _Search,
    *,
    legal: Sequence[StrongChoice],
    hand: int,
    first_to_knock: bool,
    stock: int,
    opponent_known: int,
) -> StrongChoice:
    knocks = [1 << index for kind, index in legal if kind == KNOCK and index is not None]
    if knocks:
        bit = min(knocks, key=lambda bit: _put_down_key(hand, bit))
        left = min_deadwood_mask(hand ^ bit)
        if first_to_knock or _knock_now(
            deadwood=left, limit=search.limit, stock=stock, opponent_known=opponent_known
        ):
            return KNOCK, bit.bit_length() - 1
    cards = [index for kind, index in legal if kind == DISCARD_CARD and index is not None]
    if not cards:  # pragma: no cover - a discard is always legal beside a knock
        raise ValueError("no card to put down")
    scored = []
    for index in cards:
        charge = search.danger_weight * search.danger(index)
        scored.append((search.worth(hand ^ 1 << index) - charge, VALUE[index], index, charge))
    scored.sort(reverse=True)
    best = max(
        scored[:DEEP_CANDIDATES],
        key=lambda item: (search.drawn(hand ^ 1 << item[2]) - item[3], item[1], item[2]),
    )
    return DISCARD_CARD, best[2]


def strong_choice_from_view(
    view: Mapping[str, Any], memory: SeatMemory, *, first_to_knock: bool
) -> StrongChoice:
    """:func:`strong_decide` on a ``player_view`` dict and this seat's memory."""
    hand = 0
    for text in view["hand"]:
        hand |= 1 << _CARD_INDEX[text]
    legal = [
        (action["kind"], None if action.get("card") is None else _CARD_INDEX[action["card"]])
        for action in view["legal_actions"]
    ]
    return strong_decide(
        hand=hand,
        pile=[_CARD_INDEX[text] for text in view["discard_pile"]],
        legal=legal,
        limit=view["rules"].get("knock_limit", 10),
        memory=memory,
        card_counts=view["card_counts"],
        stock=view["stock_count"],
        first_to_knock=first_to_knock,
        dealer=view.get("dealer"),
    )


_CARD_INDEX = {str(card): card.index for card in FULL_DECK}
