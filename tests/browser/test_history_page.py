"""The player's history page (docs/play.md "History"): after a game against the house bot,
the table page's "History" link opens the last 12 months: the game (with its hands, from
the hand history) and the deposit, each list also as a CSV download."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.pages import PlayPage, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_history_page_shows_the_game_played_and_the_deposit(site, contexts):
    site.room(name="Practice", variant="ftk", is_practice=True, stake="100", turn_seconds=600)
    player = site.player("Hana", deposit="25.00")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.locator(".table-row").first.get_by_role("button", name="Play the house bot").click()
    page.locator("#hand .card").first.wait_for()
    hana = PlayPage(page, "Hana")
    for _ in hana.turns_until("#result-title", most=300):
        hana.play_as_the_bot()
    page.locator("#result-title").wait_for()

    page.get_by_role("link", name="History").click()
    page.wait_for_url(re.compile(r"/play/history$"))
    game = page.locator("#history-matches .history-match").first
    game.wait_for()
    cells = game.locator("td").all_inner_texts()
    assert cells[1] == "First To Knock (practice)"
    assert cells[2] == "House bot"
    assert cells[3] in ("Won", "Lost")
    assert cells[4].endswith("chips")
    deposit = page.locator('#history-transactions .history-movement[data-kind="deposit"]')
    assert deposit.count() == 1
    assert "+€25.00" in deposit.inner_text()
    assert page.locator("#history-totals").inner_text().count("€25.00") >= 1

    # The game's hands, from its hand history: every hand over, with its revealed seed.
    game.get_by_role("button", name=re.compile(r"^\d+ hands?$")).click()
    page.locator(".history-hands li").first.wait_for()
    assert page.locator(".history-hands li").first.inner_text().startswith("Hand 1: ")
    screenshot(page, "history-page")

    # The wallet's movements as CSV: the whole window, the deposit in it.
    with page.expect_download() as download:
        page.locator("#history-transactions").get_by_role("button", name="Download CSV").click()
    text = Path(download.value.path()).read_text()
    header, *rows = text.splitlines()
    assert header.startswith("transaction_id,created_at,kind,counts_as,category")
    assert [row.split(",")[2] for row in rows] == ["deposit"]

    page.get_by_role("link", name="Back to the game").click()
    page.wait_for_url(re.compile(r"/play/$"))
    page.locator("#result-title, .lobby").first.wait_for()
