"""Driving the hosted table page (docs/play.md) like a person, and the operator API the
tests build their world with."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests
from django.db import connections

from games import engine

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "var" / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
TIMEOUT_MS = 20_000


class OperatorApi:
    """An operator's API key on the live server: every write carries an Idempotency-Key."""

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {key}"

    def post(self, path: str, body: dict | None = None, *, expect: int = 201) -> dict:
        response = self.http.post(
            f"{self.base_url}/api/v1/{path}",
            json=body or {},
            headers={"Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        )
        assert response.status_code == expect, (path, response.status_code, response.text)
        return response.json()

    def get(self, path: str) -> dict:
        response = self.http.get(f"{self.base_url}/api/v1/{path}", timeout=30)
        assert response.status_code == 200, (path, response.status_code, response.text)
        return response.json()

    def patch(self, path: str, body: dict) -> dict:
        response = self.http.patch(
            f"{self.base_url}/api/v1/{path}",
            json=body,
            headers={"Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        )
        assert response.status_code == 200, (path, response.status_code, response.text)
        return response.json()

    def player(self, name: str, *, deposit: str | None = None) -> dict:
        player = self.post(
            "players",
            {
                "external_ref": f"{name.lower()}-{uuid.uuid4().hex[:8]}",
                "display_name": name,
                "kyc_status": "verified",
            },
        )
        if deposit is not None:
            self.post(
                f"players/{player['id']}/deposits",
                {"amount": deposit, "currency": player["wallet_currency"]},
            )
        return player

    def room(self, **fields: Any) -> dict:
        return self.post("rooms", fields)

    def launch_url(self, player: dict, **options: Any) -> str:
        return self.post(f"players/{player['id']}/launch", options)["url"]


def in_language(url: str, language: str) -> str:
    """The launch URL with ``?lang=language`` before the fragment, in place of the one the
    launch put there (the player's stored locale's, English here)."""
    address, fragment = url.split("#", 1)
    return f"{address.split('?', 1)[0]}?lang={language}#{fragment}"


def refused_fetch(status: int, path: str) -> str:
    """The console error Chromium logs for the page's fetch of ``/api/v1/<path>`` (a regex)
    answered ``status``: what a test that provokes a refusal on purpose names in
    ``@pytest.mark.console_errors`` (conftest.py ``contexts``)."""
    return (
        rf"Failed to load resource: the server responded with a status of {status} \([^)]*\) "
        rf"\[http://127\.0\.0\.1:\d+/api/v1/{path}\]"
    )


def offline_fetch(path: str) -> str:
    """The console error Chromium logs for the page's fetch of ``/api/v1/<path>`` (a regex)
    while the test has taken the browser offline (``context.set_offline(True)``)."""
    return (
        r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED "
        rf"\[http://127\.0\.0\.1:\d+/api/v1/{path}\]"
    )


def database(function, *args, **kwargs):
    """Run ``function`` in a thread of its own: Django refuses database calls from the test's
    thread while Playwright's event loop runs in it (conftest.py ``browser``)."""

    def run():
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


class RestPlayer:
    """An opponent who plays over the REST API with a session of their own (no socket): a
    new player, or ``player`` (the operator API's answer) that already exists."""

    def __init__(
        self,
        site,
        base_url: str,
        name: str,
        *,
        deposit: str | None = None,
        player: dict | None = None,
    ) -> None:
        self.player = player or site.player(name, deposit=deposit)
        token = site.post(f"players/{self.player['id']}/sessions", {})["token"]
        self.base_url = base_url
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        response = self.http.request(
            method, f"{self.base_url}/api/v1/{path}", json=body, timeout=30
        )
        assert response.status_code in (200, 201), (path, response.status_code, response.text)
        return response.json()

    def move(self, match_id: int) -> dict:
        """One move that never ends the hand: pass the upcard, draw from the stock, discard
        (what the engine's bot would put down, knock or not)."""
        view = self.call("GET", f"matches/{match_id}/view")
        legal = view["hand"]["legal_actions"]
        kinds = {action["kind"] for action in legal}
        if "pass" in kinds:
            move = {"kind": "pass"}
        elif "draw_stock" in kinds:
            move = {"kind": "draw_stock"}
        else:
            chosen = engine.choose_action_from_view(view["hand"]).get("card")
            discards = [action["card"] for action in legal if action["kind"] == "discard"]
            move = {"kind": "discard", "card": chosen if chosen in discards else discards[0]}
        return self.call(
            "POST", f"matches/{match_id}/actions", {**move, "expected_seq": view["seq"]}
        )

    def play_as_the_bot(self, match_id: int) -> dict:
        """The move the engine's bot picks from the player's view (a knock ends the hand)."""
        view = self.call("GET", f"matches/{match_id}/view")
        move = engine.choose_action_from_view(view["hand"])
        return self.call(
            "POST", f"matches/{match_id}/actions", {**move, "expected_seq": view["seq"]}
        )


def screenshot(page, name: str) -> Path:
    """Keep a picture of a key moment under var/test-artifacts/browser/."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


class PlayPage:
    """One person's tab on /play/: what they see, and the moves they make through it."""

    def __init__(self, page, name: str) -> None:
        self.page = page
        self.name = name

    # --- Reading the page -----------------------------------------------------------------
    def seq(self) -> int:
        value = self.page.locator(".table-screen").get_attribute("data-seq")
        return int(value) if value is not None else -1

    def wait_seq(self, at_least: int) -> int:
        self.page.wait_for_function(
            "n => { const el = document.querySelector('.table-screen');"
            " return el && Number(el.dataset.seq) >= n; }",
            arg=at_least,
            timeout=TIMEOUT_MS,
        )
        return self.seq()

    def match_status(self) -> str | None:
        return self.page.locator(".table-screen").get_attribute("data-match-status")

    def hand(self) -> list[str]:
        return self.page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")

    def my_turn(self) -> bool:
        return self.page.locator("#actions [data-action]").count() > 0 or (
            self.page.locator("#hand.can-discard").count() > 0
        )

    def view_from_screen(self) -> dict:
        """What the player sees, in the shape the engine's bot reads (a player view): the
        hand, the top of the discard pile and the moves the page offers."""
        return self.page.evaluate(
            """() => {
              const hand = [...document.querySelectorAll('#hand .card')].map(e => e.dataset.card);
              const top = document.querySelector('#discard-top');
              const legal = [];
              for (const b of document.querySelectorAll('#actions [data-action]')) {
                legal.push({kind: b.dataset.action, card: b.dataset.card || null});
              }
              if (document.querySelector('#hand.can-discard')) {
                for (const c of document.querySelectorAll('#hand .card')) {
                  if (c.getAttribute('aria-disabled') !== 'true')
                    legal.push({kind: 'discard', card: c.dataset.card});
                }
              }
              return {hand, discard_pile: top ? [top.dataset.card] : [], legal_actions: legal};
            }"""
        )

    def top_card(self) -> str | None:
        return self.page.evaluate(
            "() => { const el = document.querySelector('#discard-top'); "
            "return el ? el.dataset.card : null; }"
        )

    def log_texts(self) -> list[str]:
        return self.page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")

    # --- Moves ---------------------------------------------------------------------------
    def press_action(self, kind: str, card: str | None = None) -> None:
        selector = f'#actions [data-action="{kind}"]'
        if card is not None:
            selector += f'[data-card="{card}"]'
        self.page.locator(selector).click()

    def discard_by_keyboard(self, card: str) -> None:
        """Arrow keys to the card, Enter to discard it (docs/play.md shortcuts)."""
        cards = self.hand()
        self.page.locator('#hand .card[tabindex="0"]').focus()
        self.page.keyboard.press("Home")
        for _ in range(cards.index(card)):
            self.page.keyboard.press("ArrowRight")
        focused = self.page.evaluate("() => document.activeElement.dataset.card")
        assert focused == card, (focused, card)
        self.page.keyboard.press("Enter")

    def play(self, move: dict, *, keyboard: bool = False) -> None:
        kind, card = move["kind"], move.get("card")
        if kind == "discard":
            if keyboard:
                self.discard_by_keyboard(card)
            else:
                self.page.locator(f'#hand .card[data-card="{card}"]').click()
        elif kind == "knock":
            self.press_action("knock", card)
        elif keyboard and kind in ("draw_stock", "draw_discard", "take_upcard", "pass"):
            key = {"draw_stock": "s", "draw_discard": "d", "take_upcard": "t", "pass": "p"}[kind]
            self.page.locator("#main").focus()
            self.page.keyboard.press(key)
        else:
            self.press_action(kind)

    def turns_until(self, done: str, *, most: int) -> Iterator[None]:
        """The player's turns until the page shows ``done`` (a CSS selector), ``most`` at the
        most: each time either is on the page, one more turn unless ``done`` is."""
        either = (
            f"() => document.querySelector('{done}')"
            " || document.querySelector('#actions [data-action]')"
            " || document.querySelector('#hand.can-discard')"
        )
        for _ in range(most):
            if self.page.locator(done).count():
                return
            self.page.wait_for_function(either)
            if self.page.locator(done).count():
                return
            yield

    def play_as_the_bot(self, view: dict | None = None) -> None:
        """The move the engine's bot picks from ``view`` (by default what the screen shows),
        made, and waited for until the table's sequence number has moved on."""
        if view is None:
            view = self.view_from_screen()
        seq = self.seq()
        self.play(engine.choose_action_from_view(view))
        self.wait_seq(seq + 1)


def practice_match_against_the_bot(site: OperatorApi, contexts, name: str, *, target: int):
    """``name``'s page (a new player's, in a new browser context) at the first table of a new
    practice Match Play room to ``target`` (10-minute turns), the house bot invited from the
    lobby and the cards dealt."""
    site.room(
        name="Practice Match Play",
        variant="match",
        target=target,
        is_practice=True,
        stake="100",
        turn_seconds=600,
    )
    page = contexts().new_page()
    page.goto(site.launch_url(site.player(name)))
    page.locator(".table-row").first.get_by_role("button", name="Play the house bot").click()
    page.locator("#hand .card").first.wait_for()
    return PlayPage(page, name)


RANK_NAMES = {
    "A": "Ace", "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six", "7": "Seven",
    "8": "Eight", "9": "Nine", "T": "Ten", "J": "Jack", "Q": "Queen", "K": "King",
}  # fmt: skip
SUIT_NAMES = {
    "S": ("spades", "\u2660"),
    "H": ("hearts", "\u2665"),
    "D": ("diamonds", "\u2666"),
    "C": ("clubs", "\u2663"),
}


def card_forms(card: str) -> tuple[str, str]:
    """How the page can name ``card`` ("QS"): for screen readers and in running text."""
    rank, suit = card[:-1], card[-1]
    name, symbol = SUIT_NAMES[suit]
    return f"{RANK_NAMES[rank]} of {name}", f"{'10' if rank == 'T' else rank}{symbol}"


def shown_cards(page) -> set[str]:
    """Every card a page shows or names: as a card element (data-card), in an aria label
    (the screen reader's name) or in its text (the moves list)."""
    seen = page.evaluate(
        """() => ({
          codes: [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
          labels: [...document.querySelectorAll('[aria-label]')]
            .map(e => e.getAttribute('aria-label')),
          text: document.body.innerText,
        })"""
    )
    words = " ".join([*seen["labels"], seen["text"]])
    found = set(seen["codes"])
    for rank in RANK_NAMES:
        for suit in SUIT_NAMES:
            name, short = card_forms(rank + suit)
            if name in words or re.search(rf"(?<![0-9]){re.escape(short)}", words):
                found.add(rank + suit)
    return found


def wait_for_log(page, text: str) -> None:
    """The moves list shows ``text`` (it arrives live: nobody reloads)."""
    page.wait_for_function(
        "t => [...document.querySelectorAll('#log li')].some(li => li.textContent === t)",
        arg=text,
        timeout=TIMEOUT_MS,
    )
