"""R2 exact minimum deadwood on 52-bit card masks: the fast path behind ``deadwood``.

How it works (see docs/engine.md for the proof sketch):

* A hand splits into four 13-bit suit patterns. Runs live inside one suit, so with no set
  involved the minimum deadwood is ``RUN_DEADWOOD[s] + RUN_DEADWOOD[h] + ...``, four lookups
  in a table precomputed for all 8192 patterns.
* Only ranks held in three or four suits can form a set. If none of those cards can be part of
  any run (``RUNNABLE`` table), melding the whole set is never worse, so it is taken at once.
  Otherwise the few undominated set choices of each such rank (none, all, or all but one
  runnable card) are enumerated; at most 3 ranks of a 10 or 11-card hand can be candidates.
* 11 cards (R2, after drawing): the deadwood is the exact minimum over the 11 discards. For a
  fixed set choice the suits are independent, so the best discard is the one suit whose
  ``RUN_DROP_GAIN`` (deadwood saved by its best single-card removal) is largest; a melded
  four-card set also offers a free discard (gain 0).

Every table is a pure function of the rules, built once at import; nothing depends on the
hands evaluated, so repeated hands are not cheaper than new ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

SUIT_BITS = 13
SUIT_MASK = (1 << SUIT_BITS) - 1
PATTERNS = 1 << SUIT_BITS
_NO_CARD = -1000  # gain of removing a card from an empty suit: never chosen
ABOVE_ANY_DEADWOOD = 1000  # the whole deck is worth 340

# R1 deadwood value of the card at bit r of a suit pattern (r = rank - 1).
RANK_VALUES: tuple[int, ...] = tuple(min(rank, 10) for rank in range(1, 14))


def _run_masks_starting_at(low: int, pattern: int) -> list[int]:
    """Runs (R2: 3+ consecutive ranks of one suit) in ``pattern`` whose lowest rank is ``low``."""
    runs = []
    run = (1 << low) | (1 << (low + 1)) if low + 1 < SUIT_BITS else 0
    top = low + 2
    while run and top < SUIT_BITS and pattern >> top & 1 and (pattern & run) == run:
        run |= 1 << top
        runs.append(run)
        top += 1
    return runs


def _build_run_tables() -> tuple[list[int], list[int], list[int]]:
    """For every 13-bit suit pattern: the minimum deadwood using runs only (R2), the most
    deadwood that removing one card saves, and the cards that could sit in some run."""
    run_deadwood = [0] * PATTERNS
    for pattern in range(1, PATTERNS):
        # The lowest card is either deadwood or the low end of a run (R1: no wrap).
        low = (pattern & -pattern).bit_length() - 1
        best = RANK_VALUES[low] + run_deadwood[pattern & (pattern - 1)]
        for run in _run_masks_starting_at(low, pattern):
            best = min(best, run_deadwood[pattern ^ run])
        run_deadwood[pattern] = best
    gain = [_NO_CARD] * PATTERNS
    runnable = [0] * PATTERNS
    for pattern in range(1, PATTERNS):
        bits = [1 << r for r in range(SUIT_BITS) if pattern >> r & 1]
        gain[pattern] = run_deadwood[pattern] - min(run_deadwood[pattern ^ b] for b in bits)
        starts = pattern & (pattern >> 1) & (pattern >> 2)
        runnable[pattern] = (starts | starts << 1 | starts << 2) & SUIT_MASK
    return run_deadwood, gain, runnable


RUN_DEADWOOD, RUN_DROP_GAIN, RUNNABLE = _build_run_tables()


def _set_options(present: int, runnable: int) -> tuple[int, ...]:
    """Undominated set choices at one rank, as 4-bit suit nibbles (R2 sets of 3 or 4).

    ``present``: suits holding the rank (3 or 4 of them); ``runnable``: those whose card could
    sit in a run. Melding a card that cannot be in a run never hurts, which rules out leaving
    such a card out of a set, and rules out "no set" when three unrunnable cards remain.
    """
    options = [present]
    if present == 0b1111:
        options.extend(present ^ (1 << suit) for suit in range(4) if runnable >> suit & 1)
    if (present ^ runnable).bit_count() < 3:
        options.append(0)
    return tuple(options)


COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # one rank in all four suits of a 52-bit mask


def _spread(nibble: int) -> int:
    """Suit nibble (bit i = suit i) -> the matching bits of :data:`COLUMN`."""
    return sum(1 << (13 * suit) for suit in range(4) if nibble >> suit & 1)


Option = tuple[int, int, int, int, bool]  # cards removed per suit (S, H, D, C), four-card set


def _option(nibble: int, r: int) -> Option:
    """A set choice at rank ``r`` (suit nibble) as the bits it removes from each suit pattern
    and whether it melds all four."""
    return (
        (nibble & 1) << r,
        (nibble >> 1 & 1) << r,
        (nibble >> 2 & 1) << r,
        (nibble >> 3 & 1) << r,
        nibble == 0b1111,
    )


def _build_rank_options() -> tuple[dict[int, tuple[Option, ...]], ...]:
    """Per rank r: ``{present column | runnable column << 1: options}``, each option as the
    bits it removes from each suit pattern (already at rank r) and whether it melds four."""
    tables = []
    for r in range(SUIT_BITS):
        table: dict[int, tuple[Option, ...]] = {}
        for size in (3, 4):
            for suits in combinations(range(4), size):
                present = sum(1 << suit for suit in suits)
                for runnable in range(1, 16):
                    if runnable & ~present:
                        continue
                    key = _spread(present) | _spread(runnable) << 1
                    table[key] = tuple(
                        _option(option, r) for option in _set_options(present, runnable)
                    )
        tables.append(table)
    return tuple(tables)


RANK_OPTIONS = _build_rank_options()


def _set_choices(cand: int, mask: int, runnable: int) -> Sequence[Option]:
    """Every combination of the set options of the branching ranks in ``cand``.

    ``mask``: the hand; ``runnable``: its runnable cards as a 52-bit mask.
    """
    combos: list[Option] = [(0, 0, 0, 0, False)]
    while cand:
        bit = cand & -cand
        cand ^= bit
        r = bit.bit_length() - 1
        options = RANK_OPTIONS[r][(mask >> r & COLUMN) | (runnable >> r & COLUMN) << 1]
        combos = [
            (xa | oa, xb | ob, xc | oc, xd | od, four or ofour)
            for (xa, xb, xc, xd, four) in combos
            for (oa, ob, oc, od, ofour) in options
        ]
    return combos


def min_deadwood_mask(mask: int) -> int:
    """R2: minimum deadwood of the cards in ``mask`` (any count), no discard."""
    rd = RUN_DEADWOOD
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39
    cand = (a & b & (c | d)) | (c & d & (a | b))
    if not cand:
        return rd[a] + rd[b] + rd[c] + rd[d]
    rn = RUNNABLE
    ua, ub, uc, ud = rn[a], rn[b], rn[c], rn[d]
    forced = cand & ~(ua | ub | uc | ud)
    if forced:
        keep = ~forced
        a &= keep
        b &= keep
        c &= keep
        d &= keep
        cand ^= forced
        if not cand:
            return rd[a] + rd[b] + rd[c] + rd[d]
    best = ABOVE_ANY_DEADWOOD
    runnable = ua | ub << 13 | uc << 26 | ud << 39
    choices: Sequence[Option]
    if cand & (cand - 1):
        choices = _set_choices(cand, mask, runnable)
    else:  # one branching rank (the usual case): its options directly
        r = cand.bit_length() - 1
        choices = RANK_OPTIONS[r][(mask >> r & COLUMN) | (runnable >> r & COLUMN) << 1]
    for xa, xb, xc, xd, _ in choices:
        total = rd[a ^ xa] + rd[b ^ xb] + rd[c ^ xc] + rd[d ^ xd]
        if total < best:
            best = total
    return best


def min_deadwood_after_discard_mask(mask: int) -> int:
    """R2: exact minimum deadwood of 11 cards after their best discard (11 -> 10 cards);
    R12: likewise 8 cards (8 -> 7).

    Exact for card counts that are not a multiple of 3 (11, and 8 for R12): with all the
    cards melded some meld then has 4+ cards, so a discard never has to break a three-card
    meld (docs/engine.md). Not for 9 or 12 cards.
    """
    rd = RUN_DEADWOOD
    g = RUN_DROP_GAIN
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39
    cand = (a & b & (c | d)) | (c & d & (a | b))
    if not cand:
        return rd[a] + rd[b] + rd[c] + rd[d] - max(g[a], g[b], g[c], g[d])
    rn = RUNNABLE
    ua, ub, uc, ud = rn[a], rn[b], rn[c], rn[d]
    forced = cand & ~(ua | ub | uc | ud)
    four = False
    if forced:
        four = (forced & a & b & c & d) != 0
        keep = ~forced
        a &= keep
        b &= keep
        c &= keep
        d &= keep
        cand ^= forced
        if not cand:
            gain = max(g[a], g[b], g[c], g[d], 0 if four else _NO_CARD)
            return rd[a] + rd[b] + rd[c] + rd[d] - gain
    best = ABOVE_ANY_DEADWOOD
    runnable = ua | ub << 13 | uc << 26 | ud << 39
    choices: Sequence[Option]
    if cand & (cand - 1):
        choices = _set_choices(cand, mask, runnable)
    else:  # one branching rank (the usual case): its options directly
        r = cand.bit_length() - 1
        choices = RANK_OPTIONS[r][(mask >> r & COLUMN) | (runnable >> r & COLUMN) << 1]
    for xa, xb, xc, xd, ofour in choices:
        sa, sb, sc, sd = a ^ xa, b ^ xb, c ^ xc, d ^ xd
        gain = max(g[sa], g[sb], g[sc], g[sd], 0 if (four or ofour) else _NO_CARD)
        total = rd[sa] + rd[sb] + rd[sc] + rd[sd] - gain
        if total < best:
            best = total
    return best
