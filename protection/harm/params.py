"""Checking a rule's parameters (docs/player-protection.md "Markers of harm"): each rule
names its parameters and their bounds; a value out of them, of the wrong type, or a name
the rule does not take is refused with the parameter's name (``params.<name>``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gin_platform.money import AmountError, CurrencyError, normalize_currency, to_minor

# The largest amount a parameter names, in minor units: the ledger's bound (MAX_AMOUNT).
MAX_MINOR = 10**15


class ParamsInvalid(ValueError):
    """A parameter does not fit its rule; ``field`` names it (``params.hours``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def params_merged(
    *, defaults: Mapping[str, Any], current: Mapping[str, Any], given: Mapping[str, Any]
) -> dict[str, Any]:
    """``current`` (missing names at their defaults) with ``given`` on top; a name the rule
    does not take is refused."""
    for name in given:
        if name not in defaults:
            raise ParamsInvalid(
                f"params.{name}",
                f"the rule takes no parameter {name!r}; it takes {', '.join(sorted(defaults))}",
            )
    return {**defaults, **{k: v for k, v in current.items() if k in defaults}, **given}


def whole_number(values: Mapping[str, Any], name: str, *, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` (a JSON number without a fraction)."""
    value = values[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamsInvalid(f"params.{name}", f"{name} is a whole number")
    if not low <= value <= high:
        raise ParamsInvalid(f"params.{name}", f"{name} is from {low} to {high}")
    return value


def units(value: Any, field: str, *, currency: str) -> int:
    """A non-negative decimal string in ``currency`` (at most its decimals, at most
    ``MAX_MINOR`` minor units) -> minor units."""
    if not isinstance(value, str):
        raise ParamsInvalid(field, f'{field} is a decimal string such as "100.00"')
    try:
        minor = to_minor(value, currency)
    except AmountError as exc:
        raise ParamsInvalid(field, f"{field}: {exc}") from None
    if minor > MAX_MINOR:
        raise ParamsInvalid(field, f"{field} is larger than any amount a player deposits")
    return minor


def amounts_by_currency(values: Mapping[str, Any], name: str) -> dict[str, str]:
    """An object of currency code -> decimal string in that currency (each checked)."""
    value = values[name]
    if not isinstance(value, Mapping):
        raise ParamsInvalid(f"params.{name}", f'{name} maps currency codes to amounts ("EUR")')
    checked = {}
    for code, amount in value.items():
        try:
            normalized = normalize_currency(code)
        except CurrencyError as exc:
            raise ParamsInvalid(f"params.{name}.{code}", str(exc)) from None
        units(amount, f"params.{name}.{code}", currency=normalized)
        checked[normalized] = amount
    return dict(sorted(checked.items()))
