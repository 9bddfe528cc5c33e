"""Numbers, amounts, moments and lists in a player's sentence, written for the active
language (CLDR through babel): "12,50 €" in Spanish, "€12.50" in English."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from babel.dates import format_datetime
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal
from django.utils import translation

from gin_platform.i18n.languages import SOURCE_LANGUAGE
from gin_platform.money import to_decimal_string


def _babel_locale() -> str:
    return translation.to_locale(translation.get_language() or SOURCE_LANGUAGE)


def number_text(value: int | Decimal) -> str:
    """``value`` written for the active language (CLDR digits and grouping)."""
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
