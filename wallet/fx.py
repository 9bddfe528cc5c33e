"""Currency conversion arithmetic (pure; no database). Money rules: docs/wallet.md.

A rate says that 1 unit of ``base`` is worth ``rate`` units of ``quote`` (major units). An
amount of ``m`` minor units of base is ``m * rate * 10**(e_quote - e_base)`` minor units of
quote, computed exactly with ``Decimal`` (60 significant digits, far more than a 19-digit
amount times a 24-digit rate) and then rounded to an integer with the operation's explicit
rounding mode:

- ``PLAYER_PAYS`` (ROUND_CEILING): a buy-in in another currency debits the wallet the amount
  rounded up, so the house FX account is never short of the escrow amount it funds;
- ``HOUSE_PAYS`` (ROUND_FLOOR): a payout converted into the wallet currency is rounded down,
  so the house never pays out more than the escrow amount it receives;
- ``DISPLAY`` (ROUND_HALF_EVEN): amounts only shown in the display currency (no money moves).

The fraction of a minor unit that rounding leaves stays in the house FX account of that
currency, where reconciliation and the daily reports see it.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, localcontext

from gin_platform.money import exponent

PLAYER_PAYS = ROUND_CEILING
HOUSE_PAYS = ROUND_FLOOR
DISPLAY = ROUND_HALF_EVEN
RECIPROCAL_DIGITS = 28


def convert_minor(amount: int, *, base: str, quote: str, rate: Decimal, rounding: str) -> int:
    """``amount`` minor units of ``base`` in minor units of ``quote``, rounded as told."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError("amounts are integers in minor units")
    if rate <= 0:
        raise ValueError("an exchange rate is positive")
    with localcontext() as ctx:
        ctx.prec = 60
        scaled = Decimal(amount) * rate * Decimal(10) ** (exponent(quote) - exponent(base))
        return int(scaled.to_integral_value(rounding=rounding))


def reciprocal(rate: Decimal) -> Decimal:
    """1 / rate at 28 significant digits (ROUND_HALF_EVEN), for the inverse of a stored pair."""
    with localcontext() as ctx:
        ctx.prec = RECIPROCAL_DIGITS
        ctx.rounding = ROUND_HALF_EVEN
        return Decimal(1) / rate


def rate_string(rate: Decimal) -> str:
    """A rate as a plain decimal string without exponent or trailing zeros ("1.072")."""
    text = format(rate.normalize(), "f")
    return text
