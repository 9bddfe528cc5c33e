"""Deadwood throughput: our pure-Python engine vs OpenSpiel's C++ and RLCard (R2).

Run: .venv/bin/python tests/benchmarks/bench_engine.py [--hands N] [--repeat R]

Every engine gets the same hands, each converted beforehand to that engine's own input
(ours: a 52-bit card mask; OpenSpiel: a list of its card ints; RLCard: a list of its Card
objects), so the timed loop is only the deadwood computation. Each set holds distinct hands
(no hand appears twice), and our engine keeps no cache between hands: its only tables are
precomputed from the rules at import time. The best of R runs is reported.

* random 10: 10 cards from the full deck.
* dense 10 / dense 11: cards from a window of 5 or 6 consecutive ranks (overlapping melds).
* dense 8 (R12, three and four players): ours only, the exact best over the 8 discards
  (``seven_card_deadwood``); OpenSpiel and RLCard have no 7-card game. Compare it with the
  dense 11 row: the same solver path, per hand.
* 11 cards: ours is the exact best over the 11 discards (R2). OpenSpiel's ``min_deadwood`` on
  11 cards is timed as is, although it takes the shortcut R2 forbids (it drops the highest
  deadwood card of its best 11-card split); RLCard only melds 10 cards, so it is timed as the
  minimum over the 11 discards.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pyspiel
from rlcard.games.base import Card as RLCard
from rlcard.games.gin_rummy.utils import utils as rl_utils
from rlcard.games.gin_rummy.utils.melding import get_best_meld_clusters

from games.engine import (
    FULL_DECK,
    Card,
    RuleSet,
    apply,
    choose_action,
    deadwood,
    deal,
    seven_card_deadwood,
)
from games.engine.cards import cards_to_mask
from games.engine.solver import (
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)

OPEN_SPIEL = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
# OpenSpiel numbers cards suit-major in suit order s, c, d, h: map through its card_int.
OPEN_SPIEL_INT = {
    card: OPEN_SPIEL.card_int(str(card)[0] + str(card)[1].lower()) for card in FULL_DECK
}
RLCARD = {card: RLCard(suit=card.suit, rank=str(card)[0]) for card in FULL_DECK}


def distinct_hands(
    rng: random.Random, count: int, size: int, dense: bool
) -> list[tuple[Card, ...]]:
    seen: set[int] = set()
    hands = []
    while len(hands) < count:
        if dense:
            width = rng.choice([5, 6])
            low = rng.randint(1, 14 - width)
            # The deck's own card objects, as the engine (parse_card, the deal) always uses.
            pool = [card for card in FULL_DECK if low <= card.rank < low + width]
        else:
            pool = list(FULL_DECK)
        hand = tuple(rng.sample(pool, size))
        mask = cards_to_mask(hand)
        if mask not in seen:
            seen.add(mask)
            hands.append(hand)
    return hands


def best_rates(runs: dict, repeat: int) -> dict[str, float]:
    """Hands per second of each ``name: (function, items)``: the best of ``repeat`` passes.

    Passes are interleaved (one of each engine per round) so that load from other processes
    on the machine hits every engine alike.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, (run, items) in runs.items():
            start = time.perf_counter()
            run(items)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: len(runs[name][1]) / best[name] for name in runs}


def ours_mask_10(masks):
    for mask in masks:
        min_deadwood_mask(mask)


def ours_mask_11(masks):
    for mask in masks:
        min_deadwood_after_discard_mask(mask)


def ours_public(hands):
    for hand in hands:
        deadwood(hand)


def ours_public_8(hands):
    for hand in hands:
        seven_card_deadwood(hand)


def open_spiel(int_lists):
    min_deadwood = OPEN_SPIEL.min_deadwood
    for ints in int_lists:
        min_deadwood(ints)


def rlcard_10(hand: list) -> int:
    clusters = get_best_meld_clusters(hand)
    if not clusters:
        return sum(rl_utils.get_deadwood_value(card) for card in hand)
    return rl_utils.get_deadwood_count(hand, clusters[0])


