"""Which shipped language a player gets (docs/play.md "Languages").

A BCP 47 tag (``es-ES``, ``pt-BR``, ``it``) is matched to the best shipped language: the tag
itself, else its primary language (``es-ES`` -> ``es``); a tag the platform does not ship
matches nothing, and the caller tries its next source (the player's stored preference, then
``Accept-Language``, then English). The pseudo-locale (``en-XA``) is a language only where
``PSEUDO_LOCALE`` allows it (development and tests)."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation.trans_real import parse_accept_lang_header

SOURCE_LANGUAGE = "en"
# Android's convention for the accented, longer English (gin_platform/i18n/pseudo.py).
PSEUDO_LANGUAGE = "en-XA"


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
