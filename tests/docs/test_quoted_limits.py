"""The socket message limits the docs quote are the ones the server and the table page keep:
a client built from docs/play.md or docs/realtime.md is neither closed for sending within
what they say nor held back below it."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
LIVE_JS = ROOT / "games" / "static" / "games" / "play" / "live.js"


def _js_constant(name: str) -> int:
    match = re.search(rf"const {name} = ([\d_]+);", LIVE_JS.read_text())
    assert match, f"{name} is not in {LIVE_JS.name}"
    return int(match.group(1).replace("_", ""))


def test_play_md_quotes_the_pages_budget_and_the_servers_limit():
    text = " ".join((ROOT / "docs" / "play.md").read_text().split())
    page = re.search(r"sends at most (\d+) socket messages in (\d+) s", text)
    assert page, "docs/play.md no longer states the page's socket budget"
    assert int(page.group(1)) == _js_constant("SEND_BUDGET")
    assert int(page.group(2)) * 1000 == _js_constant("SEND_WINDOW_MS")
    server = re.search(
        r"closes a socket over `REALTIME_MAX_MESSAGES_PER_10S`, (\d+) by default", text
    )
    assert server, "docs/play.md no longer states the server's limit"
    assert int(server.group(1)) == settings.REALTIME_MAX_MESSAGES_PER_10S
    assert _js_constant("SEND_BUDGET") < settings.REALTIME_MAX_MESSAGES_PER_10S


def test_realtime_md_quotes_the_servers_limit():
    text = " ".join((ROOT / "docs" / "realtime.md").read_text().split())
    quoted = re.search(r"`REALTIME_MAX_MESSAGES_PER_10S` \((\d+),", text)
    assert quoted and int(quoted.group(1)) == settings.REALTIME_MAX_MESSAGES_PER_10S
