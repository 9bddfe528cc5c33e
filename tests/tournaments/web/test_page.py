"""The hosted tournament page's shell (tournaments/web, docs/play.md "Tournaments"): served
at /play/tournaments and /play/tournaments/{id} with the table page's policy (strict
Content-Security-Policy, never cached, no referrer), in the player's language, no inline
script or style, its own module and styles served by the app, every module it imports (its
own and the table page's, by relative path) served as JavaScript from this origin; the table
page links to it with a plain URL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from tests.games.web.test_views import Tags, policy

pytestmark = pytest.mark.django_db

HOST = "games.example"
OWN_STATIC = Path(finders.find("tournaments/play/tournaments.js")).parent
IMPORT = re.compile(r'from "(\.{1,2}/[\w./-]+)"')


@pytest.fixture(autouse=True)
def allowed_host(settings):
    settings.ALLOWED_HOSTS = [HOST]


@pytest.mark.parametrize("path", ["/play/tournaments", "/play/tournaments/12"])
def test_the_page_is_served_like_the_table_page(client, path):
    page = client.get(path, HTTP_HOST=HOST)
    table = client.get("/play/", HTTP_HOST=HOST)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert policy(page) == policy(table)
    assert "no-store" in page["Cache-Control"] and page["Referrer-Policy"] == "no-referrer"
    parsed = Tags()
    parsed.feed(page.content.decode())
    assert parsed.inline_scripts == []
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts[0]["src"].startswith("/play/jsi18n/en.js?v=")
    assert scripts[1:] == [{"type": "module", "src": "/static/tournaments/play/tournaments.js"}]
    for tag, attrs in parsed.tags:
        assert tag != "style" and "style" not in attrs
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
    styles = [attrs["href"] for tag, attrs in parsed.tags if attrs.get("rel") == "stylesheet"]
    assert styles == ["/static/games/play/play.css", "/static/tournaments/play/tournaments.css"]
    for asset in styles:
        assert client.get(asset, HTTP_HOST=HOST).status_code == 200, asset
    links = {attrs.get("id"): attrs.get("href") for tag, attrs in parsed.tags if tag == "a"}
    assert links["tables-link"] == "/play/?lang=en"
    assert links["history-link"] == "/play/history?lang=en"


def test_the_page_speaks_the_chosen_language(client):
    page = client.get("/play/tournaments/3?lang=es", HTTP_HOST=HOST)
    assert page["Content-Language"] == "es"
    assert '<html lang="es">' in page.content.decode()
    assert "Torneos" in page.content.decode()
    parsed = Tags()
    parsed.feed(page.content.decode())
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts[0]["src"].startswith("/play/jsi18n/es.js?v=")


def test_the_table_page_links_to_the_tournaments_with_a_plain_url(client):
    parsed = Tags()
    parsed.feed(client.get("/play/?lang=de", HTTP_HOST=HOST).content.decode())
    assert ("a", {"id": "tournaments-link", "href": "tournaments?lang=de"}) in parsed.tags


def test_the_page_accepts_get_only(client):
    assert client.post("/play/tournaments", HTTP_HOST=HOST).status_code == 405
    assert client.get("/play/tournaments/x", HTTP_HOST=HOST).status_code == 404


def test_every_module_the_page_imports_is_served_by_the_app(client):
    """Its modules import each other and the table page's by relative path: each one
    exists and is served as JavaScript, and none reaches another host."""
    seen: set[str] = set()
    queue = ["/static/tournaments/play/tournaments.js"]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        served = client.get(url, HTTP_HOST=HOST)
        assert served.status_code == 200, url
        assert served["Content-Type"].startswith("text/javascript"), url
        source = b"".join(served.streaming_content).decode()
        assert not re.search(r"https?://", source), url
        base = url.rsplit("/", 1)[0]
        for imported in IMPORT.findall(source):
            parts = [*base.split("/"), *imported.split("/")]
            resolved: list[str] = []
            for part in parts:
                if part == "..":
                    resolved.pop()
                elif part != ".":
                    resolved.append(part)
            queue.append("/".join(resolved))
    own = {f"/static/tournaments/play/{path.name}" for path in OWN_STATIC.glob("*.js")}
    assert own <= seen  # every module of the page is reached from its entry
    assert "/static/games/play/session.js" in seen and "/static/games/play/table.js" not in seen