def rlcard_many(hands):
    for hand in hands:
        if len(hand) == 10:
            rlcard_10(hand)
        else:
            min(rlcard_10(hand[:i] + hand[i + 1 :]) for i in range(len(hand)))


def check_agreement(hands) -> None:
    """Sanity: the three engines agree on 10-card hands (OpenSpiel is the reference)."""
    for hand in hands[:2_000]:
        ours = deadwood(hand)
        assert ours == OPEN_SPIEL.min_deadwood([OPEN_SPIEL_INT[c] for c in hand]), hand
        assert ours == rlcard_10([RLCARD[c] for c in hand]), hand


def bot_hands_per_second(count: int, rules: RuleSet | None = None) -> float:
    rules = rules or RuleSet()
    start = time.perf_counter()
    for k in range(count):
        state = deal(seed=f"bench-{k}", dealer=k % rules.seats, rules=rules)
        while state.phase != "ended":
            state, _ = apply(state, choose_action(state, state.to_act))
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per set")
    parser.add_argument("--rlcard-hands", type=int, default=2_000, help="RLCard is slow")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bot-hands", type=int, default=1_000)
    args = parser.parse_args()
    rng = random.Random(20240603)
    print(f"Python {platform.python_version()} on {platform.machine()}, {args.hands} hands per set")
    print("(ours: distinct hands, no cache; best of", args.repeat, "runs)\n")
    print("ours mask:  min_deadwood on a 52-bit mask (the engine's own hand form)")
    print("ours cards: the public games.engine.deadwood(cards) on a tuple of Card objects,")
    print("            including validation (distinct cards, 10 or 11 of them)\n")
    header = (
        f"{'hands':<10}{'ours mask/s':>13}{'ours cards/s':>14}{'OpenSpiel/s':>13}"
        f"{'RLCard/s':>11}{'mask/OpenSpiel':>16}{'cards/OpenSpiel':>17}{'mask/RLCard':>13}"
    )
    print(header)
    for name, size, dense in (
        ("random 10", 10, False),
        ("dense 10", 10, True),
        ("dense 11", 11, True),
    ):
        hands = distinct_hands(rng, args.hands, size, dense)
        if size == 10:
            check_agreement(hands)
        masks = [cards_to_mask(hand) for hand in hands]
        ints = [[OPEN_SPIEL_INT[card] for card in hand] for hand in hands]
        rl_hands = [[RLCARD[card] for card in hand] for hand in hands[: args.rlcard_hands]]
        rates = best_rates(
            {
                "ours": (ours_mask_10 if size == 10 else ours_mask_11, masks),
                "public": (ours_public, hands),
                "spiel": (open_spiel, ints),
            },
            args.repeat,
        )
        ours, public, spiel = rates["ours"], rates["public"], rates["spiel"]
        rl = best_rates({"rl": (rlcard_many, rl_hands)}, 1)["rl"]
        print(
            f"{name:<10}{ours:>13,.0f}{public:>14,.0f}{spiel:>13,.0f}{rl:>11,.0f}"
            f"{ours / spiel:>15.2f}x{public / spiel:>16.2f}x{ours / rl:>12.0f}x"
        )
    hands = distinct_hands(rng, args.hands, 8, True)
    masks = [cards_to_mask(hand) for hand in hands]
    rates = best_rates(
        {"ours": (ours_mask_11, masks), "public": (ours_public_8, hands)}, args.repeat
    )
    print(f"{'dense 8':<10}{rates['ours']:>13,.0f}{rates['public']:>14,.0f}{'-':>13}{'-':>11}")
    print(f"\nbot vs bot: {bot_hands_per_second(args.bot_hands):,.0f} complete hands/s")
    for seats in (3, 4):
        rate = bot_hands_per_second(args.bot_hands, RuleSet(seats=seats))
        print(f"bot vs bot, {seats} seats (R12): {rate:,.0f} complete hands/s")


if __name__ == "__main__":
    main()
