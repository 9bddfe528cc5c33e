"""Player protection on the hosted page under the `es` profile (docs/player-protection.md
"The hosted page"): the session's limits asked before the first real-money seat (and when a
sit is refused for want of them), a reality check shown at the deal and answered while the
turn clock shows paused, and the session ended by its duration limit: the game stopped
after its hand, every stake back.

The reality check and the duration are staged on the database the page server serves
(PostgreSQL only): the check's due time is moved into the past before the hand is dealt (the
table reads due times at each deal), and the session's start is moved back before the test
runs the protection sweep, as the beat would. The sweep's pushes go to this process's channel
layer, not the server's (conftest.py): the page learns of the session's end the way it does
when a push is lost, from the game's change of status.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from protection.models import PlaySession
from protection.services.sweep import play_sessions_sweep
from tests.browser.pages import (
    TIMEOUT_MS,
    PlayPage,
    RestPlayer,
    database,
    refused_fetch,
    screenshot,
)

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

SIT = re.compile(r"/api/v1/tables/\d+/sit$")


def set_limits(page, minutes: str, loss: str) -> None:
    """The lobby's first table: Sit, then the limits the page asks for first."""
    row = page.locator(".table-row").first
    row.get_by_role("button", name=re.compile(r"^Sit at Table ")).click()
    limits = page.get_by_role("dialog", name="Set your session limits")
    limits.get_by_label("Session length (minutes)").fill(minutes)
    limits.get_by_label(re.compile(r"^Loss limit")).fill(loss)
    limits.get_by_role("button", name="Set the limits").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()


def check_due_now(player_id: str) -> int:
    """The player's next reality check is due: before the deal that shows it."""
    due = timezone.now() - timedelta(seconds=1)
    return PlaySession.objects.filter(player_id=player_id, ended_at__isnull=True).update(
        next_reality_check_at=due
    )


def duration_passed(player_id: str) -> tuple[int, list[int]]:
    """The session began 61 minutes ago (its limit is 60); then the protection sweep."""
    session = PlaySession.objects.get(player_id=player_id, ended_at__isnull=True)
    PlaySession.objects.filter(pk=session.pk).update(
        started_at=F("started_at") - timedelta(minutes=61)
    )
    return session.pk, play_sessions_sweep().limits_reached


def session_of(player_id: str) -> PlaySession:
    return PlaySession.objects.get(player_id=player_id)


def session_of_state(player_id: str) -> tuple[str, str]:
    """The player's session's state and its reality check's answer."""

    def read() -> tuple[str, str]:
        session = PlaySession.objects.get(player_id=player_id)
        return session.state, session.checks.get().answer

    return database(read)


