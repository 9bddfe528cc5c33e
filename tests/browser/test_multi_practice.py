"""A three-player practice game against two house bots (R12) on the hosted page, played from
what the screen offers until the showdown: the other seats' card counts and presence, then
every player's melds, lay-offs and points against, and the ranking."""

from __future__ import annotations

import pytest

from tests.browser.pages import PlayPage, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.slow
def test_a_three_player_practice_game_against_two_bots_to_its_showdown(site, contexts):
    room = site.room(
        name="Three players",
        variant="ftk",
        is_practice=True,
        stake="100",
        seats=3,
        turn_seconds=600,
    )
    assert room["seats"] == 3
    player = site.player("Robin")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.get_by_role("heading", name="Lobby").wait_for()
    row = page.locator(f'.room[data-room-id="{room["id"]}"]')
    assert "3 players" in row.inner_text()
    table_id = row.locator(".table-row").first.get_attribute("data-table-id")
    page.get_by_role("button", name=f"Play the house bot at Table {table_id}").click()
    page.locator("#hand .card").first.wait_for()
    # Two other seats, each with its card count (face down) and presence (bots: online).
    boxes = page.locator(".players.many .player-box")
    assert boxes.count() == 2
    for index in range(2):
        box = boxes.nth(index)
        assert box.inner_text().startswith("House bot")
        assert "online" in box.locator(".presence").inner_text()
        label = box.locator(".backs").get_attribute("aria-label")
        assert label.endswith("cards") and "holds" in label
    screenshot(page, "three-players-deal")

    robin = PlayPage(page, "Robin")
    for _ in robin.turns_until("#result-title", most=400):
        robin.play_as_the_bot()
    page.locator("#result-title").wait_for()
    showdown = page.locator("#showdown")
    showdown.wait_for()
    assert showdown.get_attribute("data-outcome") in ("knock", "gin", "big_gin", "undercut")
    assert showdown.locator(".showdown-side").count() == 3  # the knocker and two opponents
    text = showdown.inner_text()
    assert "· points against: " in text and "Hand score (points against)" in text
    assert page.locator("#ranking li").count() >= 2
    assert page.get_by_role("alert").count() == 0  # no move was refused
    page.locator("#statement").get_by_role("heading", name="Your statement").wait_for()
    assert "chips" in page.locator("#statement").inner_text()
    screenshot(page, "three-players-showdown")
