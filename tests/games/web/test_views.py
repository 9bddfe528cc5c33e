"""The hosted table page's shell (games/web, docs/play.md): a strict Content-Security-
Policy, no inline script or style, never cached, and every module it loads served by the
app itself (no CDN, works offline)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

PLAY_STATIC = Path(finders.find("games/play/app.js")).parent


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts.append(data)


def policy(response) -> dict[str, str]:
    return dict(
        directive.strip().split(" ", 1)
        for directive in response["Content-Security-Policy"].split(";")
    )


@pytest.fixture
def page(client, settings):
    settings.ALLOWED_HOSTS = ["games.example"]
    return client.get("/play/", HTTP_HOST="games.example")


def test_the_page_is_served_with_a_strict_content_security_policy(page):
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    rules = policy(page)
    assert rules["default-src"] == "'none'"
    assert rules["script-src"] == "'self'"
    assert rules["style-src"] == "'self'"
    assert rules["connect-src"] == "'self' ws://games.example wss://games.example"
    assert rules["frame-ancestors"] == "'none'"
    assert rules["base-uri"] == "'none'"
    assert "unsafe" not in page["Content-Security-Policy"]
    assert "no-store" in page["Cache-Control"]
    assert page["Referrer-Policy"] == "no-referrer"


def test_the_page_has_no_inline_script_style_or_handler(page):
    parsed = Tags()
    parsed.feed(page.content.decode())
    assert parsed.inline_scripts == []
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    # The catalogue (a classic script, this origin) before the modules that read it.
    assert scripts[0]["src"].startswith("/play/jsi18n/en.js?v=") and "type" not in scripts[0]
    assert scripts[1:] == [{"type": "module", "src": "/static/games/play/app.js"}]
    for tag, attrs in parsed.tags:
        assert tag != "style"
        assert "style" not in attrs, tag
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
    assert "gps_" not in page.content.decode()


def test_the_page_names_its_own_icon(page, client):
    """Without one a browser asks for /favicon.ico: a 404 in the console of every page."""
    parsed = Tags()
    parsed.feed(page.content.decode())
    links = [attrs for tag, attrs in parsed.tags if tag == "link"]
    icons = [attrs["href"] for attrs in links if attrs["rel"] == "icon"]
    assert icons == ["/static/games/play/icon.svg"]
    served = client.get(icons[0], HTTP_HOST="games.example")
    assert served.status_code == 200
    assert served["Content-Type"].startswith("image/svg+xml")


def test_the_page_accepts_get_only(client):
    assert client.post("/play/").status_code == 405


def test_every_module_the_page_loads_is_served_by_the_app(client):
    """The modules import each other by relative path: each one exists and is served as
    JavaScript (WhiteNoise, from the app's static folder), and none reaches another host."""
    modules = sorted(PLAY_STATIC.glob("*.js"))
    assert {path.name for path in modules} >= {"app.js", "table.js", "live.js", "cards.js"}
    for path in modules:
        source = path.read_text()
        assert not re.search(r"https?://", source), path.name
        for imported in re.findall(r'from "\./([\w.-]+)"', source):
            assert (PLAY_STATIC / imported).exists(), (path.name, imported)
        served = client.get(f"/static/games/play/{path.name}")
        assert served.status_code == 200, path.name
        assert served["Content-Type"].startswith("text/javascript")
    assert client.get("/static/games/play/play.css").status_code == 200
