"""The table as people enjoy it (docs/play.md): the player rearranges their hand by drag and
by keyboard and the order survives a reload, the discard pile's history opens on demand,
the knock limit and "You can knock now" follow the server's legal actions, motion stops
under "reduce motion", and the deal moves nothing already on screen (no layout shift)."""

from __future__ import annotations

import pytest

from games import engine
from tests.browser.pages import (
    TIMEOUT_MS,
    PlayPage,
    RestPlayer,
    practice_match_against_the_bot,
    screenshot,
)
from tests.browser.test_cards import server_view

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# Counts the CSS animations that start on the page (installed before any script runs).
COUNT_ANIMATIONS = """
window.animationsStarted = 0;
document.addEventListener('animationstart', () => { window.animationsStarted += 1; }, true);
"""
PRACTICE = {
    "name": "Practice",
    "variant": "match",
    "target": 250,
    "is_practice": True,
    "stake": "100",
    "turn_seconds": 600,
}
PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}
MY_TURN = (
    "() => document.querySelector('#actions [data-action]')"
    " || document.querySelector('#hand.can-discard')"
)


def match_id(player: PlayPage) -> str:
    return player.page.locator(".table-screen").get_attribute("data-match-id")


def drag(page, card: str, onto: str, *, after: bool) -> None:
    """Press ``card`` and move it, in small steps as a hand does, to one side of ``onto``."""
    source = page.locator(f'#hand .card[data-card="{card}"]').bounding_box()
    target = page.locator(f'#hand .card[data-card="{onto}"]').bounding_box()
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    x = target["x"] + target["width"] * (0.8 if after else 0.2)
    page.mouse.move(x, target["y"] + target["height"] / 2, steps=8)
    page.mouse.up()


def my_turn(player: PlayPage) -> dict:
    """Wait for the player's turn; the server's view of it (the bot waits for the player).
    The socket's first messages are in (its view, then the backlog in the moves list), so
    no push re-renders the hand meanwhile."""
    player.page.wait_for_function(MY_TURN, timeout=TIMEOUT_MS)
    player.page.locator('#connection[data-state="live"]').wait_for()
    player.page.locator("#log li").first.wait_for()
    view = server_view(player.page, match_id(player))
    player.wait_seq(view["seq"])
    return view


def test_the_hand_is_rearranged_by_drag_and_keyboard_and_kept_across_a_reload(site, contexts):
    site.room(**PRACTICE)
    context = contexts()
    context.add_init_script(COUNT_ANIMATIONS)
    page = context.new_page()
    page.goto(site.launch_url(site.player("Ines")))
    page.locator(".table-row").first.get_by_role("button", name="Play the house bot").click()
    ines = PlayPage(page, "Ines")
    my_turn(ines)
    assert page.locator("#hand .meld").count() > 0  # the server's arrangement first
    before = ines.hand()

    # Drag the first card past the last one: the hand shows the player's order as one row.
    drag(page, before[0], before[-1], after=True)
    page.locator("#group-melds").wait_for()
    assert ines.hand() == [*before[1:], before[0]]
    assert page.locator("#hand .meld").count() == 0
    assert ines.seq() == my_turn(ines)["seq"]  # a drag is no move
    page.wait_for_function(
        "() => document.querySelector('#announcer').textContent.includes('moved')"
    )

    # Shift+Left moves the focused card one place; the focus stays on it.
    card = ines.hand()[3]
    page.locator(f'#hand .card[data-card="{card}"]').focus()
    page.keyboard.press("Shift+ArrowLeft")
    assert ines.hand().index(card) == 2
    assert page.evaluate("() => document.activeElement.dataset.card") == card
    page.wait_for_function(
        "n => document.querySelector('#announcer').textContent.endsWith(`position 3 of ${n}`)",
        arg=len(before),
    )
    arranged = ines.hand()
    screenshot(page, "hand-rearranged")

    page.reload()
    page.locator("#hand .card").first.wait_for()
    assert ines.hand() == arranged

    # Moves go on as before; a drawn card goes to the right end, a discard drops out.
    for _ in range(4):
        view = my_turn(ines)
        shown = ines.hand()
        move = engine.choose_action_from_view(view["hand"])
        if move["kind"] in ("knock", "big_gin"):  # the hand must go on: a discard instead
            discards = [a["card"] for a in view["hand"]["legal_actions"] if a["kind"] == "discard"]
            move = {"kind": "discard", "card": move.get("card") or discards[0]}
        ines.play(move)
        ines.wait_seq(view["seq"] + 1)
        now = ines.hand()
        if server_view(page, match_id(ines))["hand"]["number"] != view["hand"]["number"]:
            break  # the bot went out meanwhile: a new hand starts in the server's arrangement
        assert now == [c for c in shown if c in now] + [c for c in now if c not in shown]
    assert page.evaluate("window.animationsStarted") > 0  # motion plays without the preference

    # Sorting by rank, then back to the server's melds.
    page.locator("#sort-rank").click()
    ranks = "A23456789TJQK"
    shown = ines.hand()
    assert [ranks.index(c[0]) for c in shown] == sorted(ranks.index(c[0]) for c in shown)
    page.locator("#group-melds").click()
    assert page.locator("#group-melds").count() == 0
    assert page.locator("#hand .meld").count() > 0
    assert page.get_by_role("alert").count() == 0


