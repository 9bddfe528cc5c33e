"""The page's first load stays light (docs/play.md "Phones and accessibility"): a launch URL
opened in a fresh browser (nothing cached) down to the lobby loads under 200 KB of
JavaScript and CSS together, counted from the bodies of the responses the browser got."""

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
    sizes = {
        response.url.split("/", 3)[-1]: len(response.body())
        for response in responses
        if is_script_or_style(response)
    }
    total = sum(sizes.values())
    print(f"\nfirst load ({language}): {total} bytes of JavaScript and CSS in {len(sizes)} files")
    for url, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"  {size:>7}  /{url}")
    assert any(url.startswith(f"play/jsi18n/{language}.js") for url in sizes)
    assert "static/games/play/app.js" in sizes and "static/games/play/play.css" in sizes
    assert total < BUDGET, f"{total} bytes over the {BUDGET} budget: {sizes}"

    # The table's modules come when a table opens (app.js): their figure, for the record.
    page.locator('[data-lobby-action="play-bot"]').first.click()
    page.locator("#hand .card").first.wait_for()
    page.wait_for_load_state("networkidle")
    table = sum(
        len(response.body())
        for response in responses
        if is_script_or_style(response) and response.url.split("/", 3)[-1] not in sizes
    )
    assert table > 0
    print(f"then the table: {table} bytes more, {total + table} in all")
