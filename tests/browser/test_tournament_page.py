"""The hosted tournament page (docs/play.md "Tournaments") in a browser: a player opens the
tournament lobby from the table page, registers for a sit and go for two (withdrawing once,
refunded in full) that a second player fills over the API, sees the bracket appear and "your
match is ready" without a reload, takes the seat and plays the match by clicks at the table
page to its end, then sees their place and prize on the tournament's page, while a third
player follows the bracket live; and the page in Spanish, where a refused registration
speaks Spanish too."""

from __future__ import annotations

import pytest

from tests.browser.pages import (
    TIMEOUT_MS,
    PlayPage,
    RestPlayer,
    in_language,
    refused_fetch,
    screenshot,
)

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


def sit_and_go_for_two(site, **fields) -> dict:
    return site.post(
        "tournaments",
        {
            "name": "Sit and go for two",
            "kind": "sit_and_go",
            "seats": 2,
            "currency": "EUR",
            "buy_in": "1.00",
            "entry_fee": "0.10",
            "max_entries": 2,
            "no_show_seconds": 600,
            "turn_seconds": 600,
            "round_settings": [{"variant": "ftk"}],
            **fields,
        },
    )


def facts(page, selector: str) -> dict[str, str]:
    """A card's facts (its <dl>), by their data-fact key."""
    return page.evaluate(
        """s => Object.fromEntries([...document.querySelectorAll(`${s} [data-fact]`)]
             .map(e => [e.dataset.fact, e.querySelector('dd').textContent]))""",
        selector,
    )


def bob_plays_his_turn(bob: RestPlayer, match_id: int) -> bool:
    """Bob's move over the API when it is his turn (the engine's bot's choice)."""
    view = bob.call("GET", f"matches/{match_id}/view")
    if view["match"]["status"] != "running" or not view["hand"]["legal_actions"]:
        return False
    bob.play_as_the_bot(match_id)
    return True


