"""A tournament ticket on the hosted tournament page (R14 "Entry"; docs/play.md
"Tournaments"): a player granted a ticket by their operator finds it marked in the lobby,
registers with it (the first choice, beside the paid one) without a cent leaving the wallet,
sees the entry paid by the ticket, withdraws and has the ticket back, as the API says too;
and in Spanish, a ticket used up meanwhile is refused in Spanish and no longer offered."""

from __future__ import annotations

import pytest

from tests.browser.pages import RestPlayer, in_language, refused_fetch, screenshot
from tests.browser.test_tournament_page import sit_and_go_for_two

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

# Run by the page server's own `manage.py shell` (its database: the test's on PostgreSQL,
# its own file on SQLite), as an operator's promotion would: the wallet's services.
TICKET = """
from gin_platform.models import Player
from tests.factories import SYSTEM
from tournaments.models import Tournament
from wallet import services
tournament = Tournament.objects.get(pk=%(tournament)d)
player = Player.objects.get(pk=%(player)r)
if %(grant)r:
    services.ticket_grant(player=player, tournament_ref=tournament.game_ref,
                          amount=tournament.entry_price, currency=tournament.currency,
                          reference="browser-ticket-%(tournament)d", actor=SYSTEM)
else:
    services.ticket_expire(player=player, tournament_ref=tournament.game_ref,
                           currency=tournament.currency,
                           reference="browser-ticket-expiry-%(tournament)d", actor=SYSTEM)
"""


def ticket(play_server, tournament: dict, player: dict, *, grant: bool) -> None:
    play_server.manage(
        "shell",
        "-c",
        TICKET % {"tournament": tournament["id"], "player": player["id"], "grant": grant},
    )


def open_the_tournament(page, site, player: dict, tournament: dict, *, lang: str = "en"):
    url = site.launch_url(player, lang=lang)
    page.goto(in_language(url, lang) if lang != "en" else url)
    page.locator("#lobby-title").wait_for()
    page.locator("#tournaments-link").click()
    card = page.locator(f'.tournament-card[data-tournament-id="{tournament["id"]}"]')
    card.wait_for()
    return card


def test_a_player_registers_with_their_ticket_and_has_it_back_after_withdrawing(
    site, contexts, play_server
):
    tournament = sit_and_go_for_two(site, name="Ticket sit and go")
    alice = site.player("Alice", deposit="20.00")
    ticket(play_server, tournament, alice, grant=True)
    api = RestPlayer(site, play_server.url, "Alice", player=alice)
    path = f"tournaments/{tournament['id']}"
    held = {"value": {"amount": "1.10", "currency": "EUR"}, "covers_entry": True}
    assert api.call("GET", path)["my_ticket"] == held

    page = contexts().new_page()
    card = open_the_tournament(page, site, alice, tournament)
    card.locator(".ticket-badge", has_text="You hold a ticket").wait_for()
    card.get_by_role("link", name="Open Ticket sit and go").click()
    with_ticket = page.locator("#register-ticket")
    with_ticket.wait_for()
    assert with_ticket.inner_text() == "Register with my ticket"
    assert "primary" in with_ticket.get_attribute("class")
    paid = page.locator("#register")
    assert paid.inner_text() == "Register for €1.10"
    assert "primary" not in paid.get_attribute("class")  # the ticket is the first choice
    assert page.locator("#my-ticket").inner_text() == (
        "You hold a ticket to this tournament worth €1.10: it pays your entry. "
        "Withdrawing before the start gives the ticket back."
    )
    page.locator("#wallet-balance", has_text="€20.00").wait_for()
    screenshot(page, "tournament-ticket-offered")

    with_ticket.click()
    page.locator("#entry-standing", has_text="You are registered (Entry 1)").wait_for()
    assert page.locator("#entry-payment").inner_text() == (
        "Paid with your ticket. Withdrawing before the start gives the ticket back."
    )
    page.get_by_role("status").filter(has_text="You are registered with your ticket").wait_for()
    page.locator('[data-fact="entries"] dd', has_text="1 of 2").wait_for()
    assert page.locator("#wallet-balance").inner_text() == "€20.00"  # no money moved
    (entry,) = site.get(f"{path}/entries")
    assert entry["payment"] == "ticket" and entry["status"] == "registered"
    assert entry["paid"] == {"amount": "1.10", "currency": "EUR"}
    assert api.call("GET", path)["my_ticket"] is None  # entered with: used
    screenshot(page, "tournament-ticket-entered")

    page.locator("#unregister").click()
    page.get_by_role("status").filter(has_text="You withdrew: your ticket is back").wait_for()
    with_ticket.wait_for()
    page.locator('[data-fact="entries"] dd', has_text="0 of 2").wait_for()
    assert api.call("GET", path)["my_ticket"] == held  # the ticket is back, whole
    assert api.call("GET", "me/wallet")["balance"]["amount"] == "20.00"
    assert "null" not in page.locator("#main").inner_text()


@pytest.mark.console_errors(refused_fetch(409, r"tournaments/\d+/registration"))
def test_a_ticket_used_up_meanwhile_is_refused_in_spanish_and_no_longer_offered(
    site, contexts, play_server
):
    tournament = sit_and_go_for_two(site, name="Torneo con entrada")
    lola = site.player("Lola", deposit="5.00")
    ticket(play_server, tournament, lola, grant=True)
    page = contexts().new_page()
    card = open_the_tournament(page, site, lola, tournament, lang="es")
    card.locator(".ticket-badge", has_text="Tienes una entrada").wait_for()
    card.locator("a").click()
    with_ticket = page.locator("#register-ticket")
    with_ticket.wait_for()
    assert with_ticket.inner_text() == "Inscribirse con mi entrada"

    ticket(play_server, tournament, lola, grant=False)  # expired while the page shows it
    with_ticket.click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "No tienes entrada para este torneo" in alert.inner_text(), alert.inner_text()
    with_ticket.wait_for(state="detached")  # read again: no ticket to offer any more
    paid = page.locator("#register")
    assert paid.inner_text() == "Inscribirse por 1,10\u00a0€"
    assert "primary" in paid.get_attribute("class")
    assert page.locator("#my-entry").get_attribute("data-entry-status") == "none"
    screenshot(page, "tournament-ticket-refused-es")
