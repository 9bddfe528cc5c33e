"""A refused move in the player's language, over the real HTTP path (docs/api-errors.md
"Languages"): the launch's `lang`, then the player's stored locale, then Accept-Language,
then English, with the same `type` in each; and no engine name (action kinds, phases, rule
numbers) in what a player reads, whatever move they send in whatever phase."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from games import engine
from games.engine.state import ACTION_KINDS, CARD_ACTIONS, PHASES
from gin_platform.models import LaunchToken, Player
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, seat_both, view
from tests.helpers import assert_problem, bearer_client, session_client

pytestmark = pytest.mark.django_db

BIG_GIN_AT_THE_OFFER = {
    "en": "You cannot go Big Gin yet: take the upcard or pass first.",
    "es": "Todavía no puedes hacer Gran Gin: primero coge la carta descubierta o pasa.",
    "it": "Non puoi ancora fare Grande Gin: prima prendi la carta scoperta o passa.",
    "de": (
        "Sie können noch kein Big Gin machen: "
        "Nehmen Sie zuerst die aufgedeckte Karte oder passen Sie."
    ),
    "fr": (
        "Vous ne pouvez pas encore faire Big Gin\u00a0: prenez d'abord la carte retournée "
        "ou passez."
    ),
    "pt": "Você ainda não pode fazer Big Gin: primeiro pegue a carta virada ou passe.",
}
ILLEGAL_TITLE = {
    "en": "That action is not allowed now",
    "es": "Esa acción no está permitida ahora",
    "it": "Quest'azione ora non è consentita",
    "de": "Diese Aktion ist jetzt nicht erlaubt",
    "fr": "Cette action n'est pas autorisée pour le moment",
    "pt": "Essa ação não é permitida agora",
}
# What a player must never read: the engine's names for moves and phases (snake_case, or
# the word "phase"), its rule numbers, seat numbers.
INTERNAL = re.compile(r"\b[a-z]+_[a-z_]+\b|\bphase\b|\bR\d+|\bseat \d", re.IGNORECASE)
UNSHIPPED = "ja"  # a stored locale no shipped language serves: the next source decides


@pytest.fixture
def table(operator):
    return TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))


@pytest.fixture
def started(operator, table, seeds):
    """A running match at the upcard offer: (match id, the player to act, its seq)."""
    first, second = (
        session_client(PlayerFactory(operator=operator, locale=UNSHIPPED)) for _ in range(2)
    )
    match_id, seats = seat_both(first, second, table.pk)
    look = view(seats[0], match_id).json()
    to_act = look["hand"]["to_act"]
    return match_id, seats[to_act].player, look["seq"]


def launched_client(operator_client, player: Player, idem, *, lang: str) -> APIClient:
    """The player's client as the hosted page holds it: a launch with ``lang``, exchanged."""
    launched = operator_client.post(
        f"/api/v1/players/{player.pk}/launch", {"lang": lang}, format="json", **idem()
    )
    assert launched.status_code == 201, launched.json()
    token = launched.json()["url"].split("#launch=", 1)[1]
    session = APIClient().post("/api/v1/launch/session", {"launch_token": token}, format="json")
    assert session.status_code == 201, session.json()
    return bearer_client(session.json()["token"])


def refused_big_gin(client, match_id: int, seq: int, **headers) -> tuple[dict, str]:
    response = client.post(
        f"/api/v1/matches/{match_id}/actions",
        {"kind": "big_gin", "expected_seq": seq},
        format="json",
        **headers,
    )
    body = assert_problem(response, 422, "illegal-action")
    return body, response["Content-Language"]


def test_the_launch_language_comes_before_the_stored_locale_and_the_browser(
    started, operator_client, idem
):
    match_id, player, seq = started
    client = launched_client(operator_client, player, idem, lang="es-ES")
    Player.objects.filter(pk=player.pk).update(locale="it")
    body, language = refused_big_gin(client, match_id, seq, HTTP_ACCEPT_LANGUAGE="en")
    assert language == "es"
    assert (body["title"], body["detail"]) == (ILLEGAL_TITLE["es"], BIG_GIN_AT_THE_OFFER["es"])