def test_the_discard_pile_history_and_the_knock_hint_follow_the_servers_view(site, contexts):
    lena = practice_match_against_the_bot(site, contexts, "Lena", target=250)
    page = lena.page
    seen = {"turns": 0, "knockable": 0, "history": 0}
    for _ in range(300):
        view = my_turn(lena)
        if lena.match_status() != "running":
            break
        hand = view["hand"]
        assert page.locator("#knock-limit").inner_text() == "Knock at 10 or less"
        going_out = [a for a in hand["legal_actions"] if a["kind"] in ("knock", "big_gin")]
        assert page.locator("#can-knock").count() == (1 if going_out else 0)
        if going_out and not seen["knockable"]:
            assert page.locator("#can-knock").inner_text().startswith("You can")
            screenshot(page, "knock-hint")
        seen["knockable"] += bool(going_out)
        if len(hand["discard_pile"]) >= 3 and seen["history"] < 2:
            page.locator("#pile-history").click()
            page.locator("#pile-dialog").wait_for()
            listed = page.eval_on_selector_all(
                "#pile-list li", "els => els.map(e => e.dataset.card)"
            )
            assert listed == hand["discard_pile"][::-1]
            texts = page.locator("#pile-list").inner_text()
            assert "discarded by House bot" in texts or "your discard" in texts
            screenshot(page, "discard-history")
            page.keyboard.press("Escape")
            seen["history"] += 1
        seen["turns"] += 1
        if seen["knockable"] and seen["history"] and seen["turns"] >= 6:
            break
        lena.play_as_the_bot(hand)
    assert seen["knockable"] and seen["history"], seen
    assert page.get_by_role("alert").count() == 0


def test_no_animation_runs_under_reduce_motion(site, contexts):
    context = contexts(reduced_motion="reduce")
    context.add_init_script(COUNT_ANIMATIONS)
    site.room(**PRACTICE)
    page = context.new_page()
    page.goto(site.launch_url(site.player("Mara")))
    page.locator(".table-row").first.get_by_role("button", name="Play the house bot").click()
    mara = PlayPage(page, "Mara")
    for _ in range(8):
        view = my_turn(mara)
        if mara.match_status() != "running":
            break
        mara.play_as_the_bot(view["hand"])
    assert page.evaluate("window.animationsStarted") == 0
    assert page.evaluate("document.getAnimations().length") == 0


def test_the_deal_shifts_no_layout(site, contexts, play_server):
    room = site.room(
        name="Practice FTK", variant="ftk", is_practice=True, stake="100", turn_seconds=600
    )
    page = contexts(**PHONE).new_page()
    page.goto(site.launch_url(site.player("Nora")))
    row = page.locator(f'.room[data-room-id="{room["id"]}"] .table-row').first
    table_id = row.get_attribute("data-table-id")
    row.get_by_role("button", name=f"Sit at Table {table_id}").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    assert page.evaluate("PerformanceObserver.supportedEntryTypes.includes('layout-shift')")
    page.evaluate(
        """() => {
          window.shifts = [];
          new PerformanceObserver((list) => {
            window.shifts.push(...list.getEntries().map((e) => e.value));
          }).observe({ type: 'layout-shift' });
        }"""
    )
    # The opponent sits: the deal arrives over the socket, with no input on the page.
    RestPlayer(site, play_server.url, "Omar").call("POST", f"tables/{table_id}/sit", {})
    page.locator("#hand .card").first.wait_for()
    page.wait_for_timeout(1500)  # the deal's renders and anything they start
    total = page.evaluate("() => window.shifts.reduce((sum, value) => sum + value, 0)")
    assert total < 0.01, page.evaluate("window.shifts")


def test_a_finger_drags_a_card_on_a_phone(site, contexts):
    site.room(**PRACTICE)
    page = contexts(**PHONE).new_page()
    page.goto(site.launch_url(site.player("Pia")))
    page.locator(".table-row").first.get_by_role("button", name="Play the house bot").click()
    pia = PlayPage(page, "Pia")
    my_turn(pia)
    before = pia.hand()
    page.locator("#hand").scroll_into_view_if_needed()
    source = page.locator(f'#hand .card[data-card="{before[-1]}"]').bounding_box()
    target = page.locator(f'#hand .card[data-card="{before[0]}"]').bounding_box()
    start = (source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    end = (target["x"] + target["width"] * 0.2, target["y"] + target["height"] / 2)
    touch = page.context.new_cdp_session(page)
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point(start)]})
    for step in range(1, 11):
        at = tuple(a + (b - a) * step / 10 for a, b in zip(start, end, strict=True))
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point(at)]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.locator("#group-melds").wait_for()
    assert pia.hand() == [before[-1], *before[:-1]]
    assert pia.seq() == my_turn(pia)["seq"]  # the drag moved no card to the pile
    assert page.locator("#hand.can-discard, #actions [data-action]").count() > 0


def point(at: tuple[float, float]) -> dict:
    return {"x": at[0], "y": at[1]}
