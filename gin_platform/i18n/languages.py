"""Which shipped language a player gets (docs/play.md "Languages").

A BCP 47 tag (``es-ES``, ``pt-BR``, ``it``) is matched to the best shipped language: the tag
itself, else its primary language (``es-ES`` -> ``es``); a tag the platform does not ship
matches nothing, and the caller tries its next source (the player's stored preference, then
``Accept-Language``, then English). The pseudo-locale (``en-XA``) is a language only where
``PSEUDO_LOCALE`` allows it (development and tests)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation.trans_real import parse_accept_lang_header

if TYPE_CHECKING:
    from gin_platform.models import Player, PlayerSession

SOURCE_LANGUAGE = "en"
MAX_LANGUAGE_TAG_LENGTH = 35
# Android's convention for the accented, longer English (gin_platform/i18n/pseudo.py).
PSEUDO_LANGUAGE = "en-XA"

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


def available_languages() -> list[str]:
    """The shipped languages' codes, with the pseudo-locale where it is allowed."""
    codes = [code for code, _name in settings.LANGUAGES]
    if settings.PSEUDO_LOCALE:
        codes.append(PSEUDO_LANGUAGE)
    return codes


def language_names() -> list[tuple[str, str]]:
    """Each shipped language in its own name, for a language menu (no pseudo-locale)."""
    return [(code, str(name)) for code, name in settings.LANGUAGES]


def matched_language(tag: str | None) -> str | None:
    """The shipped language for a BCP 47 tag, or None when none fits."""
    if not tag:
        return None
    wanted = tag.strip().replace("_", "-").lower()
    by_lower = {code.lower(): code for code in available_languages()}
    if wanted in by_lower:
        return by_lower[wanted]
    primary = wanted.split("-", 1)[0]
    return by_lower.get(primary)


def accepted_language(header: str | None) -> str | None:
    """The best shipped language of an ``Accept-Language`` header, in the header's order of
    preference, or None."""
    for tag, _quality in parse_accept_lang_header(header or ""):
        if tag == "*":
            continue
        if (code := matched_language(tag)) is not None:
            return code
    return None


def chosen_language(*, requested: str | None, accept_language: str | None) -> str:
    """The page's language: the asked one (``?lang=``), else the browser's, else English."""
    return matched_language(requested) or accepted_language(accept_language) or SOURCE_LANGUAGE


def is_language_tag(tag: str) -> bool:
    """Whether ``tag`` is a well-formed BCP 47 language tag (``es``, ``es-AR``, ``it-IT``)."""
    return len(tag) <= MAX_LANGUAGE_TAG_LENGTH and _LANGUAGE_TAG.fullmatch(tag) is not None


def request_language(
    *,
    session: PlayerSession | None = None,
    player: Player | None = None,
    accept_language: str | None = None,
) -> str:
    """The language an API request is answered in (docs/api-errors.md "Languages"). A
    player's (``session`` and ``player`` given): the language the session was launched in
    (``lang`` on the game launch), else the player's stored locale, else Accept-Language,
    else English. Anybody else's (an operator's key, the back office): Accept-Language,
    else English. A source naming no shipped language falls through to the next."""
    return (
        (matched_language(session.lang) if session is not None else None)
        or (matched_language(player.locale) if player is not None else None)
        or accepted_language(accept_language)
        or SOURCE_LANGUAGE
    )
