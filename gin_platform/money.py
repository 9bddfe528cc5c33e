"""Currencies and exact amounts, shared by every app (docs/wallet.md "Amounts in the API").

Amounts live as integers in the currency's minor unit; the API speaks decimal strings plus
an ISO 4217 code. Which codes exist and their exponents come from babel's CLDR tables (the
currencies that are legal tender somewhere today), not from a hand-written dict. The one
addition is the practice-chip code, which is deliberately outside ISO 4217 (R11: practice
tables play for play money that never converts into real money).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from babel.core import get_global
from babel.numbers import get_currency_precision, get_territory_currencies

PRACTICE_CURRENCY = "XGC"  # "Gin chips": not an ISO 4217 code, so it can never be confused.
PRACTICE_EXPONENT = 0

_CODE_SHAPE = re.compile(r"^[A-Z]{3}$")
# THE rule for every amount the API takes (docs/wallet.md "Amounts in the API"): a JSON
# string of ASCII digits, optionally a '.' and more ASCII digits, with at most as many
# decimals as the currency's minor unit. A leading '-' is read so that a negative amount is
# refused by the field's range rule (e.g. amount-not-positive) rather than as malformed.
# [0-9], never \d: \d matches every script's digits (full-width U+FF10-FF19, Arabic-Indic
# U+0660-0669, ...), and Decimal() would happily read them. No spaces, signs, exponents
# ("1e3"), NaN or Infinity.
AMOUNT_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"
_DECIMAL_SHAPE = re.compile(AMOUNT_PATTERN, re.ASCII)


class CurrencyError(ValueError):
    """An unknown or malformed currency code."""


class AmountError(ValueError):
    """A malformed amount, or one with more decimals than the currency has."""


class AmountTooPreciseError(AmountError):
    """More decimals than the currency's minor unit has (never rounded)."""


@lru_cache(maxsize=1)
def iso_currencies() -> frozenset[str]:
    """ISO 4217 codes that are legal tender in some territory today (CLDR via babel)."""
    today = datetime.date.today()
    codes: set[str] = set()
    for territory in get_global("territory_currencies"):
        codes.update(get_territory_currencies(territory, today, tender=True))
    return frozenset(codes)


def is_real_currency(code: str) -> bool:
    return code in iso_currencies()


def is_known_currency(code: str) -> bool:
    return code == PRACTICE_CURRENCY or is_real_currency(code)


def normalize_currency(code: object) -> str:
    """Upper-case and check a currency code; raise CurrencyError naming it otherwise."""
    if not isinstance(code, str) or not _CODE_SHAPE.match(code.strip().upper()):
        raise CurrencyError(f"{code!r} is not a three-letter currency code")
    normalized = code.strip().upper()
    if not is_known_currency(normalized):
        raise CurrencyError(f"{normalized} is not a currency in circulation (ISO 4217)")
    return normalized


def exponent(code: str) -> int:
    """Digits after the decimal point in the currency's minor unit (EUR 2, JPY 0, KWD 3)."""
    code = normalize_currency(code)
    if code == PRACTICE_CURRENCY:
        return PRACTICE_EXPONENT
    return get_currency_precision(code)


def is_decimal_string(text: object) -> bool:
    """True if ``text`` is a str of the API's amount shape (ASCII digits, optional '.')."""
    return isinstance(text, str) and _DECIMAL_SHAPE.fullmatch(text) is not None


def amount_from_api(value: object, code: str) -> int:
    """An amount as a client sent it (the raw JSON value) -> signed minor units, by THE rule
    (``AMOUNT_PATTERN``): only a JSON string qualifies; a JSON number, integer or float, is
    refused like any other malformed amount. Raises ``AmountError``
    (``AmountTooPreciseError`` for too many decimals)."""
    if not isinstance(value, str):
        raise AmountError(
            f'{value!r} is not an amount: send a JSON string such as "12.50" '
            "(ASCII digits, at most the currency's decimals), never a JSON number"
        )
    return to_minor(value, code)


def to_minor(amount: str | Decimal | int, code: str) -> int:
    """Parse a decimal amount into integer minor units, refusing anything inexact.

    ``"12.50" EUR -> 1250``; ``"12.505" EUR`` raises (too many decimals: we never round a
    caller's amount); floats are refused outright. A string must have the API's shape
    (``AMOUNT_PATTERN``: ASCII digits only, no spaces); API input goes through
    ``amount_from_api``, which also refuses non-strings.
    """
    if isinstance(amount, float | bool):
        raise AmountError("amounts are decimal strings, never floats")
    if isinstance(amount, str):
        if not is_decimal_string(amount):
            raise AmountError(f"{amount!r} is not a decimal amount like '12.50'")
        try:
            value = Decimal(amount)
        except InvalidOperation as exc:  # pragma: no cover - the regex already guards
            raise AmountError(f"{amount!r} is not a decimal amount") from exc
    else:
        value = Decimal(amount)
    digits = exponent(code)
    scaled = value.scaleb(digits)
    if scaled != scaled.to_integral_value():
        raise AmountTooPreciseError(
            f"{amount} has more than {digits} decimal place{'s' if digits != 1 else ''} for {code}"
        )
    return int(scaled)


def to_decimal_string(minor: int, code: str) -> str:
    """Integer minor units back to the API's decimal string: ``1250 EUR -> "12.50"``."""
    digits = exponent(code)
    if digits == 0:
        return str(minor)
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}"


def money_dict(minor: int, code: str) -> dict[str, str]:
    """The API shape of an amount."""
    return {"amount": to_decimal_string(minor, code), "currency": code}