def test_the_stored_locale_comes_before_the_browser(started):
    match_id, player, seq = started
    Player.objects.filter(pk=player.pk).update(locale="it_IT")
    client = session_client(Player.objects.get(pk=player.pk))
    body, language = refused_big_gin(client, match_id, seq, HTTP_ACCEPT_LANGUAGE="es, en;q=0.8")
    assert language == "it"
    assert (body["title"], body["detail"]) == (ILLEGAL_TITLE["it"], BIG_GIN_AT_THE_OFFER["it"])


def test_the_browser_speaks_when_the_player_has_no_shipped_language(started):
    match_id, player, seq = started
    client = session_client(player)  # locale "ja", and no launch language
    body, language = refused_big_gin(
        client, match_id, seq, HTTP_ACCEPT_LANGUAGE="nl-BE, es-AR;q=0.9, en;q=0.5"
    )
    assert language == "es"
    assert (body["title"], body["detail"]) == (ILLEGAL_TITLE["es"], BIG_GIN_AT_THE_OFFER["es"])


def test_english_when_nothing_names_a_shipped_language(started, operator_client, idem):
    match_id, player, seq = started
    client = launched_client(operator_client, player, idem, lang="nl-NL")  # not shipped
    body, language = refused_big_gin(client, match_id, seq, HTTP_ACCEPT_LANGUAGE="sv")
    assert language == "en"
    assert (body["title"], body["detail"]) == (ILLEGAL_TITLE["en"], BIG_GIN_AT_THE_OFFER["en"])


def test_the_type_and_the_extensions_are_the_same_in_every_language(started):
    match_id, player, seq = started
    client = session_client(player)
    answers = {
        language: refused_big_gin(client, match_id, seq, HTTP_ACCEPT_LANGUAGE=language)[0]
        for language in ILLEGAL_TITLE
    }
    shapes = {
        language: {key: value for key, value in body.items() if key not in ("title", "detail")}
        for language, body in answers.items()
    }
    assert all(shape == shapes["en"] for shape in shapes.values())
    assert shapes["en"]["type"] == "/problems/illegal-action"
    assert len({body["detail"] for body in answers.values()}) == len(ILLEGAL_TITLE)


# --- No engine name in any refusal, whatever the move and the phase --------------------------
def _moves(hand_view: dict, opponent_card: str) -> list[dict]:
    """Every action kind, with no card, a card of the hand and a card the seat does not
    hold (and the card just taken from the pile, when there is one)."""
    own = hand_view["hand"][0]
    cards: list[str | None] = [None, own, opponent_card]
    if hand_view.get("taken_from_discard"):
        cards.append(hand_view["taken_from_discard"])
    return [{"kind": kind, "card": card} for kind in ACTION_KINDS for card in cards]


def act_in(client, match_id: int, move: dict, seq: int, language: str):
    return client.post(
        f"/api/v1/matches/{match_id}/actions",
        {**move, "expected_seq": seq},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )


