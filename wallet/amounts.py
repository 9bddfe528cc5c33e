"""Parsing API amounts into integer minor units, as problems rather than ValueErrors.

Every money field of the API (wallet, games, caps, limits) goes through ``parse_money`` or
``parse_amount``, so one rule holds everywhere (``gin_platform.money.AMOUNT_PATTERN``,
docs/wallet.md "Amounts in the API"): a JSON string of ASCII digits with an optional '.'
and at most the currency's decimals. Anything else - a JSON number (integer or float),
``"1e3"``, ``" 12.50"``, digits of another script (full-width, Arabic-Indic) - is
``amount-invalid``; too many decimals ``amount-too-precise``. Each names its ``field``.
"""

from __future__ import annotations

from gin_platform.money import (
    AmountError,
    AmountTooPreciseError,
    CurrencyError,
    amount_from_api,
    exponent,
    normalize_currency,
)
from wallet.problems import (
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    AmountTooPreciseProblem,
    UnknownCurrencyProblem,
)


def parse_currency(code: object, *, field: str = "currency") -> str:
    try:
        return normalize_currency(code)
    except CurrencyError as exc:
        raise UnknownCurrencyProblem(str(exc), field=field) from exc


def parse_money(amount: object, currency: str, *, field: str = "amount") -> int:
    """The raw JSON value of a money field in ``currency`` as signed minor units (never
    rounded). The field's own range (positive, within bounds) is for the caller to judge."""
    try:
        return amount_from_api(amount, currency)
    except AmountTooPreciseError as exc:
        raise AmountTooPreciseProblem(
            str(exc), field=field, currency=currency, exponent=exponent(currency)
        ) from exc
    except AmountError as exc:
        raise AmountInvalidProblem(str(exc), field=field) from exc


def parse_amount(
    amount: object, currency: str, *, field: str = "amount", allow_zero: bool = False
) -> int:
    """A decimal string such as "12.50" in ``currency`` as minor units (never rounded).

    Too many decimals is ``amount-too-precise``, zero or negative ``amount-not-positive``
    (zero is allowed for limits), anything that is not a decimal string ``amount-invalid``.
    """
    minor = parse_money(amount, currency, field=field)
    if minor < 0 or (minor == 0 and not allow_zero):
        raise AmountNotPositiveProblem(
            f"{field} must be {'zero or more' if allow_zero else 'greater than zero'}",
            field=field,
        )
    return minor
