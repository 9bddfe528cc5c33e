"""Parsing API amounts into integer minor units, as problems rather than ValueErrors."""

from __future__ import annotations

from decimal import Decimal

from gin_platform.money import AmountError, CurrencyError, exponent, normalize_currency, to_minor
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


def parse_amount(
    amount: object, currency: str, *, field: str = "amount", allow_zero: bool = False
) -> int:
    """A decimal string such as "12.50" in ``currency`` as minor units (never rounded).

    Too many decimals is ``amount-too-precise``, zero or negative ``amount-not-positive``
    (zero is allowed for limits), anything that is not a decimal string ``amount-invalid``.
    """
    if not isinstance(amount, str | int | Decimal) or isinstance(amount, bool):
        raise AmountInvalidProblem(f"{field} must be a decimal string such as '12.50'", field=field)
    try:
        minor = to_minor(amount, currency)
    except AmountError as exc:
        digits = exponent(currency)
        if "decimal place" in str(exc):
            raise AmountTooPreciseProblem(
                str(exc), field=field, currency=currency, exponent=digits
            ) from exc
        raise AmountInvalidProblem(str(exc), field=field) from exc
    if minor < 0 or (minor == 0 and not allow_zero):
        raise AmountNotPositiveProblem(
            f"{field} must be {'zero or more' if allow_zero else 'greater than zero'}",
            field=field,
        )
    return minor
