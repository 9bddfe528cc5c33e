"""Reads of exchange rates (R11): the rate a posting moves money at (``latest_rate``), the
recorded rates (back office), and amounts shown in the player's display currency
(``display_amount``, display only: nothing moves at these rates).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from wallet import fx
from wallet.amounts import parse_currency
from wallet.models import ExchangeRate


@dataclass(frozen=True)
class RateQuote:
    """The rate used to turn ``base`` into ``quote`` (1 base = rate quote), and its origin."""

    base: str
    quote: str
    rate: Decimal
    as_of: datetime
    source: str
    rate_id: int
    inverted: bool  # only quote/base was recorded: the reciprocal is used

    def snapshot(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "quote": self.quote,
            "rate": fx.rate_string(self.rate),
            "as_of": self.as_of.isoformat(),
            "source": self.source,
            "rate_id": self.rate_id,
            "inverted": self.inverted,
        }


def latest_rate(*, base: str, quote: str, at: datetime | None = None) -> RateQuote | None:
    """The most recent rate for base->quote with as_of <= at (default now).

    A recorded base/quote pair is used as is; when only quote/base is recorded its
    reciprocal is used. Between the two the later ``as_of`` wins (the direct pair on a
    tie); among rows with the same ``as_of`` the one recorded last.
    """
    if base == quote:
        raise ValueError("a rate needs two different currencies")
    moment = at or timezone.now()
    candidates = ExchangeRate.objects.filter(
        Q(base=base, quote=quote) | Q(base=quote, quote=base), as_of__lte=moment
    )
    direct = candidates.filter(base=base).order_by("-as_of", "-pk").first()
    inverse = candidates.filter(base=quote).order_by("-as_of", "-pk").first()
    chosen = direct
    if inverse is not None and (direct is None or inverse.as_of > direct.as_of):
        chosen = inverse
    if chosen is None:
        return None
    inverted = chosen is inverse and chosen is not direct
    return RateQuote(
        base=base,
        quote=quote,
        rate=fx.reciprocal(chosen.rate) if inverted else chosen.rate,
        as_of=chosen.as_of,
        source=chosen.source,
        rate_id=chosen.pk,
        inverted=inverted,
    )


def exchange_rate_list(*, base: str | None = None, quote: str | None = None) -> QuerySet:
    rates = ExchangeRate.objects.all()
    if base:
        rates = rates.filter(base=base)
    if quote:
        rates = rates.filter(quote=quote)
    return rates


# (base, quote) -> the latest rate, while ``display_rates_reused`` is active.
_display_rates: ContextVar[dict[tuple[str, str], RateQuote | None] | None] = ContextVar(
    "display_rates", default=None
)


@contextmanager
def display_rates_reused() -> Iterator[None]:
    """Within the block, ``display_amount`` reads each currency pair's latest rate once: a
    request or a push renders the same few amounts many times (display only, nothing
    moves). Nested blocks share the outer one's rates."""
    if _display_rates.get() is not None:
        yield
        return
    token = _display_rates.set({})
    try:
        yield
    finally:
        _display_rates.reset(token)


# The latest rate of each pair shown in amounts, kept in this process for DISPLAY_RATE_SECONDS:
# every push of a game in another currency than the player's display currency showed an
# amount, and read the rate (two statements) each time, a twelfth of a web process's time
# under the push benchmark. Display only (R11): nothing that moves money reads it (a posting
# quotes its own rate, wallet.services), so a new rate shows in every process within that
# time, and at once in the process that recorded it (``display_rates_forget``).
DISPLAY_RATE_SECONDS = 2.0
_recent_display_rates: dict[tuple[str, str], tuple[float, RateQuote | None]] = {}


def display_rates_forget() -> None:
    """Drop this process's display rates (a rate was recorded; and between tests)."""
    _recent_display_rates.clear()


def _display_rate(*, base: str, quote: str) -> RateQuote | None:
    memo = _display_rates.get()
    if memo is not None and (base, quote) in memo:
        return memo[base, quote]
    now = time.monotonic()
    recent = _recent_display_rates.get((base, quote))
    if recent is not None and recent[0] > now:
        rate = recent[1]
    else:
        rate = latest_rate(base=base, quote=quote)
        _recent_display_rates[base, quote] = (now + DISPLAY_RATE_SECONDS, rate)
    if memo is not None:  # one answer shows one rate per pair, however old the memo
        memo[base, quote] = rate
    return rate


def display_amount(*, amount: int, currency: str, player: Player) -> dict[str, Any]:
    """An amount, and the same amount in the player's display currency (R11).

    ``display`` is the amount converted at the latest rate (ROUND_HALF_EVEN, shown only,
    nothing moves), with the rate and its ``as_of``; the same currency gives rate "1" and
    ``as_of`` null. It is null for practice chips (never converted) and when no rate exists.
    """
    code = parse_currency(currency)
    body: dict[str, Any] = money_dict(amount, code)
    target = player.display_currency
    if code == PRACTICE_CURRENCY:
        body["display"] = None
    elif target == code:
        body["display"] = money_dict(amount, code) | {"rate": "1", "as_of": None}
    else:
        quote = _display_rate(base=code, quote=target)
        if quote is None:
            body["display"] = None
        else:
            shown = fx.convert_minor(
                amount, base=code, quote=target, rate=quote.rate, rounding=fx.DISPLAY
            )
            body["display"] = money_dict(shown, target) | {
                "rate": fx.rate_string(quote.rate),
                "as_of": quote.as_of.isoformat(),
            }
    return body
