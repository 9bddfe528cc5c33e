"""The lobby (R11): a Money Play table asks the cashier amount within the room's bounds
(R10), a refused sit shows the problem, and leaving before the game starts refunds it."""

from __future__ import annotations

import pytest

from tests.browser.pages import refused_fetch, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


# The amount out of the room's bounds, refused on purpose.
@pytest.mark.console_errors(refused_fetch(422, r"tables/\d+/sit"))
def test_money_play_asks_the_cashier_amount_and_shows_a_refusal(site, contexts):
    room = site.room(
        name="Money Play 100",
        variant="money",
        target=100,
        stake_per_point_choices=["0.10", "0.50"],
        cashier_min="10.00",
        cashier_max="100.00",
        fee_bps=500,
    )
    player = site.player("Jon", deposit="50.00")
    page = contexts().new_page()
    page.goto(site.launch_url(player))
    page.get_by_role("heading", name="Lobby").wait_for()
    card = page.locator(f'.room[data-room-id="{room["id"]}"]')
    facts = card.locator(".room-facts").inner_text()
    assert "Money Play" in facts and "€0.10 or €0.50" in facts
    assert "Cashier €10.00 to €100.00" in facts
    page.locator("#wallet-balance", has_text="€50.00").wait_for()
    row = card.locator(".table-row").first
    table_id = row.get_attribute("data-table-id")
    row.get_by_role("button", name=f"Sit at Table {table_id}").click()

    amount = page.get_by_label("Cashier amount (EUR)")
    amount.fill("5.00")
    page.get_by_label("Stake per point").select_option("0.50")
    page.get_by_role("button", name="Sit down").click()
    alert = page.get_by_role("alert").filter(
        has_text="The cashier amount is outside the room's bounds"
    )
    alert.wait_for()
    assert "between €10.00 and €100.00" in alert.inner_text()
    assert page.get_by_role("heading", name="Lobby").is_visible()
    screenshot(page, "lobby-cashier-refused")
    alert.get_by_role("button").click()

    amount.fill("20.00")
    page.get_by_role("button", name="Sit down").click()
    page.get_by_role("heading", name="Waiting for an opponent…").wait_for()
    page.locator("#wallet-balance", has_text="€30.00").wait_for()
    assert "€0.50 a point" in page.locator(".table-facts").inner_text()
    page.get_by_role("button", name="Leave the table").click()
    page.get_by_role("heading", name="Lobby").wait_for()
    page.locator("#wallet-balance", has_text="€50.00").wait_for()
