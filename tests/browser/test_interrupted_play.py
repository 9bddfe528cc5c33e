"""R13, interrupted play, on the table page (docs/rules.md R13, docs/play.md): both clocks of
the player to act (the turn's and every seat's time bank), an opponent's reconnect grace
("Disconnected — waiting N s"), and, when a player comes back after the platform played
turns for them, a banner saying how many (once) and the moves marked "(auto)".

The turn timer is the platform's beat job; here the test runs it itself
(``turn_timers_expire``) on the database the page server serves, as the beat would. Its
pushes go to this process's channel layer, not to the server's (conftest.py: the server's is
in memory), so the page learns of a new stage the way it does when a push is lost: it asks
for the view once the stage's deadline is past (clocks.js ``StageWatch``). Presence is read
from this process's cache, where no socket and no request of either player is marked: each
player counts as disconnected (the mark is deleted all the same, as R13 reads it).
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games.models import Hand, HandEvent, Match
from games.services import turn_grace, turn_timers_expire
from gin_platform.request_path.seen import seen_key
from tests.browser.pages import TIMEOUT_MS, PlayPage, RestPlayer, database, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

WAITING = re.compile(r"Disconnected \u2014 waiting (\d+) s")
CLOCK = re.compile(r"\d+:\d\d")


def running_hand(match_id: int) -> Hand:
    return Hand.objects.get(match_id=match_id, status=Hand.Status.IN_PROGRESS)


def timers_run(match_id: int, player_id: str, *, at=None) -> tuple[list[int], Hand]:
    """The turn timer, as the beat runs it, once the player's presence mark is gone: what it
    did to which matches, and the hand after it."""
    cache.delete(seen_key(player_id))
    sweep = turn_timers_expire(now=at)
    return [*sweep.extended, *sweep.auto_played], running_hand(match_id)


def wait_past(deadline) -> None:
    """Until the turn timer would act on ``deadline`` (it waits ``turn_grace`` after it)."""
    left = (deadline + turn_grace() - timezone.now()).total_seconds()
    time.sleep(max(0.0, left) + 0.3)


def no_console_errors(page, errors: list[str]) -> None:
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))


def open_table(contexts, site, player, room: dict, errors: list[str]) -> tuple[PlayPage, str]:
    """The player opens the page from a launch URL and sits at the room's first table."""
    page = contexts().new_page()
    no_console_errors(page, errors)
    page.goto(site.launch_url(player))
    row = page.locator(f'.room[data-room-id="{room["id"]}"] .table-row').first
    table_id = row.get_attribute("data-table-id")
    row.get_by_role("button", name=f"Sit at Table {table_id}").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    return PlayPage(page, player["display_name"]), table_id


def countdown_moves(locator, pattern: re.Pattern) -> None:
    """The number ``pattern`` reads from the element goes down: it is counting."""
    first = int(pattern.search(locator.inner_text()).group(1))
    locator.page.wait_for_function(
        "([el, re, first]) => { const m = new RegExp(re).exec(el.textContent);"
        " return m && Number(m[1]) < first; }",
        arg=[locator.element_handle(), pattern.pattern, first],
        timeout=TIMEOUT_MS,
    )


