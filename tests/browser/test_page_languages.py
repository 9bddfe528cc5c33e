"""The hosted page in Spanish and in the pseudo-locale, in a browser (docs/play.md
"Languages"): the template's and the modules' strings from the catalogues, money through
Intl in the page's language, the language menu, and no script error on the way."""

from __future__ import annotations

import pytest

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)


def in_language(url: str, language: str) -> str:
    """The launch URL with ``?lang=language`` before the fragment, in place of the one the
    launch put there (the player's stored locale's, English here)."""
    address, fragment = url.split("#", 1)
    return f"{address.split('?', 1)[0]}?lang={language}#{fragment}"


def test_the_lobby_in_spanish(site, contexts):
    room = site.room(
        name="Money Play 100",
        variant="money",
        target=100,
        stake_per_point_choices=["0.10", "0.50"],
        cashier_min="10.00",
        cashier_max="100.00",
    )
    player = site.player("Lola", deposit="50.00")
    page = contexts().new_page()
    page.goto(in_language(site.launch_url(player), "es"))
    page.get_by_role("heading", name="Lobby").wait_for()
    assert page.locator("html").get_attribute("lang") == "es"
    assert page.title() == "Gin Rummy"
    page.locator("#wallet-balance", has_text="50,00\u00a0€").wait_for()
    facts = page.locator(f'.room[data-room-id="{room["id"]}"] .room-facts').inner_text()
    assert "Caja de 10,00\u00a0€ a 100,00\u00a0€" in facts
    assert "0,10\u00a0€ o 0,50\u00a0€" in facts
    table_id = page.locator(".table-row").first.get_attribute("data-table-id")
    assert page.get_by_role("button", name=f"Sentarse en Mesa {table_id}").is_visible()
    page.get_by_role("button", name="Atajos").click()
    page.get_by_role("heading", name="Atajos de teclado").wait_for()
    assert page.get_by_text("Robar la carta de arriba de la pila de descarte").is_visible()
    page.get_by_role("button", name="Cerrar").click()
    # The menu reloads the page in another language, the session kept (sessionStorage).
    page.get_by_role("link", name="Italiano").click()
    page.get_by_role("button", name="Scorciatoie").wait_for()
    assert page.locator("html").get_attribute("lang") == "it"
    page.locator("#wallet-balance", has_text="50,00\u00a0€").wait_for()


def test_the_pseudo_locale_renders_every_string_of_the_lobby(site, contexts):
    site.room(name="Practice", variant="ftk", is_practice=True, stake="100")
    player = site.player("Pat")
    page = contexts().new_page()
    page.goto(in_language(site.launch_url(player), "en-XA"))
    page.locator("#lobby-title", has_text="[Ĺóƀƀý").wait_for()
    assert page.locator("html").get_attribute("lang") == "en-XA"
    for button in page.locator(".table-actions button").all():
        assert button.inner_text().startswith("["), button.inner_text()
