"""Opening the page from a launch URL: the token is exchanged once and leaves the address
bar, the session token never travels in a URL, a reload keeps the session, and an expired
or refused session says to open the game again from the operator's site."""

from __future__ import annotations

import pytest
import requests

from tests.browser.pages import refused_fetch, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

RETURN_URL = "https://casino.example/lobby"


# The launch URL opened a second time: its token is refused, on purpose.
@pytest.mark.console_errors(refused_fetch(401, "launch/session"))
def test_the_launch_token_is_exchanged_once_and_no_token_ever_travels_in_a_url(site, contexts):
    player = site.player("Erin")
    url = site.launch_url(player, return_url=RETURN_URL)
    assert "/play/?lang=en#launch=glt_" in url
    context = contexts()
    page = context.new_page()
    addresses: list[str] = []
    page.on("request", lambda request: addresses.append(request.url))
    page.on("websocket", lambda socket: addresses.append(socket.url))
    page.goto(url)
    page.get_by_role("heading", name="Lobby").wait_for()
    assert page.url.endswith("/play/?lang=en")  # the fragment is gone, the language kept
    stored = page.evaluate("() => JSON.parse(sessionStorage.getItem('gin.play.session'))")
    assert stored["token"].startswith("gps_")
    assert page.locator("#player-name").inner_text() == "Erin"
    link = page.get_by_role("link", name="Back to casino.example")
    assert link.get_attribute("href") == RETURN_URL

    page.reload()
    page.get_by_role("heading", name="Lobby").wait_for()
    assert not any("gps_" in address or "glt_" in address for address in addresses), addresses

    # The same launch URL a second time: refused, and the page says what to do.
    again = contexts().new_page()
    again.goto(url)
    again.get_by_role("heading", name="This game link cannot be used").wait_for()
    assert again.get_by_role("alert").count() == 1
    assert "launch=" not in again.url


def test_an_expired_session_asks_to_open_the_game_again_from_the_operator(site, contexts):
    player = site.player("Frank")
    page = contexts().new_page()
    page.goto(site.launch_url(player, return_url=RETURN_URL))
    page.get_by_role("heading", name="Lobby").wait_for()
    page.evaluate(
        """() => {
          const s = JSON.parse(sessionStorage.getItem('gin.play.session'));
          s.expires_at = new Date(Date.now() - 1000).toISOString();
          sessionStorage.setItem('gin.play.session', JSON.stringify(s));
        }"""
    )
    page.reload()
    page.get_by_role("heading", name="Your session has expired").wait_for()
    assert "Open the game again from your operator's site." in page.inner_text("main")
    assert page.get_by_role("link", name="Back to the site").get_attribute("href") == RETURN_URL
    assert page.evaluate("() => sessionStorage.getItem('gin.play.session')") is None
    screenshot(page, "session-expired")


# The forged token: every call the page makes at once on opening is refused, on purpose.
@pytest.mark.console_errors(refused_fetch(401, r"[a-z/-]+"))
def test_a_session_the_server_refuses_ends_on_the_next_call(site, contexts):
    player = site.player("Gina")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.get_by_role("heading", name="Lobby").wait_for()
    page.evaluate(
        """() => {
          const s = JSON.parse(sessionStorage.getItem('gin.play.session'));
          s.token = 'gps_' + 'x'.repeat(40);
          sessionStorage.setItem('gin.play.session', JSON.stringify(s));
        }"""
    )
    page.reload()
    page.get_by_role("heading", name="Your session has expired").wait_for()


def test_a_launch_in_watch_mode_opens_the_running_table(site, contexts):
    room = site.room(name="Practice", variant="ftk", is_practice=True, stake="100")
    sitter = site.player("Hugo")
    token = site.post(f"players/{sitter['id']}/sessions", {})["token"]
    player_api = requests.Session()
    player_api.headers["Authorization"] = f"Bearer {token}"
    lobby = player_api.get(f"{site.base_url}/api/v1/lobby/{room['id']}", timeout=30).json()
    table_id = lobby["tables"][0]["id"]
    seat = player_api.post(f"{site.base_url}/api/v1/tables/{table_id}/sit", json={}, timeout=30)
    assert seat.status_code == 201, seat.text
    bot = player_api.post(f"{site.base_url}/api/v1/tables/{table_id}/bot", json={}, timeout=30)
    assert bot.status_code == 201, bot.text
    match_id = seat.json()["match_id"]

    watcher = site.player("Ines")
    page = contexts().new_page()
    page.goto(site.launch_url(watcher, mode="watch", match=match_id))
    page.get_by_role("heading", name=f"Watching table {table_id}").wait_for()
    page.locator('#connection[data-state="live"]').wait_for()
    assert page.locator("#hand").count() == 0
    assert page.locator("#actions").count() == 0
    # Only the discard pile's top card is face up; both hands are backs.
    assert page.locator("[data-card]").count() == 1
    assert page.locator(".player-box").count() == 2
    screenshot(page, "watch-launch")
