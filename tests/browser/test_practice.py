"""A practice game against the house bot on a phone-sized screen (375 x 667): the lobby,
the table and the showdown fit without horizontal scrolling; a refused knock shows why."""

from __future__ import annotations

import re

import pytest

from games import engine
from tests.browser.pages import PlayPage, practice_match_against_the_bot, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}


def no_horizontal_scroll(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def knock_refused_on(player: PlayPage, view: dict) -> bool:
    """Knock with a card that leaves too much deadwood (R6), by keyboard: the server refuses
    it, the page shows the problem, and nothing else changes. False when every card could
    be knocked with (then there is nothing to refuse this turn)."""
    rules_limit = 10
    over = [  # not the card just taken from the pile: R5 refuses that one for another reason
        action["card"]
        for action in view["legal_actions"]
        if action["kind"] == "discard"
        and engine.melded_deadwood([c for c in view["hand"] if c != action["card"]]) > rules_limit
    ]
    if not over:
        return False
    card = over[0]
    seq, hand = player.seq(), player.hand()
    player.page.locator(f'#hand .card[data-card="{card}"]').focus()
    player.page.keyboard.press("k")
    alert = player.page.get_by_role("alert").filter(has_text="Too much deadwood to knock")
    alert.wait_for()
    assert (player.seq(), player.hand()) == (seq, hand)
    assert player.my_turn()
    screenshot(player.page, "practice-knock-refused")
    player.page.keyboard.press("Escape")
    assert player.page.get_by_role("alert").count() == 0
    return True


def test_a_practice_game_against_the_house_bot_on_a_phone_until_the_showdown(site, contexts):
    room = site.room(
        name="Practice", variant="ftk", is_practice=True, stake="100", turn_seconds=600
    )
    player = site.player("Dana")
    page = contexts(**PHONE).new_page()
    page.goto(site.launch_url(player))
    page.get_by_role("heading", name="Lobby").wait_for()
    assert no_horizontal_scroll(page)
    screenshot(page, "practice-lobby-phone")
    table_id = page.locator(f'.room[data-room-id="{room["id"]}"] .table-row').first.get_attribute(
        "data-table-id"
    )
    page.get_by_role("button", name=f"Play the house bot at Table {table_id}").click()
    page.locator("#hand .card").first.wait_for()
    assert page.locator("#seat-1, #seat-0").first.inner_text().startswith("House bot")
    assert no_horizontal_scroll(page)
    screenshot(page, "practice-deal-phone")
    # Whose turn, and the turn deadline counting down (the room gives 600 s a turn).
    assert page.locator("#turn-text").inner_text().startswith("Your turn")
    first = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"\d+:\d\d", first)
    page.wait_for_function("t => document.querySelector('#countdown').textContent !== t", arg=first)

    dana = PlayPage(page, "Dana")
    refused = False
    for _ in dana.turns_until("#showdown", most=300):
        view = dana.view_from_screen()
        if not refused and page.locator("#hand.can-discard").count():
            refused = knock_refused_on(dana, view)
        dana.play_as_the_bot(view)
    assert refused
    assert page.get_by_role("alert").count() == 0  # no other move was refused
    page.locator("#showdown").wait_for()
    page.locator("#showdown-summary").wait_for()
    assert page.locator("#showdown .showdown-side").count() == 2
    page.locator("#result-title").wait_for()
    page.locator("#statement").get_by_role("heading", name="Your statement").wait_for()
    assert "chips" in page.locator("#statement").inner_text()
    assert no_horizontal_scroll(page)
    screenshot(page, "practice-showdown-phone")


def test_match_play_keeps_the_last_showdown_on_screen_while_the_next_hand_is_played(site, contexts):
    kim = practice_match_against_the_bot(site, contexts, "Kim", target=100)
    page = kim.page
    for _ in range(300):
        page.wait_for_function(
            "() => document.querySelector('#actions [data-action]')"
            " || document.querySelector('#hand.can-discard')"
        )
        if page.locator("#showdown").count():
            break
        kim.play_as_the_bot()
    # Hand 2 is being played (the player's cards, their moves) under hand 1's showdown.
    showdown = page.locator("#showdown")
    assert showdown.get_attribute("data-hand") == "1"
    assert page.locator("#hand .card").count() >= 10
    if showdown.get_attribute("data-outcome") != "void":
        assert "Running score: " in showdown.inner_text()
        assert "Hand score: " in showdown.inner_text()
    screenshot(page, "match-play-last-showdown")
    showdown.get_by_role("button", name="Close").click()
    assert page.locator("#showdown").count() == 0
    assert page.locator("#hand .card").count() >= 10
    assert page.get_by_role("alert").count() == 0
