"""The page's first load stays light (docs/play.md "Phones and accessibility"): a launch URL
opened in a fresh browser (nothing cached) loads under 200 KB of JavaScript and CSS together,
counted as Lighthouse counts a page's weight: the bytes transferred (the server sends the
gzip copies collected with the files, and the catalogue gzipped). A launch straight to a table
loads the table's modules at once: the lobby's load and the table's together stay under the
budget too, and so does a tournament's page (docs/play.md "Tournaments"). The bytes as
decoded are printed beside them."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.browser.pages import in_language

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = 200 * 1024


def is_script_or_style(response) -> bool:
    kind = response.request.resource_type
    content_type = response.headers.get("content-type", "")
    return kind in ("script", "stylesheet") or content_type.startswith(
        ("text/javascript", "application/javascript", "text/css")
    )


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_first_load_down_to_the_lobby_is_under_200_kb_of_javascript_and_css(
    site, contexts, language
):
    site.room(name="Practice", variant="ftk", is_practice=True, stake="100")
    player = site.player("Wes", deposit="20.00")
    page = contexts().new_page()
    responses: list = []
    page.on("response", lambda response: responses.append(response))
    page.goto(in_language(site.launch_url(player), language))
    page.locator("#lobby-title").wait_for()
    page.wait_for_load_state("networkidle")
    loaded = [response for response in responses if is_script_or_style(response)]
    sent = {path(response): transferred(response) for response in loaded}
    total = sum(sent.values())
    decoded = sum(len(response.body()) for response in loaded)
    print(
        f"\nfirst load ({language}): {total} bytes of JavaScript and CSS transferred "
        f"({decoded} decoded) in {len(sent)} files"
    )
    for url, size in sorted(sent.items(), key=lambda item: -item[1]):
        print(f"  {size:>7}  /{url}")
    assert any(url.startswith(f"play/jsi18n/{language}.js") for url in sent)
    assert "static/games/play/app.js" in sent and "static/games/play/play.css" in sent
    assert all(response.headers.get("content-encoding") == "gzip" for response in loaded)
    assert total < BUDGET, f"{total} bytes over the {BUDGET} budget: {sent}"

    # The table's modules come when a table opens (app.js); a launch straight to a table
    # loads them with the rest: the two loads together are under the budget as well.
    page.locator('[data-lobby-action="play-bot"]').first.click()
    # The table's screen, not its hand: on some deals the house bot knocks at its first
    # turn, and the table opens on the match's end, with no hand to show.
    page.locator(".table-screen").wait_for()
    page.wait_for_load_state("networkidle")
    table = [r for r in responses if is_script_or_style(r) and path(r) not in sent]
    more = sum(transferred(response) for response in table)
    more_decoded = sum(len(response.body()) for response in table)
    assert more > 0
    print(
        f"then the table: {more} bytes more ({more_decoded} decoded), "
        f"{total + more} in all ({decoded + more_decoded} decoded)"
    )
    assert total + more < BUDGET


def path(response) -> str:
    return response.url.split("/", 3)[-1]


def transferred(response) -> int:
    """The body's bytes on the wire (compressed when the server compressed it)."""
    return response.request.sizes()["responseBodySize"]


def test_the_tournament_page_loads_under_200_kb_of_javascript_and_css(site, contexts):
    """The tournament page (docs/play.md "Tournaments"), opened straight from a launch URL
    pointed at it, in a fresh browser: its own modules and the table page's it imports,
    with a running tournament's bracket and its watch socket, under the same budget."""
    tournament = site.post(
        "tournaments",
        {
            "name": "Weighed",
            "kind": "sit_and_go",
            "seats": 2,
            "currency": "EUR",
            "max_entries": 2,
            "round_settings": [{"variant": "ftk"}],
        },
    )
    player = site.player("Wes")
    page = contexts().new_page()
    responses: list = []
    page.on("response", lambda response: responses.append(response))
    launch = site.launch_url(player).replace("/play/?", f"/play/tournaments/{tournament['id']}?")
    page.goto(launch)
    page.locator("#register").wait_for()
    page.locator('#connection[data-state="live"]').wait_for()
    page.wait_for_load_state("networkidle")
    loaded = [response for response in responses if is_script_or_style(response)]
    sent = {path(response): transferred(response) for response in loaded}
    total = sum(sent.values())
    print(f"\ntournament page: {total} bytes of JavaScript and CSS in {len(sent)} files")
    for url, size in sorted(sent.items(), key=lambda item: -item[1]):
        print(f"  {size:>7}  /{url}")
    assert "static/tournaments/play/tournaments.js" in sent
    assert "static/games/play/table.js" not in sent  # the table's modules stay at the table
    assert all(response.headers.get("content-encoding") == "gzip" for response in loaded)
    assert total < BUDGET, f"{total} bytes over the {BUDGET} budget: {sent}"
