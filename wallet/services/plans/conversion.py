"""The FX legs of a posting between a room's currency and a player's wallet currency
(docs/wallet.md "Currencies and rates"): the money goes through the house FX accounts of
both currencies (the player's operator's, the player's shard), converted at the posting's
rate and rounded as wallet/fx.py says, the rounding residue left in the house FX account.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from wallet import fx
from wallet.ledger.keys import AccountKey
from wallet.ledger.lines import Line


class Quote(Protocol):
    """The rate a posting converts at (``wallet.selectors.RateQuote``): 1 unit of the room's
    currency is worth ``rate`` units of the wallet's, and where that rate came from."""

    @property
    def rate(self) -> Decimal: ...

    def snapshot(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Conversion:
    """An amount converted: ``converted`` minor units of the other currency, the two FX
    ``lines`` and the rate ``snapshot`` the transaction keeps (``LedgerTransaction.fx``)."""

    converted: int
    lines: list[Line[AccountKey]]
    snapshot: dict[str, Any]


def stake_conversion(
    *,
    amount: int,
    room_currency: str,
    wallet_currency: str,
    quote: Quote,
    fx_room: AccountKey,
    fx_wallet: AccountKey,
    player_id: Any,
) -> Conversion:
    """A stake of ``amount`` in the room's currency paid from a wallet in another: the
    wallet pays the amount converted at ``quote`` rounded UP (``fx.PLAYER_PAYS``, so the
    house FX account is never short) into the house FX account of its currency, and the
    house FX account of the room's currency pays the stake."""
    paid = fx.convert_minor(
        amount, base=room_currency, quote=wallet_currency, rate=quote.rate, rounding=fx.PLAYER_PAYS
    )
    return _conversion(
        quote=quote,
        player_id=player_id,
        amount=amount,
        converted=paid,
        rounding=fx.PLAYER_PAYS,
        direction=f"{wallet_currency}->{room_currency}",
        lines=[
            Line(fx_wallet, paid, "fx", player_id),
            Line(fx_room, -amount, "fx", player_id),
        ],
    )


def payout_conversion(
    *,
    amount: int,
    room_currency: str,
    wallet_currency: str,
    quote: Quote,
    fx_room: AccountKey,
    fx_wallet: AccountKey,
    player_id: Any,
) -> Conversion:
    """A payout of ``amount`` in the room's currency credited to a wallet in another: the
    house FX account of the room's currency takes the amount, and the house FX account of
    the wallet's currency pays it converted at ``quote`` rounded DOWN (``fx.HOUSE_PAYS``,
    so the house never pays out more than it receives); the wallet's own credit is the
    caller's line."""
    credited = fx.convert_minor(
        amount, base=room_currency, quote=wallet_currency, rate=quote.rate, rounding=fx.HOUSE_PAYS
    )
    return _conversion(
        quote=quote,
        player_id=player_id,
        amount=amount,
        converted=credited,
        rounding=fx.HOUSE_PAYS,
        direction=f"{room_currency}->{wallet_currency}",
        lines=[
            Line(fx_room, amount, "fx", player_id),
            Line(fx_wallet, -credited, "fx", player_id),
        ],
    )


def _conversion(
    *,
    quote: Quote,
    player_id: Any,
    amount: int,
    converted: int,
    rounding: str,
    direction: str,
    lines: list[Line[AccountKey]],
) -> Conversion:
    """The conversion's lines and the snapshot its audit row keeps: the rate, the amounts
    on both sides and the rounding that favoured the house."""
    snapshot = quote.snapshot() | {
        "player": str(player_id),
        "amount": amount,
        "converted": converted,
        "rounding": rounding,
        "direction": direction,
    }
    return Conversion(converted=converted, lines=lines, snapshot=snapshot)
