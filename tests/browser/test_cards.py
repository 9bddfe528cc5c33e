"""The page shows the player's own cards exactly as the server arranged them (R2: the game
view's `melds`, `deadwood_cards`, `best_discard` and `deadwood`) and each knock with the
deadwood the server gives it (R6). The page works out no meld and no deadwood itself: at
each of the player's turns of a practice game against the house bot, what is on screen is
checked against the server's view of that very moment."""

from __future__ import annotations

import pytest

from games import engine
from tests.browser.pages import card_forms, practice_match_against_the_bot, screenshot
from tests.games.engine.helpers import assert_knock_deadwood, assert_own_arrangement

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# What the page shows of the player's hand and moves, read from the screen.
SCREEN = """() => ({
  seq: Number(document.querySelector('.table-screen').dataset.seq),
  groups: [...document.querySelectorAll('#hand .meld')].map((group) => ({
    classes: [...group.classList],
    label: group.getAttribute('aria-label'),
    cards: [...group.querySelectorAll('.card')].map((card) => card.dataset.card),
  })),
  deadwood: document.querySelector('#deadwood').textContent,
  knocks: [...document.querySelectorAll('#actions .knock')].map((button) => ({
    card: button.dataset.card, text: button.textContent,
  })),
})"""


def server_view(page, match_id: str) -> dict:
    """The player's game view as the server answers it now (``GET /matches/{id}/view``),
    asked with the page's own session."""
    return page.evaluate(
        """async (id) => {
          const { api } = await import('/static/games/play/api.js');
          return api(`matches/${id}/view`);
        }""",
        match_id,
    )


def expected_screen(hand: dict) -> dict:
    """The page's hand and moves as they must be for the server's hand view ``hand``."""
    groups = [
        {
            "classes": ["meld", meld["kind"]],
            "label": ("Run: " if meld["kind"] == "run" else "Set: ")
            + ", ".join(card_forms(card)[0] for card in meld["cards"]),
            "cards": meld["cards"],
        }
        for meld in hand["melds"]
    ]
    if hand["deadwood_cards"]:
        groups.append(
            {
                "classes": ["meld", "deadwood-group"],
                "label": "Deadwood cards",
                "cards": hand["deadwood_cards"],
            }
        )
    deadwood = f"Deadwood {hand['deadwood']}"
    if hand["best_discard"] is not None:
        name, short = card_forms(hand["best_discard"])
        groups.append(
            {
                "classes": ["meld", "best-discard-group"],
                "label": f"Best discard: {name}",
                "cards": [hand["best_discard"]],
            }
        )
        deadwood += f" after your best discard, {short}"
    knocks = [
        {
            "card": action["card"],
            "text": f"Gin: put down {card_forms(action['card'])[1]}"
            if action["deadwood"] == 0
            else f"Knock: put down {card_forms(action['card'])[1]}, deadwood {action['deadwood']}",
        }
        for action in hand["legal_actions"]
        if action["kind"] == "knock"
    ]
    return {"groups": groups, "deadwood": deadwood, "knocks": knocks}


@pytest.mark.slow
def test_the_page_shows_exactly_the_servers_melds_deadwood_and_knocks(site, contexts):
    robin = practice_match_against_the_bot(site, contexts, "Robin", target=250)
    page = robin.page
    match_id = page.locator(".table-screen").get_attribute("data-match-id")
    seen = {"turns": 0, "best_discard": 0, "knocks": 0, "hands": set()}
    for _ in range(400):
        page.wait_for_function(
            "() => document.querySelector('#result-title')"
            " || document.querySelector('#actions [data-action]')"
            " || document.querySelector('#hand.can-discard')"
        )
        if robin.match_status() != "running":
            break
        # The player's turn: the bot waits for them, so the view holds still.
        view = server_view(page, match_id)
        robin.wait_seq(view["seq"])
        shown = page.evaluate(SCREEN)
        assert shown.pop("seq") == view["seq"]
        hand = view["hand"]
        # Melds and deadwood cards exactly as the server gave them (kind, order, cards),
        # the best discard set apart, the count, and each knock with the server's deadwood.
        knocks = sorted(shown.pop("knocks"), key=lambda knock: knock["card"])
        expected = expected_screen(hand)
        assert sorted(expected.pop("knocks"), key=lambda knock: knock["card"]) == knocks
        assert shown == expected
        assert sorted(robin.hand()) == sorted(hand["hand"])
        assert_own_arrangement(hand, engine.deadwood)  # and the server's is the engine's
        assert_knock_deadwood(hand, engine.deadwood)
        seen["turns"] += 1
        seen["hands"].add(hand["number"])
        if hand["best_discard"] is not None and not seen["best_discard"]:
            screenshot(page, "cards-best-discard")
        seen["best_discard"] += hand["best_discard"] is not None
        if knocks and not seen["knocks"]:
            screenshot(page, "cards-knock-options")
        seen["knocks"] += bool(knocks)
        if seen["best_discard"] >= 3 and seen["knocks"] and len(seen["hands"]) >= 2:
            break
        robin.play_as_the_bot(hand)
    # Several hands, both shapes (10 cards; 11 with the best discard) and knock options.
    assert seen["best_discard"] >= 3 and seen["knocks"] and len(seen["hands"]) >= 2, seen
    assert seen["turns"] > seen["best_discard"]
    assert page.get_by_role("alert").count() == 0
