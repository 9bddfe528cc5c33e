"""Two people play First To Knock for money through the page, each seeing the other's moves
arrive live, while a third person watches the table (R11) and never sees a hidden card."""

from __future__ import annotations

import pytest

from games import engine
from tests.browser.pages import (
    TIMEOUT_MS,
    PlayPage,
    card_forms,
    screenshot,
    shown_cards,
    wait_for_log,
)

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

MOVE_TEXT = {
    "take_upcard": "{who} took the upcard {card}",
    "pass": "{who} passed on the upcard",
    "draw_stock": "{who} drew from the stock",
    "draw_discard": "{who} took {card} from the discard pile",
    "discard": "{who} discarded {card}",
    "knock": "{who} knocked",
    "big_gin": "{who} went Big Gin",
}


def open_page(contexts, url: str, name: str) -> PlayPage:
    page = contexts().new_page()
    page.goto(url)
    assert "launch=" not in page.url  # the launch token left the address bar at once
    return PlayPage(page, name)


def in_sync(pages: list[PlayPage]) -> int:
    """Every page shows the newest state (the highest seq any of them shows)."""
    target = max(page.seq() for page in pages)
    for page in pages:
        page.wait_seq(target)
    return target


def move_text(move: dict, who: str, top: str | None) -> str:
    card = move.get("card") or top
    return MOVE_TEXT[move["kind"]].format(who=who, card=card_forms(card)[1] if card else "")


