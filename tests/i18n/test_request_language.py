"""The language a request is answered in (gin_platform/i18n/languages.py
``request_language``; docs/api-errors.md "Languages"), and what an answer says of it."""

from __future__ import annotations

import pytest
from django.utils import translation

from gin_platform.i18n.languages import is_language_tag, request_language
from gin_platform.models import Player, PlayerSession
from wallet.problems import InsufficientFundsProblem

WELL_FORMED = (
    "es",
    "ES",
    "es-AR",
    "it-IT",
    "en-GB",
    "zh-Hant-TW",
    "sr-Latn-RS",
    "es-419",
    "de-CH-1996",
    "x-private",
    "en-US-x-twain",
)
MALFORMED = (
    "",
    "e",
    "es_ES",
    "es--AR",
    "-es",
    "es-",
    "españa",
    "es AR",
    "abcdefghi",
    "x" * 36,
    "12",
)


@pytest.mark.parametrize("tag", WELL_FORMED)
def test_well_formed_bcp47_tags(tag):
    assert is_language_tag(tag)


@pytest.mark.parametrize("tag", MALFORMED)
def test_malformed_tags(tag):
    assert not is_language_tag(tag)


def _session(lang: str) -> PlayerSession:
    return PlayerSession(lang=lang)


def _player(locale: str) -> Player:
    return Player(locale=locale)


@pytest.mark.parametrize(
    ("session", "locale", "accept", "language"),
    [
        ("it", "es", "en", "it"),  # the launch's language first
        ("", "es-MX", "it", "es"),  # then the stored locale, matched
        ("", "it_IT", "es", "it"),  # a POSIX locale as stored by an operator
        ("", "de_DE", "it", "de"),
        ("", "ja", "nl, it;q=0.9", "it"),  # then the browser's first shipped language
        ("", "ja", "", "en"),  # else English
        ("", "", "*", "en"),
    ],
)
def test_a_player_s_request(session, locale, accept, language):
    chosen = request_language(
        session=_session(session), player=_player(locale), accept_language=accept
    )
    assert chosen == language


@pytest.mark.parametrize(
    ("accept", "language"),
    [
        ("es-ES,es;q=0.9", "es"),
        ("nl-BE, it;q=0.5", "it"),
        ("pt-BR, it;q=0.5", "pt"),
        ("", "en"),
        ("ja", "en"),
    ],
)
def test_anybody_else_s_request_speaks_accept_language_else_english(accept, language):
    assert request_language(accept_language=accept) == language


@pytest.mark.django_db
def test_an_operator_s_answer_translates_the_title_and_names_its_language(operator_client):
    response = operator_client.get("/api/v1/no-such-endpoint", HTTP_ACCEPT_LANGUAGE="it-IT")
    assert response.status_code == 404
    assert response["Content-Language"] == "it"
    assert "Accept-Language" in response["Vary"]
    body = response.json()
    assert body["type"] == "/problems/not-found" and body["title"] == "Non trovato"


@pytest.mark.django_db
def test_an_answer_without_accept_language_is_english(operator_client):
    response = operator_client.get("/api/v1/no-such-endpoint")
    assert response["Content-Language"] == "en"
    assert response.json()["title"] == "Not found"


def test_a_problem_an_operator_s_record_keeps_is_english_whatever_the_request_speaks():
    with translation.override("es"):
        problem = InsufficientFundsProblem()
        assert problem.body()["title"] == "Saldo insuficiente"
        assert problem.as_record() == {
            "type": "/problems/insufficient-funds",
            "title": "Insufficient funds",
            "detail": "Insufficient funds",
        }
