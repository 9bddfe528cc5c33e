"""The house bot's level on the table page (docs/play.md, docs/engine.md "Bot levels"): a
player waiting at a practice table picks the strong bot, which sits down at that level and is
shown with it beside its name."""

from __future__ import annotations

import pytest

from games.models import Seat
from tests.browser.pages import database

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_waiting_player_invites_the_strong_house_bot(site, contexts):
    room = site.room(name="Practice", variant="ftk", is_practice=True, stake="100")
    player = site.player("Ivy")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.get_by_role("heading", name="Lobby").wait_for()
    row = page.locator(f'.room[data-room-id="{room["id"]}"] .table-row').first
    table_id = row.get_attribute("data-table-id")
    row.get_by_role("button", name=f"Sit at Table {table_id}").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    level = page.get_by_label("House bot's level")
    assert level.input_value() == ""  # the room's level unless the player picks one
    level.select_option("strong")
    page.get_by_role("button", name="Play the house bot").click()
    box = page.locator(".player-box", has_text="House bot")
    box.locator(".bot-level", has_text="level: strong").wait_for()
    levels = database(
        lambda: list(
            Seat.objects.filter(table_id=int(table_id)).values_list("bot_level", flat=True)
        )
    )
    assert sorted(levels, key=str) == [None, "strong"]