def test_no_refusal_a_player_reads_names_an_engine_kind_a_phase_or_a_rule(operator, table, seeds):
    first, second = (
        session_client(PlayerFactory(operator=operator, locale=UNSHIPPED)) for _ in range(2)
    )
    match_id, seats = seat_both(first, second, table.pk)
    refusals: list = []
    phases_seen = set()
    for _turn in range(8):  # the offer, the draw after passes, draws and discards
        looks = {seat: view(seats[seat], match_id).json() for seat in (0, 1)}
        to_act = looks[0]["hand"]["to_act"]
        mine, theirs = looks[to_act], looks[1 - to_act]
        phases_seen.add(mine["hand"]["phase"])
        opponent = next(
            str(card) for card in engine.FULL_DECK if str(card) not in mine["hand"]["hand"]
        )
        illegal = [
            move
            for move in _moves(mine["hand"], opponent)
            if move
            not in [{"kind": a["kind"], "card": a["card"]} for a in mine["hand"]["legal_actions"]]
        ]
        for move in illegal:
            for language in ILLEGAL_TITLE:
                response = act_in(seats[to_act], match_id, move, mine["seq"], language)
                assert response.status_code in (400, 409, 422), response.json()
                refusals.append((move, language, response.json()))
        # The seat not to act is refused too, in its words.
        waiting = act_in(seats[1 - to_act], match_id, {"kind": "pass"}, theirs["seq"], "it")
        refusals.append(({"kind": "pass", "waiting": True}, "it", waiting.json()))
        move = engine.choose_action_from_view(mine["hand"])
        if move["kind"] in ("knock", "big_gin"):  # stay in the hand: discard instead
            move = {"kind": "discard", "card": move["card"] or mine["hand"]["hand"][0]}
        played = act(seats[to_act], match_id, **move, expected_seq=mine["seq"])
        assert played.status_code == 200, played.json()
    assert phases_seen >= {"upcard_offer", "draw", "discard"}
    kinds_refused = {move["kind"] for move, _language, _body in refusals}
    assert kinds_refused == set(ACTION_KINDS)
    internal_names = {name for name in (*ACTION_KINDS, *PHASES) if "_" in name}
    for move, language, body in refusals:
        for text in (body["title"], body["detail"]):
            assert not INTERNAL.search(text), (move, language, text)
            assert not any(name in text for name in internal_names), (move, language, text)
    card_refusals = [
        body
        for move, language, body in refusals
        if move["kind"] in CARD_ACTIONS and move.get("card")
    ]
    assert card_refusals  # the card put down is named in words, never in R1 notation
    for body in card_refusals:
        assert not re.search(r"\b(?:[2-9AJQKT]|10)[SHDC]\b", body["detail"]), body["detail"]


# --- The launch's language ------------------------------------------------------------------
def test_a_malformed_lang_is_422_and_nothing_is_created(operator, player, operator_client, idem):
    for lang in ("es_ES", "", "e", "es--ES", "españa", "x" * 40, "en-", "-en"):
        response = operator_client.post(
            f"/api/v1/players/{player.pk}/launch", {"lang": lang}, format="json", **idem()
        )
        body = assert_problem(response, 422, "launch-options-invalid")
        assert body["field"] == "lang", lang
    assert not LaunchToken.objects.exists()


@pytest.mark.parametrize(
    ("lang", "locale", "url_lang", "session_lang"),
    [
        ("it-IT", "es", "it", "it"),  # the launch's, matched to a shipped language
        ("ES", "en", "es", "es"),  # tags are case-insensitive
        ("de-CH", "es", "de", "de"),
        ("ja-JP", "es-MX", "es", "es"),  # a language we do not ship: the stored locale
        (None, "it", "it", "it"),
        (None, UNSHIPPED, None, "es"),  # neither: no ?lang=, the browser's language then
    ],
)
def test_the_launch_url_and_the_session_say_the_language(
    operator, operator_client, idem, lang, locale, url_lang, session_lang
):
    player = PlayerFactory(operator=operator, locale=locale)
    body = {} if lang is None else {"lang": lang}
    launched = operator_client.post(
        f"/api/v1/players/{player.pk}/launch", body, format="json", **idem()
    )
    assert launched.status_code == 201
    answer = launched.json()
    assert answer["lang"] == url_lang
    query = f"?lang={url_lang}" if url_lang else ""
    assert answer["url"].startswith(f"http://testserver/play/{query}#launch=glt_")
    token = answer["url"].split("#launch=", 1)[1]
    session = APIClient().post(
        "/api/v1/launch/session",
        {"launch_token": token},
        format="json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert session.status_code == 201
    assert session.json()["lang"] == session_lang
    assert session["Content-Language"] == session_lang
