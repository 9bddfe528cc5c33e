"""Every figure right after the game, and the moves list complete (docs/play.md): two people
play First To Knock for money, each in their own browser. The header's balance follows the
buy-in and the settlement without a reload (the player's socket says ``wallet_changed``, the
page reads GET /me/wallet); a table opened after the opponent has moved lists those moves
(from the events feed), and a reload lists them again, each once."""

from __future__ import annotations

import pytest

from tests.browser.pages import TIMEOUT_MS, PlayPage, RestPlayer, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

MOVE_KINDS = {"take_upcard", "pass", "draw_stock", "draw_discard", "discard"}

# The header's balance as the page itself writes GET /me/wallet's answer (format.js), read
# with the page's own session: equal to it, whatever the page's language writes.
HEADER_AND_WALLET = """async () => {
  const { money } = await import('/static/games/play/format.js');
  const { token } = JSON.parse(sessionStorage.getItem('gin.play.session'));
  const headers = { Authorization: `Bearer ${token}` };
  const answer = await fetch('/api/v1/me/wallet', { headers });
  const wallet = await answer.json();
  return [document.querySelector('#wallet-balance').textContent, money(wallet.balance)];
}"""


def open_page(contexts, url: str, name: str) -> PlayPage:
    page = contexts().new_page()
    page.goto(url)
    return PlayPage(page, name)


def header_shows_the_wallet(page: PlayPage) -> None:
    """The header's balance equals GET /me/wallet, within the timeout, with no reload."""
    deadline = TIMEOUT_MS // 250
    for _ in range(deadline):
        shown, wallet = page.page.evaluate(HEADER_AND_WALLET)
        if shown == wallet:
            return
        page.page.wait_for_timeout(250)
    raise AssertionError(f"{page.name}'s header shows {shown}, the wallet says {wallet}")


def page_move(page: PlayPage) -> None:
    """A move that never ends the hand, through the page: pass the upcard, draw from the
    stock, discard the first card the page lets go."""
    view = page.view_from_screen()
    kinds = {action["kind"] for action in view["legal_actions"]}
    if "pass" in kinds:
        move = {"kind": "pass"}
    elif "draw_stock" in kinds:
        move = {"kind": "draw_stock"}
    else:
        card = next(a["card"] for a in view["legal_actions"] if a["kind"] == "discard")
        move = {"kind": "discard", "card": card}
    seq = page.seq()
    page.play(move)
    page.wait_seq(seq + 1)


def listed_moves(page: PlayPage) -> list[tuple[int, str]]:
    return page.page.eval_on_selector_all(
        "#log li", "els => els.map(e => [Number(e.dataset.seq), e.textContent])"
    )


def lists_every_move(page: PlayPage, feed: list[dict], seat: int, opponent: str) -> None:
    """The page's moves list holds every move of the feed, once each, the opponent's by
    name."""
    moves = {event["seq"] for event in feed if event["kind"] in MOVE_KINDS}
    page.page.wait_for_function(
        "seqs => seqs.every(s => document.querySelector(`#log li[data-seq='${s}']`))",
        arg=sorted(moves),
        timeout=TIMEOUT_MS,
    )
    listed = listed_moves(page)
    seqs = [seq for seq, _ in listed]
    assert len(seqs) == len(set(seqs)), listed  # nothing twice
    assert seqs == sorted(seqs, reverse=True), listed  # newest first
    theirs = [e["seq"] for e in feed if e["kind"] in MOVE_KINDS and e["seat"] != seat]
    texts = dict(listed)
    assert theirs and all(texts[seq].startswith(opponent) for seq in theirs), listed
    dealt = [e["seq"] for e in feed if e["kind"] == "hand_dealt"]
    assert dealt[-1] in texts  # the current hand from its deal


@pytest.mark.slow
def test_the_header_follows_the_money_and_the_moves_list_survives_a_reload(
    site, contexts, play_server
):
    site.room(name="FTK figures", variant="ftk", stake="5.00", fee_bps=500, turn_seconds=600)
    alice_player = site.player("Alice", deposit="20.00")
    bob_player = site.player("Bob", deposit="20.00")

    alice = open_page(contexts, site.launch_url(alice_player), "Alice")
    alice.page.get_by_role("heading", name="Lobby").wait_for()
    header_shows_the_wallet(alice)
    alice.page.evaluate("window.stillTheSamePage = true")
    table = alice.page.locator(".room", has_text="FTK figures").locator(".table-row").first
    table_id = table.get_attribute("data-table-id")
    table.get_by_role("button", name=f"Sit at Table {table_id}").click()
    alice.page.get_by_role("heading", name="Waiting for an opponent…").wait_for()

    bob = open_page(contexts, site.launch_url(bob_player), "Bob")
    bob.page.get_by_role("heading", name="Lobby").wait_for()
    bob.page.locator(f'.table-row[data-table-id="{table_id}"]').get_by_role(
        "button", name=f"Sit at Table {table_id}"
    ).click()
    for page in (alice, bob):
        page.page.locator("#hand .card").first.wait_for(timeout=TIMEOUT_MS)
        page.page.locator("#wallet-balance", has_text="15.00").wait_for(timeout=TIMEOUT_MS)
        header_shows_the_wallet(page)  # the buy-in, without a reload
    match_id = alice.page.locator(".table-screen").get_attribute("data-match-id")

    # Bob closes his tab; the game goes on: Alice at her page, Bob over the API.
    bob.page.context.close()
    bob_api = RestPlayer(site, play_server.url, "Bob", player=bob_player)
    for _ in range(6):
        view = bob_api.call("GET", f"matches/{match_id}/view")
        if view["hand"]["legal_actions"]:
            bob_api.move(match_id)
            alice.wait_seq(view["seq"] + 1)
        else:
            page_move(alice)
    feed = bob_api.call("GET", f"matches/{match_id}/events?after=0")["events"]
    seat = view["match"]["your_seat"]

    # Bob opens the table again: every move made meanwhile is listed, Alice's by her name.
    bob = open_page(contexts, site.launch_url(bob_player), "Bob")
    bob.page.locator(".my-table").get_by_role("button", name="Return to the table").click()
    bob.page.locator("#hand .card").first.wait_for(timeout=TIMEOUT_MS)
    lists_every_move(bob, feed, seat, "Alice")
    screenshot(bob.page, "moves-listed-on-opening")
    bob.page.reload()
    bob.page.locator("#hand .card").first.wait_for(timeout=TIMEOUT_MS)
    lists_every_move(bob, feed, seat, "Alice")
    bob.page.evaluate("window.stillTheSamePage = true")

    # Alice resigns (R10): Bob wins the pot less the fee, 9.50 EUR, without a reload.
    alice.page.get_by_role("button", name="Resign…").click()
    alice.page.get_by_role("button", name="Resign the game").click()
    for page, balance in ((alice, "15.00"), (bob, "24.50")):
        page.page.locator("#statement").get_by_role("heading", name="Your statement").wait_for(
            timeout=TIMEOUT_MS
        )
        page.page.locator("#wallet-balance", has_text=balance).wait_for(timeout=TIMEOUT_MS)
        header_shows_the_wallet(page)
        assert page.page.evaluate("window.stillTheSamePage") is True
    screenshot(bob.page, "figures-after-settlement")
