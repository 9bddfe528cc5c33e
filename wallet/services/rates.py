"""Exchange rates: recording and loading them, and the rate money moves at (R11 in
docs/rules.md; docs/wallet.md "Currencies and rates").

A published rate is never edited: the same (pair, as_of, source) again with the same rate
changes nothing, with another rate it is ``exchange-rate-conflict``. Money moves only at the
latest rate no older than ``fx_max_age()`` (``rate_quote``); display uses the latest rate
whatever its age (``wallet.selectors.rates.display_amount``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.http.problems import Problem
from gin_platform.money import PRACTICE_CURRENCY, is_decimal_string
from gin_platform.tenancy.principals import Actor
from wallet import fx
from wallet.amounts import parse_currency
from wallet.models import RATE_DECIMAL_PLACES, RATE_MAX_DIGITS, ExchangeRate
from wallet.problems import (
    ExchangeRateConflictProblem,
    ExchangeRateInvalidProblem,
    FxRateStaleProblem,
    FxRateUnavailableProblem,
    PracticeChipsNotConvertibleProblem,
)
from wallet.selectors import rates as selectors

RATE_FUTURE_TOLERANCE = timedelta(minutes=5)


def fx_max_age() -> timedelta:
    """The oldest rate money may move at (default 7 days; WALLET_FX_MAX_AGE_SECONDS)."""
    return timedelta(seconds=int(settings.WALLET_FX_MAX_AGE_SECONDS))


def rate_quote(*, base: str, quote: str, at: datetime) -> selectors.RateQuote:
    """The rate a posting at ``at`` converts ``base`` into ``quote`` at: the latest one, no
    older than ``fx_max_age()``. Practice chips never convert."""
    if PRACTICE_CURRENCY in (base, quote):
        raise PracticeChipsNotConvertibleProblem(
            f"no conversion between {base} and {quote}: practice chips are play money"
        )
    found = selectors.latest_rate(base=base, quote=quote, at=at)
    if found is None:
        raise FxRateUnavailableProblem(
            f"no exchange rate between {base} and {quote}", base=base, quote=quote
        )
    if at - found.as_of > fx_max_age():
        raise FxRateStaleProblem(
            f"the latest {base}/{quote} rate is from {found.as_of.isoformat()}",
            base=base,
            quote=quote,
            as_of=found.as_of.isoformat(),
            max_age_seconds=int(fx_max_age().total_seconds()),
        )
    return found


def _rate_currency(code: object, *, field: str) -> str:
    normalized = parse_currency(code, field=field)
    if normalized == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem(
            "practice chips have no exchange rate", field=field
        )
    return normalized


def _parse_rate(rate: object) -> Decimal:
    """A rate follows the amounts' rule (``gin_platform.money.AMOUNT_PATTERN``): a string of
    ASCII digits with an optional '.' (a JSON number, "1e3" or another script's digits is
    refused; Decimal() alone would read full-width digits), or a Decimal from our own code."""
    if isinstance(rate, str):
        if not is_decimal_string(rate):
            raise ExchangeRateInvalidProblem(
                f"{rate!r} is not a decimal rate: send a string of ASCII digits such as '1.0720'"
            )
    elif not isinstance(rate, Decimal):
        raise ExchangeRateInvalidProblem(
            "rate must be a decimal string such as '1.0720', never a JSON number"
        )
    try:
        value = Decimal(rate)
    except InvalidOperation as exc:  # pragma: no cover - the shape check already guards
        raise ExchangeRateInvalidProblem(f"{rate!r} is not a decimal rate") from exc
    if not value.is_finite() or value <= 0:
        raise ExchangeRateInvalidProblem("rate must be a positive decimal number")
    if value >= Decimal(10) ** (RATE_MAX_DIGITS - RATE_DECIMAL_PLACES):
        raise ExchangeRateInvalidProblem("rate is too large")
    stored = value.quantize(Decimal(1).scaleb(-RATE_DECIMAL_PLACES))
    if stored != value:
        raise ExchangeRateInvalidProblem(
            f"rate has more than {RATE_DECIMAL_PLACES} decimal places (it is never rounded)"
        )
    return stored


@transaction.atomic
def exchange_rate_record(
    *,
    base: object,
    quote: object,
    rate: object,
    as_of: datetime,
    source: str,
    actor: Actor,
) -> tuple[ExchangeRate, bool]:
    """Record that 1 ``base`` = ``rate`` ``quote`` as of ``as_of``; returns (row, created).
    The pair and the rate are checked here, whatever their type (a rates file's row passes
    them as read): currency codes, and a decimal string or a Decimal.

    Recording the same (pair, as_of, source) again with the same rate changes nothing; with
    another rate it is ``exchange-rate-conflict`` (a published rate is never edited)."""
    base_code = _rate_currency(base, field="base")
    quote_code = _rate_currency(quote, field="quote")
    if base_code == quote_code:
        raise ExchangeRateInvalidProblem("base and quote must be different currencies")
    value = _parse_rate(rate)
    if not isinstance(as_of, datetime) or as_of.tzinfo is None:
        raise ExchangeRateInvalidProblem("as_of must be a date-time with a time zone")
    if as_of > timezone.now() + RATE_FUTURE_TOLERANCE:
        raise ExchangeRateInvalidProblem("as_of is in the future")
    if not isinstance(source, str) or not source.strip() or len(source) > 100:
        raise ExchangeRateInvalidProblem("source must be a non-empty string (at most 100)")
    existing = ExchangeRate.objects.filter(
        base=base_code, quote=quote_code, as_of=as_of, source=source
    ).first()
    if existing is not None:
        if existing.rate != value:
            raise ExchangeRateConflictProblem(
                f"{source} already published 1 {base_code} = {fx.rate_string(existing.rate)} "
                f"{quote_code} as of {as_of.isoformat()}"
            )
        return existing, False
    row = ExchangeRate.objects.create(
        base=base_code, quote=quote_code, rate=value, as_of=as_of, source=source
    )
    # Amounts shown in this process use it at once (now, and again once it is visible to
    # the others); other processes within selectors.DISPLAY_RATE_SECONDS.
    selectors.display_rates_forget()
    transaction.on_commit(selectors.display_rates_forget)
    audit_record(
        actor=actor,
        action="exchange_rate.recorded",
        obj=row,
        operator=None,
        data={
            "base": base_code,
            "quote": quote_code,
            "rate": fx.rate_string(value),
            "as_of": as_of.isoformat(),
            "source": source,
        },
    )
    return row, True


@dataclass(frozen=True)
class ExchangeRateLoadResult:
    created: int
    unchanged: int


class RateRowError(Exception):
    """A row of a rates file was refused: which row, and the problem."""

    def __init__(self, row: int, problem: Exception) -> None:
        super().__init__(f"row {row}: {problem}")
        self.row = row
        self.problem = problem


@transaction.atomic
def exchange_rates_load(
    *, rows: Iterable[Mapping[str, Any]], default_source: str, actor: Actor
) -> ExchangeRateLoadResult:
    """Record many rates at once, all or nothing (``manage.py load_rates``)."""
    created = unchanged = 0
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            raise RateRowError(number, ExchangeRateInvalidProblem("a rate row is an object"))
        try:
            as_of = row.get("as_of")
            _, is_new = exchange_rate_record(
                base=row.get("base"),
                quote=row.get("quote"),
                rate=row.get("rate"),
                as_of=_parse_datetime(as_of),
                source=row.get("source") or default_source,
                actor=actor,
            )
        except Problem as exc:
            raise RateRowError(number, exc) from exc
        created += is_new
        unchanged += not is_new
    return ExchangeRateLoadResult(created=created, unchanged=unchanged)


def _parse_datetime(value: object) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ExchangeRateInvalidProblem("as_of is required (ISO 8601 with a time zone)")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ExchangeRateInvalidProblem(f"as_of {value!r} is not an ISO 8601 date-time") from exc
    if parsed.tzinfo is None:
        raise ExchangeRateInvalidProblem(f"as_of {value!r} has no time zone")
    return parsed
