"""The page's icon and web app manifest (docs/play.md "Phones and accessibility"):
/favicon.ico answers (no 404 in any page's console), the manifest lets a phone put the page
on its home screen, both cacheable, and both pages link the manifest under their strict
policy (manifest-src 'self')."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from tests.games.web.test_views import Tags, policy


@pytest.fixture
def host(settings):
    settings.ALLOWED_HOSTS = ["games.example"]
    return "games.example"


def test_favicon_ico_is_the_pages_icon_and_cacheable(client, host):
    answer = client.get("/favicon.ico", HTTP_HOST=host)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/vnd.microsoft.icon"
    assert "max-age=86400" in answer["Cache-Control"] and "public" in answer["Cache-Control"]
    icon = answer.content
    reserved, kind, count = struct.unpack("<HHH", icon[:6])
    assert (reserved, kind) == (0, 1) and count >= 2  # an icon file, several sizes
    assert icon[6 + 16 * count : 6 + 16 * count + 8] == b"\x89PNG\r\n\x1a\n"
    assert client.head("/favicon.ico", HTTP_HOST=host).status_code == 200


def test_the_manifest_installs_the_page_standalone_with_icons_that_exist(client, host):
    answer = client.get("/play/manifest.webmanifest", HTTP_HOST=host)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/manifest+json"
    assert "max-age=86400" in answer["Cache-Control"]
    manifest = json.loads(answer.content)
    assert manifest["start_url"] == "/play/" and manifest["scope"] == "/play/"
    assert manifest["display"] == "standalone"
    assert manifest["name"] and manifest["short_name"]
    stylesheet = Path(finders.find("games/play/play.css")).read_text()
    assert f"--felt-dark: {manifest['theme_color']};" in stylesheet  # the header's colour
    assert f"background: {manifest['background_color']};" in stylesheet
    sizes = {icon["sizes"]: icon for icon in manifest["icons"]}
    assert sizes.keys() == {"any", "192x192", "512x512"}
    assert sizes["any"]["type"] == "image/svg+xml"
    for icon in manifest["icons"]:
        served = client.get(icon["src"], HTTP_HOST=host)
        assert served.status_code == 200, icon
        assert served["Content-Type"].startswith(icon["type"]), icon
        body = b"".join(served.streaming_content) if served.streaming else served.content
        if icon["type"] == "image/png":
            width, height = struct.unpack(">II", body[16:24])  # the PNG's IHDR
            assert f"{width}x{height}" == icon["sizes"], icon


@pytest.mark.parametrize("path", ["/play/", "/play/history"])
def test_both_pages_link_the_manifest_and_their_theme_colour(client, host, path):
    page = client.get(path, HTTP_HOST=host)
    parsed = Tags()
    parsed.feed(page.content.decode())
    links = {attrs["rel"]: attrs["href"] for tag, attrs in parsed.tags if tag == "link"}
    assert links["manifest"] == "/play/manifest.webmanifest"
    metas = {attrs.get("name"): attrs.get("content") for tag, attrs in parsed.tags if tag == "meta"}
    manifest = json.loads(client.get(links["manifest"], HTTP_HOST=host).content)
    assert metas["theme-color"] == manifest["theme_color"]
    assert policy(page)["manifest-src"] == "'self'"
