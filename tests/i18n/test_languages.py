"""Which language a player gets (gin_platform/i18n/languages.py, docs/play.md "Languages")."""

from __future__ import annotations

import pytest

from gin_platform.i18n.languages import (
    accepted_language,
    available_languages,
    chosen_language,
    matched_language,
)


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("es", "es"),
        ("es-ES", "es"),
        ("ES-mx", "es"),
        ("it_IT", "it"),
        ("de-AT", "de"),
        ("fr-CA", "fr"),
        ("en-GB", "en"),
        ("pt-BR", "pt"),
        ("pt-PT", "pt"),
        ("nl-NL", None),
        ("", None),
        (None, None),
        ("en-XA", "en-XA"),
    ],
)
def test_a_tag_matches_the_best_shipped_language(tag, language):
    assert matched_language(tag) == language


def test_a_shipped_regional_language_wins_over_its_primary(settings):
    settings.LANGUAGES = [
        *settings.LANGUAGES,
        ("pt-BR", "Português do Brasil"),
    ]
    assert matched_language("pt-BR") == "pt-BR"
    assert matched_language("pt-PT") == "pt"


def test_the_pseudo_locale_is_a_language_only_where_allowed(settings):
    assert "en-XA" in available_languages()
    settings.PSEUDO_LOCALE = False
    assert "en-XA" not in available_languages()
    assert matched_language("en-XA") == "en"


def test_accept_language_is_read_in_its_order_of_preference():
    assert accepted_language("nl-NL,nl;q=0.9,it;q=0.8,es;q=0.7") == "it"
    assert accepted_language("ja, *;q=0.5") is None
    assert accepted_language("") is None
    assert accepted_language(None) is None


def test_the_asked_language_then_the_browser_s_then_english():
    assert chosen_language(requested="es-AR", accept_language="it") == "es"
    assert chosen_language(requested="xx", accept_language="it-CH") == "it"
    assert chosen_language(requested=None, accept_language="nl") == "en"