@pytest.mark.slow
@pytest.mark.postgres  # the page server shares this test database only on PostgreSQL
# Refused on purpose: a sit before the limits (when the page read its session before the
# profile changed), the limits without a loss limit.
@pytest.mark.console_errors(
    refused_fetch(409, r"tables/\d+/sit"), refused_fetch(422, "me/play-session")
)
def test_es_limits_first_a_reality_check_answered_and_the_session_ended_by_its_limit(
    site, contexts, play_server
):
    assert play_server.shares_test_database  # the check and the sweep are staged here
    room = site.room(
        name="Match Play for money", variant="match", target=100, stake="5.00", turn_seconds=600
    )
    ana_player = site.player("Ana", deposit="50.00")
    page = contexts().new_page()
    sits: list[str] = []
    page.on("request", lambda r: r.method == "POST" and SIT.search(r.url) and sits.append(r.url))
    page.goto(site.launch_url(ana_player))
    row = page.locator(f'.room[data-room-id="{room["id"]}"] .table-row').first
    table_id = row.get_attribute("data-table-id")
    sit = row.get_by_role("button", name=f"Sit at Table {table_id}")
    sit.wait_for()
    limits = page.get_by_role("dialog", name="Set your session limits")

    # The operator moves to the es profile while the page is open. Either the page read its
    # session before the change (it sits, the server refuses with session-limits-required
    # and the page asks for the limits) or after it (a re-read on its socket's hello: it
    # asks first); both are the page's way, and which one comes depends on timing. Either
    # way the limits are asked, and cancelled nobody is seated.
    site.patch("operators/me", {"jurisdiction": "es"})
    sit.click()
    limits.wait_for()
    refused_sits = len(sits)
    assert refused_sits <= 1
    limits.get_by_role("button", name="Cancel").click()
    limits.wait_for(state="detached")
    assert page.locator("#play-session").is_hidden()
    assert page.get_by_role("alert").count() == 0  # not an error: the player chose not to

    # Opened again, the page knows the profile: the limits come first, before any sit.
    page.reload()
    sit.click()
    limits.wait_for()
    assert len(sits) == refused_sits
    assert limits.get_attribute("aria-describedby") == "limits-intro"
    limits.get_by_label("Session length (minutes)").fill("60")
    limits.get_by_role("button", name="Set the limits").click()
    error = limits.locator("#limits-error")
    error.filter(has_text="Choose this session's loss limit").wait_for()
    assert limits.get_by_label("Loss limit (EUR)").get_attribute("aria-invalid") == "true"
    screenshot(page, "protection-limits-first")
    limits.get_by_label("Loss limit (EUR)").fill("20.00")
    limits.get_by_role("button", name="Set the limits").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    assert len(sits) == refused_sits + 1  # this sit only, whichever way the first went
    strip = page.locator("#play-session")
    strip.locator("#session-in-play", has_text="€5.00").wait_for()
    assert page.get_by_role("region", name="Your session").is_visible()
    assert strip.locator("#session-limits").inner_text() == "60 min · loss €20.00"
    assert strip.locator("#session-net").inner_text() == "€0.00"
    assert re.fullmatch(r"\d+:\d\d", strip.locator("#session-elapsed").inner_text())
    assert strip.get_by_role("button", name="End session…").is_visible()

    # Ana's reality check falls due before the deal; Bob (over REST, his own limits set)
    # sits, the hand is dealt and the check shows at its first turn boundary.
    assert database(check_due_now, ana_player["id"]) == 1
    bob = RestPlayer(site, play_server.url, "Bob", deposit="50.00")
    bob.call("POST", "me/play-session", {"duration_minutes": 240, "loss_limit": "50.00"})
    seat = bob.call("POST", f"tables/{table_id}/sit", {})
    match_id, bob_seat = seat["match_id"], seat["position"]
    ana = PlayPage(page, "Ana")
    check = page.get_by_role("dialog", name="Reality check")
    check.wait_for(timeout=TIMEOUT_MS)
    assert (
        check.locator("#reality-check-elapsed")
        .inner_text()
        .startswith("You have been playing for ")
    )
    assert check.locator("#reality-check-net").inner_text().startswith("Net position: €0.00")
    assert check.get_by_role("link", name="Your history").get_attribute("href") == "history?lang=en"
    check.locator("summary", has_text="Your limits").click()
    check.get_by_text("This session: 60 min · loss €20.00.").wait_for()
    page.keyboard.press("Escape")  # answered with a button only
    assert check.is_visible()

    # While it waits, Ana's turn clock is paused (Bob plays on until it is her turn).
    for _ in range(3):
        view = bob.call("GET", f"matches/{match_id}/view")
        if view["hand"]["to_act"] != bob_seat:
            break
        bob.move(match_id)
    stage = page.locator("#turn-stage")
    stage.filter(has_text="Clock paused: reality check").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("#countdown").get_attribute("aria-label") == "Time left of the pause"
    assert page.locator("#countdown").get_attribute("data-stage") == "pause"
    screenshot(page, "protection-reality-check")

    # Continue: the dialog goes, the clock runs again, and play goes on.
    check.get_by_role("button", name="Continue playing").click()
    check.wait_for(state="detached")
    stage.wait_for(state="detached", timeout=TIMEOUT_MS)
    seq = ana.seq()
    ana.play_as_the_bot()
    assert ana.seq() > seq
    assert session_of_state(ana_player["id"]) == ("open", "continue")

    # The session's 60 minutes pass: the sweep ends it (es: the session ends on its limit)
    # and marks Ana's game to stop after the hand in play. The hand is played out.
    session_id, reached = database(duration_passed, ana_player["id"])
    assert reached == [session_id]
    for _ in range(400):
        view = bob.call("GET", f"matches/{match_id}/view")
        if view["match"]["status"] != "running":
            break
        if view["hand"]["to_act"] == bob_seat:
            ana.wait_seq(bob.play_as_the_bot(match_id)["seq"])
        else:
            ana.wait_seq(view["seq"])
            ana.play_as_the_bot()
    stopped = page.locator('#result.stopped[data-status="voided"]')
    stopped.wait_for(timeout=TIMEOUT_MS)
    # Once the page has read why (its own session's end), it says so.
    stopped.locator("#stopped-text").filter(
        has_text=(
            "Your session's time limit was reached: the game was stopped after the hand and "
            "every stake returned."
        )
    ).wait_for(timeout=TIMEOUT_MS)
    notice = page.get_by_role("status").filter(has_text="Your session's time limit was reached")
    notice.wait_for(timeout=TIMEOUT_MS)
    assert "every stake in it is returned" in notice.inner_text()
    assert strip.locator("#session-title").inner_text() == "Session ended: time limit reached"
    assert strip.get_by_role("button").count() == 0  # nothing more to end
    page.locator("#wallet-balance", has_text="€50.00").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("#session-stopping").count() == 0
    assert page.get_by_role("button", name="Back to the lobby").is_visible()
    screenshot(page, "protection-session-ended")

    # Every stake back, no fee: both wallets as before the game; the session ended.
    assert bob.call("GET", f"matches/{match_id}/view")["match"]["status"] == "voided"
    assert bob.call("GET", "me/wallet")["balance"]["amount"] == "50.00"
    session = database(session_of, ana_player["id"])
    assert (session.state, session.end_reason) == ("ended", "duration_limit")