@pytest.mark.slow
def test_a_player_registers_plays_the_sit_and_go_through_the_page_and_sees_the_prize(
    site, contexts, play_server
):
    tournament = sit_and_go_for_two(site)
    path = f"/play/tournaments/{tournament['id']}"
    alice_player = site.player("Alice", deposit="20.00")
    carol_player = site.player("Carol")

    page = contexts().new_page()
    page.goto(site.launch_url(alice_player))
    page.locator("#lobby-title").wait_for()
    page.locator("#tournaments-link").click()
    card = page.locator(f'.tournament-card[data-tournament-id="{tournament["id"]}"]')
    card.wait_for()
    assert facts(page, f'.tournament-card[data-tournament-id="{tournament["id"]}"]') == {
        "kind": "Sit and go",
        "price": "€1.00 + €0.10",
        "prize-pool": "€0.00",
        "start": "When full",
        "entries": "0 of 2",
        "status": "Registering",
    }
    screenshot(page, "tournament-lobby")
    card.get_by_role("link", name="Open Sit and go for two").click()
    page.locator("#register").wait_for()
    assert page.url.endswith(f"{path}?lang=en")
    page.evaluate("window.stillTheSamePage = true")
    page.locator("#register").click()
    page.locator("#entry-standing", has_text="You are registered (Entry 1)").wait_for()
    page.locator("#wallet-balance", has_text="€18.90").wait_for()
    page.locator('[data-fact="entries"] dd', has_text="1 of 2").wait_for()
    # Withdrawing before the start gives the entry back in full; then in again.
    page.locator("#unregister").click()
    page.locator("#register").wait_for()
    page.locator("#wallet-balance", has_text="€20.00").wait_for()
    page.locator('[data-fact="entries"] dd', has_text="0 of 2").wait_for()
    page.locator("#register").click()
    page.locator("#entry-standing", has_text="You are registered (Entry 2)").wait_for()
    page.locator("#wallet-balance", has_text="€18.90").wait_for()

    # Carol follows the bracket on her own page (a player of the operator, not entered).
    carol = contexts().new_page()
    carol.goto(site.launch_url(carol_player))
    carol.locator("#lobby-title").wait_for()  # the launch exchanged: the session is here
    carol.locator("#tournaments-link").click()
    carol.locator(f'.tournament-card[data-tournament-id="{tournament["id"]}"] a').click()
    carol.locator("#bracket-empty").wait_for()
    carol.evaluate("window.stillTheSamePage = true")

    # Bob fills it over the API: it starts, and both pages show the bracket without a reload.
    bob = RestPlayer(site, play_server.url, "Bob", deposit="20.00")
    bob.call("POST", f"tournaments/{tournament['id']}/registration", {})
    for watcher in (page, carol):
        watcher.locator('.bracket-table[data-status="playing"]').wait_for(timeout=TIMEOUT_MS)
        assert watcher.evaluate("window.stillTheSamePage") is True
    assert page.locator(".bracket-table.my-path").count() == 1
    assert page.locator(".bracket-seat.me", has_text="Alice (you)").count() == 1
    assert carol.locator(".bracket-table.my-path").count() == 0
    ready = page.locator("#match-ready")
    ready.wait_for(timeout=TIMEOUT_MS)
    assert "Round 1, table 1." in ready.inner_text()
    page.locator("#ready-deadline").wait_for()
    screenshot(page, "tournament-match-ready")

    page.locator("#take-seat").click()
    page.locator("#tournament-waiting").wait_for(timeout=TIMEOUT_MS)
    alice = PlayPage(page, "Alice")
    remembered = page.evaluate("JSON.parse(sessionStorage.getItem('gin.play.session')).place")
    assert remembered["back"] == f"/play/tournaments/{tournament['id']}"
    match_id = int(remembered["match"])
    bob.call("POST", f"tournaments/{tournament['id']}/seat")
    page.locator("#hand .card").first.wait_for(timeout=TIMEOUT_MS)
    assert "tournament" in page.locator("#table-title").inner_text()

    # The match, played by Alice's clicks and Bob's API calls, to its end.
    moves = 0
    while alice.match_status() == "running":
        seq = alice.seq()
        if alice.my_turn():
            alice.play_as_the_bot()
        elif bob_plays_his_turn(bob, match_id):
            alice.wait_seq(seq + 1)
        else:
            page.wait_for_timeout(100)  # the page shows the newest state soon
        moves += 1
        assert moves < 400
    page.locator("#result").wait_for()
    page.locator("#tournament-next").wait_for()
    assert page.locator("#statement").count() == 0
    screenshot(page, "tournament-match-result")

    # Carol saw the final end without a reload.
    carol.locator('.bracket-table[data-status="finished"]').wait_for(timeout=TIMEOUT_MS)
    carol.locator(".bracket-seat.winner").wait_for()
    assert carol.evaluate("window.stillTheSamePage") is True
    carol.locator("#tournament-status", has_text="Finished").wait_for()
    screenshot(carol, "tournament-bracket-finished")

    page.locator("#back-to-tournament").click()
    page.locator("#tournament-status", has_text="Finished").wait_for(timeout=TIMEOUT_MS)
    entries = site.get(f"tournaments/{tournament['id']}/entries")
    (mine,) = [
        entry
        for entry in entries
        if entry["player_id"] == alice_player["id"] and entry["status"] != "unregistered"
    ]
    assert mine["place_from"] in (1, 2) and mine["status"] in ("won", "out")
    prize = page.locator("#entry-prize")
    if mine["status"] == "won":
        page.locator("#entry-standing", has_text="You won the tournament!").wait_for()
        prize.filter(has_text="Place 1: you won €2.00.").wait_for()
        balance = "€20.90"
    else:
        page.locator("#entry-standing", has_text="You are out (round 1).").wait_for()
        prize.filter(has_text="Place 2: no prize.").wait_for()
        balance = "€18.90"
    page.locator("#wallet-balance", has_text=balance).wait_for()
    page.locator(".bracket-seat.winner").wait_for()
    assert "null" not in page.locator("#main").inner_text()
    screenshot(page, "tournament-result")


@pytest.mark.console_errors(refused_fetch(409, r"tournaments/\d+/registration"))
def test_the_tournament_page_in_spanish_with_a_refusal_in_spanish(site, contexts):
    tournament = sit_and_go_for_two(site, name="Torneo para dos")
    player = site.player("Lola")  # nothing deposited: the entry is refused
    page = contexts().new_page()
    page.goto(in_language(site.launch_url(player, lang="es"), "es"))
    page.locator("#lobby-title").wait_for()
    page.locator("#tournaments-link").click()
    selector = f'.tournament-card[data-tournament-id="{tournament["id"]}"]'
    page.locator(selector).wait_for()
    assert page.locator("html").get_attribute("lang") == "es"
    assert page.title() == "Torneos · Gin Rummy"
    shown = facts(page, selector)
    assert shown["price"] == "1,00\u00a0€ + 0,10\u00a0€"
    assert shown["entries"] == "0 de 2"
    page.locator(f"{selector} a").click()
    page.locator("#register").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "Saldo insuficiente" in alert.inner_text(), alert.inner_text()
    assert page.locator("#register").is_enabled()  # nothing changed: it may try again
    screenshot(page, "tournament-refused-es")
