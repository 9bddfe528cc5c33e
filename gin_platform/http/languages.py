"""The language a request is answered in (docs/api-errors.md "Languages").

A player's request speaks, in order: the language its session was launched in (``lang`` on
the game launch, stored with the session), the player's stored ``locale``, the browser's
Accept-Language, English. Any other request (an operator's API key, the back office) speaks
Accept-Language, else English. Only the shipped languages (``settings.LANGUAGES``) count:
a tag of any other language falls through to the next source.

``LanguageMiddleware`` activates the Accept-Language part for every request and says the
answer's language (``Content-Language``) on the API's paths; the player token's
authentication activates the player's (gin_platform/http/authentication.py); the player's
sockets override it for each message they handle (games/realtime/).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

from babel.dates import format_datetime
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation.trans_real import parse_accept_lang_header

from gin_platform.models import Player, PlayerSession
from gin_platform.money import to_decimal_string

DEFAULT_LANGUAGE = "en"
MAX_LANGUAGE_TAG_LENGTH = 35

# RFC 5646's langtag (language, extlang, script, region, variants, extensions, a private
# use part) or a private-use tag alone; case-insensitive.
_LANGUAGE_TAG = re.compile(
    r"""
    (?:
      (?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})   # language and extlangs
      (?:-[a-z]{4})?                               # script
      (?:-(?:[a-z]{2}|[0-9]{3}))?                  # region
      (?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*     # variants
      (?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*          # extensions
      (?:-x(?:-[a-z0-9]{1,8})+)?                   # private use
    |
      x(?:-[a-z0-9]{1,8})+
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)


def shipped_languages() -> tuple[str, ...]:
    return tuple(code for code, _name in settings.LANGUAGES)


def is_language_tag(tag: str) -> bool:
    """Whether ``tag`` is a well-formed BCP 47 language tag (``es``, ``es-AR``, ``it-IT``)."""
    return len(tag) <= MAX_LANGUAGE_TAG_LENGTH and _LANGUAGE_TAG.fullmatch(tag) is not None


def shipped_language(tag: str | None) -> str | None:
    """The shipped language that best serves ``tag``: the one it names exactly, else the one
    of its primary language (``es-AR`` -> ``es``); None for a language not shipped or a tag
    that is not well formed. A stored locale in POSIX form (``it_IT``) is read as ``it-IT``."""
    if not tag:
        return None
    tag = tag.strip().replace("_", "-")
    if not is_language_tag(tag):
        return None
    shipped = shipped_languages()
    lowered = tag.lower()
    if lowered in shipped:
        return lowered
    primary = lowered.split("-", 1)[0]
    return primary if primary in shipped else None


def accepted_language(accept_language: str | None) -> str | None:
    """The first shipped language of an Accept-Language header, by its q-values."""
    for tag, _quality in parse_accept_lang_header(accept_language or ""):
        language = shipped_language(tag) if tag != "*" else None
        if language is not None:
            return language
    return None


def request_language(
    *,
    session: PlayerSession | None = None,
    player: Player | None = None,
    accept_language: str | None = None,
) -> str:
    """The language to answer in: a player's (``session`` and ``player`` given) is the
    session's launch language, else the player's stored locale, else Accept-Language, else
    English; anybody else's is Accept-Language, else English."""
    for language in (
        shipped_language(session.lang) if session is not None else None,
        shipped_language(player.locale) if player is not None else None,
        accepted_language(accept_language),
    ):
        if language is not None:
            return language
    return DEFAULT_LANGUAGE


class LanguageMiddleware:
    """Activates the request's Accept-Language (the player's authentication may then
    activate the player's own) and names the language of every API answer."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        translation.activate(
            request_language(accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE"))
        )
        response = self.get_response(request)
        if request.path_info.startswith(("/api/", "/problems/")):
            response.headers.setdefault("Content-Language", translation.get_language())
            patch_vary_headers(response, ("Accept-Language",))
        return response


def _babel_locale() -> str:
    return translation.to_locale(translation.get_language() or DEFAULT_LANGUAGE)


def number_text(value: int | Decimal | str) -> str:
    """``value`` written for the active language (CLDR digits and grouping, through babel)."""
    return format_decimal(value, locale=_babel_locale())


def money_text(minor: int, currency: str) -> str:
    """``minor`` units of ``currency`` written for the active language: 1250 EUR is
    "€12.50" in English, "12,50 €" in Spanish and Italian."""
    return format_currency(
        Decimal(to_decimal_string(minor, currency)), currency, locale=_babel_locale()
    )


def moment_text(moment: datetime) -> str:
    """A date and time (UTC) written for the active language."""
    return format_datetime(moment, "medium", tzinfo=UTC, locale=_babel_locale())


def choices_text(items: list[str]) -> str:
    """ "7, 30 or 42" written for the active language (CLDR's list patterns)."""
    return format_list(items, style="or", locale=_babel_locale())