def check_shown_away_from_tables(player_id: str) -> list[int]:
    """The check falls due while the player plays no game: the sweep shows it."""
    check_due_now(player_id)
    return play_sessions_sweep().checks_shown


@pytest.mark.postgres  # the page server shares this test database only on PostgreSQL
def test_a_waiting_reality_check_shows_when_the_page_opens_and_can_end_the_session(
    site, contexts, play_server
):
    assert play_server.shares_test_database  # the check is shown here, by the sweep
    site.patch("operators/me", {"jurisdiction": "es"})
    site.room(name="Money", variant="ftk", stake="2.00", turn_seconds=600)
    player = site.player("Eva", deposit="20.00")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    set_limits(page, "30", "10")
    strip = page.locator("#play-session")
    assert strip.locator("#session-limits").inner_text() == "30 min · loss €10.00"

    # Waiting for an opponent is no game being played: the sweep shows the check at once,
    # and its push is lost (conftest.py). Opening the page again, it is there to answer.
    assert len(database(check_shown_away_from_tables, player["id"])) == 1
    page.reload()
    check = page.get_by_role("dialog", name="Reality check")
    check.wait_for(timeout=TIMEOUT_MS)
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    check.get_by_role("button", name="End session").click()
    check.wait_for(state="detached")
    strip.locator("#session-title", has_text="Session ended: ended by you").wait_for()
    notice = page.get_by_role("status").filter(has_text="You ended your session")
    assert "To play for real money again, start a new session." in notice.inner_text()
    screenshot(page, "protection-session-ended-by-the-player")
    assert session_of_state(player["id"]) == ("ended", "end_session")
    assert database(session_of, player["id"]).end_reason == "player"