@pytest.mark.slow
@pytest.mark.postgres  # the page server shares this test database only on PostgreSQL
def test_both_clocks_and_a_disconnected_opponents_wait_show_to_players_and_watchers(
    site, contexts, play_server
):
    assert play_server.shares_test_database  # the turn timer runs here, on its database
    room = site.room(
        name="Clocks",
        variant="match",
        target=100,
        is_practice=True,
        stake="100",
        turn_seconds=5,
        turn_clock={"time_bank_seconds": 40, "reconnect_grace_seconds": 12},
    )
    errors: list[str] = []
    alice, table_id = open_table(contexts, site, site.player("Alice"), room, errors)
    bob = RestPlayer(site, play_server.url, "Bob")
    seat = bob.call("POST", f"tables/{table_id}/sit", {})
    match_id, bob_seat = seat["match_id"], seat["position"]
    alice_seat = 1 - bob_seat
    alice.page.locator("#hand .card").first.wait_for()
    if alice.my_turn():  # she was offered the upcard first: she passes, and it is Bob's turn
        seq = alice.seq()
        alice.press_action("pass")
        alice.wait_seq(seq + 1)

    carol = contexts().new_page()
    no_console_errors(carol, errors)
    carol.goto(site.launch_url(site.player("Carol")))
    carol.get_by_role("button", name=f"Watch Table {table_id}").click()
    carol.locator(".table-screen.watching").wait_for()

    # Both clocks: the turn's, counting down, and every seat's time bank, to everybody.
    page = alice.page
    assert page.locator("#turn-text").inner_text() == "Bob's turn"
    assert CLOCK.fullmatch(page.locator("#countdown").inner_text())
    assert page.locator("#turn-stage").count() == 0  # the turn's own clock: not named
    assert page.locator(f"#bank-{alice_seat}").inner_text() == "You 0:40"
    assert page.locator(f"#bank-{bob_seat}").inner_text() == "Bob 0:40"
    assert page.locator("#clocks-title").inner_text() == "Time banks"
    assert carol.locator(f"#bank-{alice_seat}").inner_text() == "Alice 0:40"
    assert carol.locator(f"#bank-{bob_seat}").inner_text() == "Bob 0:40"
    page.locator(f"#presence-{bob_seat}", has_text="offline").wait_for()  # no socket
    screenshot(page, "r13-clocks")

    # Bob's turn runs out while he is away: the reconnect grace, "Disconnected — waiting".
    hand = database(running_hand, match_id)
    assert hand.to_act == bob_seat
    wait_past(hand.turn_deadline)
    acted, hand = database(timers_run, match_id, bob.player["id"])
    assert acted == [match_id] and hand.turn_stage == "grace"
    for viewer in (page, carol):
        badge = viewer.locator(f"#presence-{bob_seat}")
        badge.filter(has_text=WAITING).wait_for(timeout=TIMEOUT_MS)
        assert viewer.locator("#turn-stage").inner_text() == "Reconnect grace"
        assert viewer.locator("#countdown").get_attribute("aria-label") == (
            "Time left of the reconnect grace"
        )
    countdown_moves(page.locator(f"#presence-{bob_seat}"), WAITING)
    waiting = int(WAITING.search(page.locator(f"#presence-{bob_seat}").inner_text()).group(1))
    assert 0 <= waiting <= 12
    screenshot(page, "r13-opponent-disconnected")
    screenshot(carol, "r13-watcher-opponent-disconnected")

    # The grace runs out: Bob's time bank runs, counting down for everybody.
    wait_past(hand.turn_deadline)
    acted, hand = database(timers_run, match_id, bob.player["id"])
    assert acted == [match_id] and hand.turn_stage == "bank"
    running = re.compile(r"Bob 0:(\d\d) in use")
    for viewer in (page, carol):
        viewer.locator(f"#bank-{bob_seat}.running").wait_for(timeout=TIMEOUT_MS)
        assert running.fullmatch(viewer.locator(f"#bank-{bob_seat}").inner_text())
        assert viewer.locator("#turn-stage").inner_text() == "Time bank"
    countdown_moves(page.locator(f"#bank-{bob_seat}"), running)
    assert page.locator(f"#bank-{alice_seat}").inner_text() == "You 0:40"
    screenshot(page, "r13-opponent-time-bank")

    # Bob is back and moves: the bank stops with what he used taken off, his wait is over.
    seq = alice.seq()
    bob.move(match_id)
    alice.wait_seq(seq + 1)
    left = page.locator(f"#bank-{bob_seat}").inner_text()
    assert re.fullmatch(r"Bob 0:(\d\d)", left) and left != "Bob 0:40", left
    assert page.locator(f"#bank-{bob_seat}.running").count() == 0
    assert page.locator(f"#presence-{bob_seat}").inner_text() == "offline"
    assert errors == []


