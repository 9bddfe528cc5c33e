"""A whole practice game by clicks in every shipped language, and in the pseudo-locale on a
375 px phone (docs/play.md "Languages"): the page's <html lang>, its strings from the
catalogues, no script or console error (conftest.py ``contexts``), nothing wider than the
phone's screen. The same games make the screenshots docs/play.md shows ("Screens"): the
lobby, a hand, a showdown and a result at desktop and phone size, into the test artefacts,
and into docs/play/ with ``GIN_UPDATE_SCREENS=1`` (``make screens``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

from gin_platform.i18n.languages import PSEUDO_LANGUAGE, SOURCE_LANGUAGE
from tests.browser.pages import ARTIFACTS, ROOT, PlayPage, in_language

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

SHIPPED = [code for code, _name in settings.LANGUAGES]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NARROW_PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}
# Screenshots stay still: no animation between a move and the picture.
STILL = {"reduced_motion": "reduce"}
SCREENS = ROOT / "docs" / "play"
JPEG_QUALITY = 50
# An operator names its rooms in its players' language.
ROOM_NAMES = {
    "en": "Friday practice",
    "es": "Práctica del viernes",
    "it": "Allenamento del venerdì",
    "de": "Freitagstraining",
    "fr": "Entraînement du vendredi",
    "pt": "Treino de sexta-feira",
    PSEUDO_LANGUAGE: "Friday practice",
}

Moment = Callable[[str, PlayPage], None]


@cache
def translations(language: str) -> dict[str, str]:
    """The page's catalogue (djangojs) in ``language``: msgid -> translation, no context."""
    if language == SOURCE_LANGUAGE:
        return {}
    folder = language.replace("-", "_")
    with (ROOT / "locale" / folder / "LC_MESSAGES" / "djangojs.po").open("rb") as file:
        catalogue = read_po(file)
    return {
        message.id: message.string
        for message in catalogue
        if isinstance(message.id, str) and message.id and not message.context and message.string
    }


def translated(language: str, msgid: str, **params: str) -> str:
    text = msgid if language == SOURCE_LANGUAGE else translations(language)[msgid]
    for name, value in params.items():
        text = text.replace(f"%({name})s", value)
    return text


def text_of(page, selector: str) -> str:
    return page.locator(selector).first.text_content().strip()


def play_a_practice_game(site, page, language: str, moment: Moment) -> PlayPage:
    """From the launch URL in ``language`` to the game's statement, by clicks: the lobby,
    "Play the house bot", the bot's moves for the player, the showdown and the result.
    ``moment(name, player)`` is called at "lobby", "hand" (the player's first discard),
    "showdown" and "result"; each checks the page speaks ``language`` on the way."""
    name = ROOM_NAMES.get(language, ROOM_NAMES[SOURCE_LANGUAGE])
    room = site.room(name=name, variant="ftk", is_practice=True, stake="100", turn_seconds=600)
    site.room(
        name=name,
        variant="match",
        target=100,
        is_practice=True,
        stake="100",
        turn_seconds=600,
    )
    player = site.player("Dana", deposit="50.00")
    page.goto(in_language(site.launch_url(player), language))
    page.locator("#lobby-title").wait_for()
    assert page.locator("html").get_attribute("lang") == language
    assert text_of(page, "#lobby-title") == translated(language, "Lobby")
    dana = PlayPage(page, "Dana")
    moment("lobby", dana)

    page.locator(f'.room[data-room-id="{room["id"]}"] [data-lobby-action="play-bot"]').click()
    page.locator("#hand .card").first.wait_for()
    assert text_of(page, "#hand-title") == translated(language, "Your hand")
    assert text_of(page, "#log-title") == translated(language, "Moves")
    hand_shown = False
    for _ in dana.turns_until("#showdown", most=300):
        if not hand_shown and page.locator("#hand.can-discard").count():
            moment("hand", dana)  # eleven cards, the melds grouped, a discard to choose
            hand_shown = True
        dana.play_as_the_bot()
    assert hand_shown

    page.locator("#showdown").wait_for()
    assert text_of(page, "#showdown-title") == translated(
        language, "Showdown: hand %(number)s", number="1"
    )
    page.locator("#statement-title").wait_for()
    assert text_of(page, "#statement-title") == translated(language, "Your statement")
    assert page.locator("html").get_attribute("lang") == language
    moment("showdown", dana)
    moment("result", dana)
    return dana


