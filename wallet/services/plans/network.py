"""The legs of network play between operators' books (docs/network.md "Money between
operators"): money never crosses from one operator's books to another's directly, only
through their network position accounts, so every posting sums to zero per currency
overall AND within each operator's books.

Sign of a position: what the operator's books have put into the network's books (the
money's way out of books X into books Y: X's position +amount, Y's position -amount).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wallet.ledger.keys import AccountKey, AccountKind, house_key
from wallet.ledger.lines import Line

BPS = 10_000


def position_key(*, operator_id: Any, currency: str, shard: int) -> AccountKey:
    """An operator's (or the network's) network position account in ``currency``."""
    return house_key(
        operator_id=operator_id, kind=AccountKind.NETWORK_POSITION, currency=currency, shard=shard
    )


def crossing_lines(
    *, out_of: AccountKey, into: AccountKey, amount: int, component: str, player_id: Any = None
) -> list[Line[AccountKey]]:
    """``amount`` crossing from the books of position ``out_of`` into the books of position
    ``into``: ``out_of`` +amount (its books have put it into the network's), ``into``
    -amount. With the money's own lines on each side, both books balance."""
    return [
        Line(out_of, amount, component, player_id),
        Line(into, -amount, component, player_id),
    ]


# --- The fee split -----------------------------------------------------------------------------
@dataclass(frozen=True)
class FeeSplit:
    """A network game's fee: what each operator earns and what the network keeps."""

    fee: int
    fee_share_bps: int
    contributions: dict[Any, int]  # operator id -> its players' stakes in the pot
    operators: dict[Any, int]  # operator id -> its fee share
    network: int  # the network's part, with every rounding remainder

    def metadata(self) -> dict[str, Any]:
        """The split as the settlement's ``metadata["network"]`` records it."""
        return {
            "fee": self.fee,
            "fee_share_bps": self.fee_share_bps,
            "network_fee": self.network,
            "operators": [
                {
                    "operator_id": str(operator_id),
                    "contribution": self.contributions[operator_id],
                    "fee_share": self.operators[operator_id],
                }
                for operator_id in sorted(self.contributions, key=str)
            ],
        }


def network_fee_split(
    *, fee: int, contributions: Mapping[Any, int], fee_share_bps: int
) -> FeeSplit:
    """Split ``fee`` (minor units): operator X earns
    ``floor(fee * c_X * (10000 - fee_share_bps) / (pot * 10000))`` where ``c_X`` is what its
    players put into the pot and ``pot`` the sum of all contributions; the network keeps the
    rest (its ``fee_share_bps`` and every rounding remainder), so the parts add up to the fee
    exactly and no operator ever gets more than its exact share."""
    if fee < 0 or not 0 <= fee_share_bps <= BPS:
        raise ValueError(f"a fee of {fee} at a network share of {fee_share_bps} bps")
    clean = {op: amount for op, amount in contributions.items() if amount > 0}
    pot = sum(clean.values())
    shares = (
        {op: fee * amount * (BPS - fee_share_bps) // (pot * BPS) for op, amount in clean.items()}
        if pot
        else {}
    )
    return FeeSplit(
        fee=fee,
        fee_share_bps=fee_share_bps,
        contributions=clean,
        operators=shares,
        network=fee - sum(shares.values()),
    )


# --- Net settlement ------------------------------------------------------------------------
@dataclass(frozen=True)
class NetSettlementAccounts:
    """The four accounts of a net settlement, all on the first shard: every net settlement
    of an operator and currency then locks the same position row, so two of them queue and
    the second re-checks what is outstanding after the first committed."""

    member_position: AccountKey
    member_outside: AccountKey
    network_position: AccountKey
    network_outside: AccountKey

    @property
    def keys(self) -> tuple[AccountKey, ...]:
        return (
            self.member_position,
            self.member_outside,
            self.network_position,
            self.network_outside,
        )


def net_settlement_accounts(
    *, operator_id: Any, network_id: Any, currency: str
) -> NetSettlementAccounts:
    """The positions and outside-world accounts of the member operator and the network."""
    shard = 0
    return NetSettlementAccounts(
        member_position=position_key(operator_id=operator_id, currency=currency, shard=shard),
        member_outside=house_key(
            operator_id=operator_id, kind=AccountKind.OUTSIDE, currency=currency, shard=shard
        ),
        network_position=position_key(operator_id=network_id, currency=currency, shard=shard),
        network_outside=house_key(
            operator_id=network_id, kind=AccountKind.OUTSIDE, currency=currency, shard=shard
        ),
    )


def net_settlement_lines(*, accounts: NetSettlementAccounts, amount: int) -> list[Line[AccountKey]]:
    """The payment that settles ``amount`` of the member's position (signed like the
    position: positive, the operator paid the network): the member's position moves by
    ``-amount`` against its outside account, the network's by ``+amount`` against its own."""
    return [
        Line(accounts.member_position, -amount, "net_settlement"),
        Line(accounts.member_outside, amount, "net_settlement"),
        Line(accounts.network_position, amount, "net_settlement"),
        Line(accounts.network_outside, -amount, "net_settlement"),
    ]
