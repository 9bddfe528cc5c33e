"""The hosted leaderboard page (docs/play.md "Leaderboards") in a browser: a player opens it
from the table page's link, finds their own row on the week's rating board among 25
players, pages down and up, switches to the winnings board, stays off the boards and comes
back with the checkbox, and reads the page in German."""

from __future__ import annotations

import json
import re
import secrets

import pytest

from tests.browser.pages import screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# Run in the page server's process (its database, on SQLite too): the player's screen name,
# their rating and 24 rivals' this week (established: RD 60), one tournament ended today.
BUILD = """
import json
from django.utils import timezone
from gin_platform.models import Player
from tests.factories import PlayerFactory
from tests.leaderboards.world import ended_tournament, rated_at
me = Player.objects.get(pk=%(player)r)
me.screen_name = %(name)r
me.save(update_fields=["screen_name"])
now = timezone.now()
rated_at(me, rating=1701.25, at=now)
rivals = [
    PlayerFactory(operator=me.operator, screen_name=f"%(tag)sR{n:02d}") for n in range(24)
]
for n, rival in enumerate(rivals):
    rated_at(rival, rating=1800.0 - 10 * n, at=now)
ended_tournament(me.operator, at=now, entries=[(me, 1100, 5000), (rivals[0], 1100, 0)])
print(json.dumps({"rival": rivals[0].screen_name}))
"""


def rows(page) -> list[list[str]]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#board-table tbody tr.board-row')]
             .map(row => [...row.cells].map(cell => cell.textContent.trim()))"""
    )


def wait_rows(page, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#board-table tbody tr.board-row').length === n"
        " && document.querySelector('main').getAttribute('aria-busy') === 'false'",
        arg=count,
    )


def test_a_player_finds_themselves_pages_switches_board_and_stays_off(site, contexts, play_server):
    player = site.player("Hana")
    tag = secrets.token_hex(2)
    name = f"Hana{tag}"
    built = play_server.manage(
        "shell", "-c", BUILD % {"player": player["id"], "name": name, "tag": tag}
    )
    rival = json.loads(built.strip().splitlines()[-1])["rival"]
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.locator("#lobby-title").wait_for()

    page.locator("#leaderboards-link").click()
    page.wait_for_url(re.compile(r"/play/leaderboards(\?lang=en)?$"))
    wait_rows(page, 20)  # 25 on the board, 20 a page
    assert page.locator("#board-period").inner_text().startswith("Week ")
    mine = page.locator('#board-table tr[data-mine="yes"]')
    assert mine.locator("td").first.inner_text() == "11"  # ten rivals rated above 1701.25
    assert mine.inner_text().split("\t")[1].startswith(name)
    assert "you" in mine.inner_text() and "1,701.25" in mine.inner_text()
    assert "Provisional ratings" in page.locator("#board-note").inner_text()
    screenshot(page, "leaderboards-rating")

    page.locator("#board-next").click()
    wait_rows(page, 5)
    assert [row[0] for row in rows(page)] == ["21", "22", "23", "24", "25"]
    page.locator("#board-previous").click()
    wait_rows(page, 20)

    page.locator("#board-kind").select_option("winnings")
    wait_rows(page, 2)
    assert page.locator("#board-currency").input_value() == "EUR"
    assert [row[:3] for row in rows(page)] == [
        ["1", f"{name}you", "+€39.00"],
        ["2", rival, "-€11.00"],
    ]
    assert "Tickets count nothing" in page.locator("#board-note").inner_text()

    # Off every board, and back: the board is read again at once.
    page.locator("#board-show-me").uncheck()
    wait_rows(page, 1)
    assert rows(page)[0][1] == rival
    page.locator("#board-show-me").check()
    wait_rows(page, 2)
    assert "Only your screen name" in page.locator("#board-show-me-hint").inner_text()

    page.goto(f"{play_server.url}/play/leaderboards?lang=de")
    wait_rows(page, 20)
    assert page.locator("#leaderboard-title").inner_text() == "Bestenlisten"
    assert page.locator("#board-period").inner_text().startswith("Woche ")
    assert "Sie" in page.locator('#board-table tr[data-mine="yes"]').inner_text()
    assert page.get_by_label("Mich in den Bestenlisten zeigen").is_checked()
    screenshot(page, "leaderboards-rating-de")
