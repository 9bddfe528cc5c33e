"""R2 differential test: our minimum deadwood against OpenSpiel's C++ gin_rummy utilities.

OpenSpiel numbers cards suit-major in the suit order s, c, d, h (``card_int("As") == 0``,
``card_int("Ac") == 13``); we map through its own ``card_int`` on the text form rather than
assume that layout. OpenSpiel's 11-card ``min_deadwood`` takes the shortcut R2 forbids (see
test_melds.PINNED_11_CARD), so for 11 cards we compare with the minimum over the 11 discards
of its exact 10-card answer.
"""

import random

import pyspiel
import pytest

from games.engine import FULL_DECK, Card, deadwood

UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size
OPEN_SPIEL_INT = {card: UTILS.card_int(str(card)[0] + str(card)[1].lower()) for card in FULL_DECK}
HANDS_PER_KIND = 5_000


def open_spiel_deadwood(cards) -> int:
    return UTILS.min_deadwood([OPEN_SPIEL_INT[card] for card in cards])


def random_hand(rng: random.Random, size: int) -> list[Card]:
    return rng.sample(FULL_DECK, size)


def dense_hand(rng: random.Random, size: int) -> list[Card]:
    """``size`` cards from a window of 5 or 6 consecutive ranks (20-24 cards)."""
    width = rng.choice([5, 6])
    low = rng.randint(1, 14 - width)
    pool = [Card(rank, suit) for suit in "SHDC" for rank in range(low, low + width)]
    return rng.sample(pool, size)


def test_card_numbering_mapping_is_a_bijection():
    assert sorted(OPEN_SPIEL_INT.values()) == list(range(52))
    assert UTILS.card_string(OPEN_SPIEL_INT[Card(10, "D")]) == "Td"


@pytest.mark.parametrize("make_hand", [random_hand, dense_hand], ids=["random", "dense"])
def test_r2_ten_card_deadwood_agrees_with_open_spiel(make_hand):
    rng = random.Random(20240603)
    mismatches = []
    for _ in range(HANDS_PER_KIND):
        hand = make_hand(rng, 10)
        if deadwood(hand) != open_spiel_deadwood(hand):
            mismatches.append(" ".join(map(str, hand)))
    assert mismatches == []


def test_r2_eleven_card_deadwood_is_open_spiels_best_ten_card_discard():
    rng = random.Random(11)
    for _ in range(2_000):
        hand = dense_hand(rng, 11)
        expected = min(open_spiel_deadwood(hand[:i] + hand[i + 1 :]) for i in range(11))
        assert deadwood(hand) == expected, " ".join(map(str, hand))
