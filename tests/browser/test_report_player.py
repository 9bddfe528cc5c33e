"""A player reports their opponent from the table page (docs/integrity.md "Player
reports"): the "Report" control opens a dialog, the report is sent, the page says it was
received, and the player's reports list it with its status (never the outcome)."""

from __future__ import annotations

import re

import pytest

from tests.browser.pages import practice_match_against_the_bot, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# The player's own reports, read with the page's session token (games/static/games/play/
# session.js keeps it in sessionStorage).
MY_REPORTS = """async () => {
  const session = JSON.parse(window.sessionStorage.getItem("gin.play.session"));
  const answer = await fetch("/api/v1/me/reports", {
    headers: { Authorization: `Bearer ${session.token}`, Accept: "application/json" },
  });
  return answer.json();
}"""


def test_a_player_reports_the_opponent_from_the_table(site, contexts):
    player = practice_match_against_the_bot(site, contexts, "Rita", target=100)
    page = player.page
    page.get_by_role("button", name=re.compile(r"^Report .+…$")).click()
    dialog = page.get_by_role("dialog", name=re.compile(r"^Report "))
    dialog.get_by_label("What happened").select_option("bot")
    dialog.get_by_label("Anything to add (optional)").fill("answers in no time, every turn")
    screenshot(page, "report-dialog")
    dialog.get_by_role("button", name="Send the report").click()
    page.get_by_text("Report received").wait_for()
    dialog.wait_for(state="detached")
    reports = page.evaluate(MY_REPORTS)["results"]
    assert [(r["category"], r["status"]) for r in reports] == [("bot", "under_review")]
    # The game goes on: the table is still there, nothing else changed.
    assert page.locator("#hand .card").count() >= 10