@pytest.mark.slow
@pytest.mark.postgres  # the page server shares this test database only on PostgreSQL
def test_turns_played_for_an_absent_player_are_told_once_and_marked_in_the_moves(
    site, contexts, play_server
):
    assert play_server.shares_test_database  # the turn timer runs here, on its database
    room = site.room(
        name="Auto-play",
        variant="match",
        target=100,
        is_practice=True,
        stake="100",
        turn_seconds=5,
        turn_clock={
            "time_bank_seconds": 2,
            "time_bank_top_up_seconds": 0,
            "reconnect_grace_seconds": 0,
            "auto_play_turns": 3,
        },
    )
    errors: list[str] = []
    dana_player = site.player("Dana")
    dana, table_id = open_table(contexts, site, dana_player, room, errors)
    context = dana.page.context
    eve = RestPlayer(site, play_server.url, "Eve")
    seat = eve.call("POST", f"tables/{table_id}/sit", {})
    match_id, dana_seat = seat["match_id"], 1 - seat["position"]
    dana.page.locator("#hand .card").first.wait_for()
    dana.page.locator(f"#bank-{dana_seat}", has_text="You 0:02").wait_for()
    assert dana.page.get_by_role("status").filter(has_text="played for you").count() == 0

    # Dana's page closes. Whenever it is her turn, its clock and her bank run out and the
    # platform plays it for her (R13), twice; Eve plays on.
    dana.page.close()

    def auto_played() -> int:
        return Match.objects.get(pk=match_id).clocks.get("auto_played", [0, 0])[dana_seat]

    for _ in range(20):
        if database(auto_played) == 2:
            break
        hand = database(running_hand, match_id)
        if hand.to_act == dana_seat:
            at = hand.turn_deadline + turn_grace() + timedelta(seconds=1)
            database(timers_run, match_id, dana_player["id"], at=at)
        else:
            eve.move(match_id)
    assert database(auto_played) == 2
    auto_seqs = set(
        database(
            lambda: list(
                HandEvent.objects.filter(match_id=match_id, payload__auto=True).values_list(
                    "match_seq", flat=True
                )
            )
        )
    )
    assert auto_seqs

    # She opens the game again (a new launch, a new tab): the banner says so, once.
    page = context.new_page()
    no_console_errors(page, errors)
    page.goto(site.launch_url(dana_player))
    page.get_by_role("button", name="Return to the table").first.click()
    banner = page.get_by_role("status").filter(has_text="2 turns were played for you")
    banner.wait_for(timeout=TIMEOUT_MS)
    assert "may play 1 more turn for you in this game" in banner.inner_text()
    page.locator("#log li.auto").first.wait_for(timeout=TIMEOUT_MS)
    marked = page.eval_on_selector_all(
        "#log li.auto", "els => els.map(e => [Number(e.dataset.seq), e.textContent])"
    )
    assert {seq for seq, _ in marked} == auto_seqs, (marked, auto_seqs)
    assert all(text.startswith("You ") and text.endswith(" (auto)") for _, text in marked)
    assert page.locator("#log li:not(.auto) .auto-mark").count() == 0
    screenshot(page, "r13-turns-played-for-you")
    page.get_by_role("button", name="Dismiss: 2 turns were played for you").click()
    assert banner.count() == 0

    # Told once: a reload does not say it again.
    page.reload()
    page.locator('#connection[data-state="live"]').wait_for(timeout=TIMEOUT_MS)
    page.locator("#log li.auto").first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_role("status").filter(has_text="played for you").count() == 0

    # With the page open, one more turn is played for her (the last one R13 allows): the
    # banner says so live, counting that one only, and the moves list marks it.
    dana = PlayPage(page, "Dana")
    for _ in range(3):  # Eve's turn: a draw and a discard, or a pass
        hand = database(running_hand, match_id)
        if hand.to_act == dana_seat:
            break
        seq = dana.seq()
        eve.move(match_id)
        dana.wait_seq(seq + 1)
    assert hand.to_act == dana_seat
    wait_past(hand.turn_deadline)
    database(timers_run, match_id, dana_player["id"])
    assert database(auto_played) == 3
    banner = page.get_by_role("status").filter(has_text="1 turn was played for you")
    banner.wait_for(timeout=TIMEOUT_MS)
    assert "The next time your time runs out, you forfeit the game." in banner.inner_text()
    page.wait_for_function(
        "n => document.querySelectorAll('#log li.auto').length > n", arg=len(marked)
    )
    page.keyboard.press("Escape")  # the latest message goes
    assert banner.count() == 0
    assert errors == []


def test_a_room_without_a_time_bank_shows_no_banks(site, contexts, play_server):
    room = site.room(
        name="No bank",
        variant="ftk",
        is_practice=True,
        stake="100",
        turn_seconds=600,
        turn_clock={"time_bank_seconds": 0},
    )
    errors: list[str] = []
    frank, table_id = open_table(contexts, site, site.player("Frank"), room, errors)
    gina = RestPlayer(site, play_server.url, "Gina")
    gina.call("POST", f"tables/{table_id}/sit", {})
    frank.page.locator("#hand .card").first.wait_for()
    assert CLOCK.fullmatch(frank.page.locator("#countdown").inner_text())
    assert frank.page.locator("#clocks").count() == 0
    assert errors == []
