"""The page groups the player's own cards into melds (R2) with its own small solver
(games/static/games/play/cards.js): it must find exactly the engine's least deadwood, with
real melds, on every hand."""

from __future__ import annotations

import random

import pytest

from games import engine
from tests.browser.pages import card_forms

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

DECK = [str(card) for card in engine.FULL_DECK]
R2_EXAMPLE = ["7S", "8S", "9S", "4H", "4D", "4C", "KD", "QC", "2S", "3H"]


def test_the_pages_melds_match_the_engines_deadwood_on_random_and_tricky_hands(
    play_server, contexts
):
    rng = random.Random(2026)
    hands = [
        R2_EXAMPLE,
        ["AS", "2S", "3S", "4S", "4H", "4D", "5S", "6S", "7S", "KC"],
        ["3S", "3H", "3D", "3C", "4S", "5S", "2S", "AH", "AD", "AC"],
    ]
    hands += [rng.sample(DECK, 10) for _ in range(300)] + [rng.sample(DECK, 11) for _ in range(150)]
    page = contexts().new_page()
    page.goto(f"{play_server.url}/play/")
    page.get_by_role("heading", name="Open the game from your operator's site").wait_for()
    splits = page.evaluate(
        """async (hands) => {
          const cards = await import('/static/games/play/cards.js');
          return hands.map((hand) => ({
            split: cards.bestSplit(hand),
            names: hand.map((c) => [cards.cardName(c), cards.cardShort(c)]),
          }));
        }""",
        hands,
    )
    assert splits[0]["split"]["points"] == 25  # the R2 example
    for hand, answer in zip(hands, splits, strict=True):
        split = answer["split"]
        assert split["points"] == engine.melded_deadwood(hand), hand
        melded = [card for meld in split["melds"] for card in meld["cards"]]
        for meld in split["melds"]:
            engine.Meld(kind=meld["kind"], cards=tuple(map(engine.parse_card, meld["cards"])))
        assert sorted(melded + split["deadwood"]) == sorted(hand)
        assert sum(min(engine.parse_card(c).rank, 10) for c in split["deadwood"]) == split["points"]
        assert [tuple(pair) for pair in answer["names"]] == [card_forms(card) for card in hand]
