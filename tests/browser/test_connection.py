"""The page's connection line (docs/play.md "Connection"): the header says how live the page
is, for real. A player at a practice table loses the network (Playwright's offline mode,
which also ends the page's sockets): the header says "Reconnecting…" and then "Offline"
within seconds, a move is refused at once with a message and changes nothing, and when
the network is back the header says "Live" again, the messages about the connection are
gone (one that is not about it stays) and the move is played. A socket that goes silent
without closing is noticed by the page's heartbeat."""

from __future__ import annotations

import re
import time

import pytest

from games import engine
from tests.browser.pages import (
    TIMEOUT_MS,
    PlayPage,
    offline_fetch,
    practice_match_against_the_bot,
    screenshot,
)

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# Every state the header's line takes from now on, in order, with the time it took it.
RECORD_STATES = """() => {
  const line = document.querySelector('#connection');
  window.connectionStates = [];
  const started = performance.now();
  const note = () => window.connectionStates.push(
    [line.dataset.state, Math.round(performance.now() - started)]);
  new MutationObserver(note).observe(line, {attributes: true, attributeFilter: ['data-state']});
}"""
# What Chromium logs by itself for each request that fails while offline (the probe sends
# none then, but minting a socket ticket and sending the report do).
OFFLINE_NETWORK_ERROR = "net::ERR_INTERNET_DISCONNECTED"
NOT_SENT = "You are offline: your move was not sent."


def header(page) -> tuple[str | None, str]:
    """The header's state and the one label it shows, which is what screen readers are told."""
    line = page.locator("header #connection")
    shown = line.locator(".connection-label.current").inner_text()
    assert line.locator(".connection-said").text_content() == shown
    return line.get_attribute("data-state"), shown


def wait_state(page, state: str, *, timeout: int = TIMEOUT_MS) -> None:
    page.locator(f'header #connection[data-state="{state}"]').wait_for(timeout=timeout)


def my_turn(player: PlayPage) -> dict:
    """Wait for the player's turn; what the screen offers then."""
    player.page.wait_for_function(
        "() => document.querySelector('#actions [data-action]')"
        " || document.querySelector('#hand.can-discard')"
    )
    return player.view_from_screen()