@pytest.mark.slow
def test_two_players_play_first_to_knock_live_while_a_watcher_sees_no_hidden_card(site, contexts):
    site.room(name="FTK for money", variant="ftk", stake="5.00", fee_bps=500, turn_seconds=600)
    alice_player = site.player("Alice", deposit="20.00")
    bob_player = site.player("Bob", deposit="20.00")
    carol_player = site.player("Carol")

    alice = open_page(contexts, site.launch_url(alice_player), "Alice")
    alice.page.get_by_role("heading", name="Lobby").wait_for()
    assert alice.page.locator("#wallet-balance").inner_text() == "€20.00"
    table = alice.page.locator(".room", has_text="FTK for money").locator(".table-row").first
    table_id = table.get_attribute("data-table-id")
    table.get_by_role("button", name=f"Sit at Table {table_id}").click()
    alice.page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    alice.page.evaluate("window.stillTheSamePage = true")

    bob = open_page(contexts, site.launch_url(bob_player), "Bob")
    bob_table = bob.page.locator(f'.table-row[data-table-id="{table_id}"]')
    assert "Alice waiting for an opponent" in bob_table.inner_text()
    bob_table.get_by_role("button", name=f"Sit at Table {table_id}").click()

    # The match exists from Alice's seat: its socket pushes Bob's arrival and the deal.
    for player in (alice, bob):
        player.page.locator("#hand .card").first.wait_for(timeout=TIMEOUT_MS)
        assert len(player.hand()) == 10
    assert alice.page.evaluate("window.stillTheSamePage") is True
    screenshot(alice.page, "ftk-deal")
    assert (
        alice.page.locator("#seat-1 .player-name strong, #seat-0 .player-name strong").inner_text()
        == "Bob"
    )
    alice.page.locator(".presence.online").wait_for(timeout=TIMEOUT_MS)

    carol = open_page(contexts, site.launch_url(carol_player), "Carol")
    carol.page.get_by_role("button", name=f"Watch Table {table_id}").click()
    carol.page.locator(".table-screen.watching").wait_for()
    players = [alice, bob]
    everyone = [alice, bob, carol]
    public: set[str] = set()
    live_move_shot = refused = reloaded = False
    moves = 0

    while True:
        in_sync(everyone)
        if alice.match_status() != "running":
            break
        for page in everyone:
            top = page.top_card()
            if top:
                public.add(top)
        # Hidden information (R11): the watcher sees no card of either hand; each player sees
        # no card of the other's hand that was never shown on the pile.
        hands = {page.name: set(page.hand()) for page in players}
        secret = (hands["Alice"] | hands["Bob"]) - public
        assert not (shown_cards(carol.page) & secret), "the watcher saw a hidden card"
        assert not (shown_cards(alice.page) & (hands["Bob"] - public))
        assert not (shown_cards(bob.page) & (hands["Alice"] - public))
        assert carol.page.locator("#hand").count() == 0

        mover = next((page for page in players if page.my_turn()), None)
        assert mover is not None, "nobody may move in a running game"
        other = bob if mover is alice else alice
        if not refused:
            # A refused move: the other player presses S out of turn. The problem's title
            # shows, dismissable; nothing else changes.
            before = other.seq(), other.hand()
            other.page.locator("#main").focus()
            other.page.keyboard.press("s")
            message = other.page.get_by_role("alert").filter(has_text="It is not your turn")
            message.wait_for()
            assert (other.seq(), other.hand()) == before
            screenshot(other.page, "ftk-refused-move")
            message.get_by_role("button", name="Dismiss: It is not your turn").click()
            assert other.page.get_by_role("alert").count() == 0
            refused = True
        if moves == 1 and not reloaded:
            # A reload keeps the session (sessionStorage) and the table; the socket resumes.
            # After the first move (a draw): a random deal can end the game in a few moves.
            hand_before = other.hand()
            other.page.reload()
            other.page.locator("#hand .card").first.wait_for()
            assert other.hand() == hand_before
            other.page.locator('#connection[data-state="live"]').wait_for(timeout=TIMEOUT_MS)
            mover.page.locator(".presence.online").wait_for(timeout=TIMEOUT_MS)
            reloaded = True
        view = mover.view_from_screen()
        move = engine.choose_action_from_view(view)
        top = view["discard_pile"][-1] if view["discard_pile"] else None
        seq = mover.seq()
        if move["kind"] == "knock":
            screenshot(mover.page, "ftk-before-knock")
        mover.play(move, keyboard=mover is bob)
        mover.wait_seq(seq + 1)
        # The move arrives live on the other pages (nobody reloads).
        text = move_text(move, mover.name, top)
        wait_for_log(other.page, text)
        wait_for_log(carol.page, text)
        if move["kind"] == "discard" and not live_move_shot:
            screenshot(other.page, "ftk-live-opponent-move")
            live_move_shot = True
        moves += 1
        assert moves < 400

    assert refused and reloaded
    for page in everyone:
        page.page.locator("#result").wait_for()
        page.page.locator("#showdown").wait_for()
    screenshot(alice.page, "ftk-showdown")
    screenshot(carol.page, "ftk-watcher-result")
    winners = {page.page.locator("#result").get_attribute("data-winner") for page in everyone}
    assert len(winners) == 1 and winners != {"none"}
    headlines = {page.name: page.page.locator("#result-title").inner_text() for page in players}
    won = [name for name, text in headlines.items() if text == "You won the game!"]
    assert len(won) == 1, headlines
    winner = alice if won == ["Alice"] else bob
    loser = bob if winner is alice else alice
    assert headlines[loser.name] == f"{winner.name} won the game"
    assert carol.page.locator("#result-title").inner_text() == f"{winner.name} won the game"

    # R10: the pot is 10.00 EUR, the fee 500 bps of it (0.50); the winner nets +4.50.
    for page, net, balance in (
        (winner, "+€4.50", "€24.50"),
        (loser, "-€5.00", "€15.00"),
    ):
        statement = page.page.locator("#statement")
        statement.get_by_role("heading", name="Your statement").wait_for()
        assert statement.locator("tr.net td").inner_text() == net
        page.page.locator("#wallet-balance", has_text=balance).wait_for()
    assert "Fee" in winner.page.locator("#statement").inner_text()
    screenshot(winner.page, "ftk-match-result-statement")
    assert carol.page.locator("#statement h3").count() == 0
