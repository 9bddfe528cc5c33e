"""Currencies from babel and exact decimal-string amounts (docs/wallet.md "Amounts in the API")."""

from decimal import Decimal

import pytest

from gin_platform.money import (
    PRACTICE_CURRENCY,
    AmountError,
    CurrencyError,
    exponent,
    is_real_currency,
    normalize_currency,
    to_decimal_string,
    to_minor,
)


@pytest.mark.parametrize(("code", "digits"), [("EUR", 2), ("JPY", 0), ("KWD", 3), ("usd", 2)])
def test_exponents_come_from_the_iso_table(code, digits):
    assert exponent(code) == digits


def test_unknown_and_historic_currencies_are_refused():
    for code in ("ZZZ", "DEM", "XTS", "EURO", "", None, 12):
        with pytest.raises(CurrencyError):
            normalize_currency(code)


def test_practice_chips_are_known_but_not_real_money():
    assert normalize_currency(PRACTICE_CURRENCY) == PRACTICE_CURRENCY
    assert not is_real_currency(PRACTICE_CURRENCY)


@pytest.mark.parametrize(
    ("text", "code", "minor"),
    [
        ("12.50", "EUR", 1250),
        ("12.5", "EUR", 1250),
        ("0.01", "EUR", 1),
        ("100", "JPY", 100),
        ("1.234", "KWD", 1234),
        ("-3.00", "EUR", -300),
    ],
)
def test_decimal_strings_convert_exactly(text, code, minor):
    assert to_minor(text, code) == minor
    assert to_minor(to_decimal_string(minor, code), code) == minor


@pytest.mark.parametrize(
    ("value", "code"),
    [("12.505", "EUR"), ("1.5", "JPY"), ("1e3", "EUR"), ("abc", "EUR"), (1.5, "EUR"), (" ", "EUR")],
)
def test_inexact_or_malformed_amounts_are_refused(value, code):
    with pytest.raises(AmountError):
        to_minor(value, code)


def test_decimal_values_are_accepted_when_exact():
    assert to_minor(Decimal("0.10"), "EUR") == 10
    assert to_decimal_string(5, "EUR") == "0.05"
    assert to_decimal_string(-5, "EUR") == "-0.05"
    assert to_decimal_string(7, "JPY") == "7"