# Where each moment's picture looks: the top of the page, or an element brought into view.
FOCUS = {"lobby": None, "hand": "#hand", "showdown": "#showdown", "result": "#result"}


def bring_into_view(page, moment: str) -> None:
    selector = FOCUS[moment]
    if selector is None:
        page.evaluate("() => window.scrollTo(0, 0)")
    else:
        page.locator(selector).first.evaluate(
            "el => el.scrollIntoView({block: el.id === 'hand' ? 'center' : 'start'})"
        )


def keep_screens(language: str) -> Moment:
    """Pictures of each moment at desktop and phone size: the viewport only, JPEG."""
    folder = SCREENS if os.environ.get("GIN_UPDATE_SCREENS") == "1" else ARTIFACTS / "screens"
    folder.mkdir(parents=True, exist_ok=True)

    def moment(name: str, player: PlayPage) -> None:
        page = player.page
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(viewport)
            bring_into_view(page, name)
            path = folder / f"{language}-{name}-{size}.jpg"
            page.screenshot(path=str(path), type="jpeg", quality=JPEG_QUALITY)
        page.set_viewport_size(DESKTOP)

    return moment


@pytest.mark.parametrize("language", SHIPPED)
def test_a_whole_practice_game_by_clicks_in_every_shipped_language(site, contexts, language):
    page = contexts(viewport=DESKTOP, **STILL).new_page()
    play_a_practice_game(site, page, language, keep_screens(language))


OVERFLOWS = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  const page = document.documentElement.scrollWidth;
  if (page > width) found.push(`the page is ${page} px wide`);
  const name = (el) => {
    const classes = typeof el.className === "string" ? el.className.trim() : "";
    return el.tagName.toLowerCase() + (el.id ? `#${el.id}` : "")
      + (classes ? `.${classes.split(/\\s+/).join(".")}` : "");
  };
  const ownText = (el) => [...el.childNodes]
    .some((node) => node.nodeType === Node.TEXT_NODE && node.textContent.trim());
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(".sr-only, .skip, dialog:not([open])")) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility === "hidden" || box.width === 0 || box.height === 0) continue;
    if (ownText(el) && (box.left < -0.5 || box.right > width + 0.5)) {
      const text = el.textContent.trim().slice(0, 60);
      found.push(`${name(el)} at ${Math.round(box.left)}..${Math.round(box.right)} px: ${text}`);
    }
    if (style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1) {
      found.push(`${name(el)} holds ${el.scrollWidth} px in ${el.clientWidth} px`);
    }
  }
  return found;
}"""


def overflows(page) -> list[str]:
    return page.evaluate(OVERFLOWS)


def test_the_pseudo_locale_fits_a_375_px_phone_through_a_whole_game(site, contexts):
    """en-XA: every string bracketed, accented and about 30% longer. Nothing wider than the
    phone at the lobby, the hand, the showdown and the result (nor at any turn between)."""
    page = contexts(**NARROW_PHONE, **STILL).new_page()
    seen: list[str] = []

    def moment(name: str, player: PlayPage) -> None:
        bring_into_view(player.page, name)
        assert overflows(player.page) == [], name
        player.page.screenshot(path=str(ARTIFACTS / f"pseudo-locale-{name}-375.png"))
        seen.append(name)

    dana = play_a_practice_game(site, page, PSEUDO_LANGUAGE, moment)
    assert seen == ["lobby", "hand", "showdown", "result"]
    assert text_of(page, "#result-title").startswith("[")
    page.screenshot(path=str(ARTIFACTS / "pseudo-locale-game-375-full.png"), full_page=True)
    assert overflows(dana.page) == []


def test_the_screens_docs_play_md_shows_are_there():
    """docs/play.md shows every language's four moments at both sizes (make screens)."""
    text = (ROOT / "docs" / "play.md").read_text()
    for language in SHIPPED:
        for name in FOCUS:
            for size in ("desktop", "phone"):
                image = f"{language}-{name}-{size}.jpg"
                assert (SCREENS / image).is_file(), image
                assert f"play/{image}" in text, image
    total = sum(path.stat().st_size for path in Path(SCREENS).glob("*.jpg"))
    assert total < 2 * 1024 * 1024, total
