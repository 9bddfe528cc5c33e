"""The history page's shell (/play/history, docs/play.md "History"): the table page's
policy (strict Content-Security-Policy, never cached, no referrer), no inline script or
style, its own module and styles served by the app; the table page links to it."""

from __future__ import annotations

import pytest

from tests.games.web.test_views import Tags, policy

pytestmark = pytest.mark.django_db


def test_the_history_page_is_served_like_the_table_page(client, settings):
    settings.ALLOWED_HOSTS = ["games.example"]
    page = client.get("/play/history", HTTP_HOST="games.example")
    table = client.get("/play/", HTTP_HOST="games.example")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert policy(page) == policy(table)
    assert "no-store" in page["Cache-Control"] and page["Referrer-Policy"] == "no-referrer"
    parsed = Tags()
    parsed.feed(page.content.decode())
    assert parsed.inline_scripts == []
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts[0]["src"].startswith("/play/jsi18n/en.js?v=")
    assert scripts[1:] == [{"type": "module", "src": "/static/games/play/history.js"}]
    for tag, attrs in parsed.tags:
        assert tag != "style" and "style" not in attrs
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
    styles = [attrs["href"] for tag, attrs in parsed.tags if attrs.get("rel") == "stylesheet"]
    assert styles == ["/static/games/play/play.css", "/static/games/play/history.css"]
    for asset in (*styles, "/static/games/play/history.js"):
        assert client.get(asset, HTTP_HOST="games.example").status_code == 200, asset
    table_links = Tags()
    table_links.feed(table.content.decode())
    assert ("a", {"id": "history-link", "href": "history?lang=en"}) in table_links.tags
    assert client.post("/play/history", HTTP_HOST="games.example").status_code == 405
