"""Currencies and exact amounts, shared by every app (ARCHITECTURE §3).

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
_DECIMAL_SHAPE = re.compile(r"^-?\d+(\.\d+)?$")


class CurrencyError(ValueError):
    """An unknown or malformed currency code."""


class AmountError(ValueError):
    """A malformed amount, or one with more decimals than the currency has."""


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


def to_minor(amount: str | Decimal | int, code: str) -> int:
    """Parse a decimal amount into integer minor units, refusing anything inexact.

    ``"12.50" EUR -> 1250``; ``"12.505" EUR`` raises (too many decimals: we never round a
    caller's amount); floats are refused outright.
    """
    if isinstance(amount, float | bool):
        raise AmountError("amounts are decimal strings, never floats")
    if isinstance(amount, str):
        text = amount.strip()
        if not _DECIMAL_SHAPE.match(text):
            raise AmountError(f"{amount!r} is not a decimal amount like '12.50'")
        try:
            value = Decimal(text)
        except InvalidOperation as exc:  # pragma: no cover - the regex already guards
            raise AmountError(f"{amount!r} is not a decimal amount") from exc
    else:
        value = Decimal(amount)
    digits = exponent(code)
    scaled = value.scaleb(digits)
    if scaled != scaled.to_integral_value():
        raise AmountError(
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