# Offline on purpose: whatever the page asks meanwhile fails.
@pytest.mark.console_errors(offline_fetch(r"[a-z0-9/-]+"))
def test_offline_then_back_at_a_practice_table(site, contexts):
    console: list[tuple[str, str]] = []  # (phase, text) of every console error
    phase = ["online"]

    def note_error(message) -> None:
        if message.type == "error":
            console.append((phase[0], message.text))

    context = contexts()
    context.on("console", note_error)
    kim = practice_match_against_the_bot(site, lambda: context, "Kim", target=100)
    page = kim.page
    wait_state(page, "live")
    assert header(page) == ("live", "Live")
    view = my_turn(kim)
    # A problem that is not about the connection: a shortcut for a move the rules do not
    # allow now (Big Gin), refused by the server. It must outlive the connection's trouble.
    page.locator("#main").focus()
    page.keyboard.press("b")
    refused = page.get_by_role("alert").first
    refused.wait_for()
    refused_title = refused.locator(".message-title").inner_text()
    assert refused.get_attribute("data-about") is None

    page.evaluate(RECORD_STATES)
    phase[0] = "offline"
    context.set_offline(True)
    started = time.monotonic()
    wait_state(page, "offline", timeout=8000)
    states = dict(page.evaluate("window.connectionStates"))  # state -> when, in ms
    # The socket is pinged when the browser says its network went: no answer within 2 s
    # (heartbeat.js), then REST is asked (connection.js) and fails too.
    assert states["reconnecting"] < 3500, states
    assert states["reconnecting"] < states["offline"] < 5000, states
    assert time.monotonic() - started < 6
    assert header(page) == ("offline", "Offline")
    screenshot(page, "connection-offline")

    # A move while offline: refused at once, said so, nothing sent and nothing changed.
    seq, hand = kim.seq(), kim.hand()
    move = engine.choose_action_from_view(view)
    kim.play(move)
    page.get_by_role("alert").filter(has_text=NOT_SENT).wait_for()
    assert (kim.seq(), kim.hand()) == (seq, hand)
    assert kim.my_turn()
    # A request the page makes anyway (reporting the opponent) fails and says why.
    page.get_by_role("button", name=re.compile(r"^Report .+…$")).click()
    dialog = page.get_by_role("dialog", name=re.compile(r"^Report "))
    dialog.get_by_role("button", name="Send the report").click()
    unreachable = page.get_by_role("alert").filter(has_text="The game server cannot be reached")
    unreachable.wait_for()
    dialog.get_by_role("button", name="Cancel").click()
    assert page.locator('#messages [data-about="connection"]').count() == 2
    screenshot(page, "connection-offline-move-refused")

    # Back: the header says live, the messages about the connection are gone, and only them.
    phase[0] = "back"
    context.set_offline(False)
    wait_state(page, "live", timeout=10000)
    assert header(page) == ("live", "Live")
    page.locator('#messages [data-about="connection"]').first.wait_for(state="detached")
    assert page.get_by_role("alert").filter(has_text=NOT_SENT).count() == 0
    assert unreachable.count() == 0
    assert page.locator(".message-title").all_inner_texts() == [refused_title]
    # The same move, now: it is played.
    assert (kim.seq(), kim.hand()) == (seq, hand)
    kim.play(move)
    kim.wait_seq(seq + 1)
    assert page.get_by_role("alert").filter(has_text=NOT_SENT).count() == 0
    screenshot(page, "connection-back")

    # Chromium logs each request and socket it could not make while offline; nothing else.
    unexpected = [
        (when, text)
        for when, text in console
        if not (when == "offline" and OFFLINE_NETWORK_ERROR in text)
    ]
    assert unexpected == [], unexpected


def test_a_socket_that_goes_silent_is_noticed_by_the_heartbeat(site, contexts):
    """The match's socket stays open but nothing comes through it any more (a network that
    vanished without a close): the page's pings get no answer, so within a few seconds the
    header says "Reconnecting…"; once messages come through again it is live again."""
    silent = [False]

    def through_the_network(socket) -> None:
        server = socket.connect_to_server()
        socket.on_message(lambda message: server.send(message))
        server.on_message(lambda message: None if silent[0] else socket.send(message))

    context = contexts()
    context.route_web_socket(re.compile(r"/ws/v1/matches/"), through_the_network)
    kim = practice_match_against_the_bot(site, lambda: context, "Kim", target=100)
    page = kim.page
    wait_state(page, "live")
    my_turn(kim)
    silent[0] = True
    started = time.monotonic()
    wait_state(page, "reconnecting", timeout=8000)
    assert time.monotonic() - started < 8
    silent[0] = False
    wait_state(page, "live", timeout=TIMEOUT_MS)
    # The game goes on over the new socket.
    seq = kim.seq()
    kim.play_as_the_bot()
    assert kim.seq() > seq


# Offline on purpose: whatever the page asks meanwhile fails.
@pytest.mark.console_errors(offline_fetch(r"[a-z0-9/-]+"))
def test_the_lobby_says_so_too(site, contexts):
    """Away from a table the line speaks of the player's own socket (/ws/v1/me)."""
    context = contexts()
    page = context.new_page()
    page.goto(site.launch_url(site.player("Lea")))
    page.get_by_role("heading", name="Lobby").wait_for()
    wait_state(page, "live")
    context.set_offline(True)
    wait_state(page, "offline", timeout=8000)
    assert header(page) == ("offline", "Offline")
    context.set_offline(False)
    wait_state(page, "live", timeout=10000)
    page.get_by_role("heading", name="Lobby").wait_for()
