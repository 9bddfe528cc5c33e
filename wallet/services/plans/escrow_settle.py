"""The plan of a settlement (wallet/services/escrow_settle.py): the payout lines of a
finished game out of its escrow, each player's total into their wallet (converted through
the house FX accounts, rounded down, when the wallet is in another currency), and the fee
to the house. In a network game (the escrow is the network operator's) a payee of another
operator is paid across the network positions, and the fee is shared by contribution
(``network.network_fee_split``): each operator's share crosses into its own house fee.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from wallet.ledger.keys import AccountKey, AccountKind, escrow_key, house_key, player_key, shard_for
from wallet.ledger.lines import Line
from wallet.problems import EscrowOperatorMismatchProblem
from wallet.services.plans.conversion import Quote, payout_conversion
from wallet.services.plans.network import FeeSplit, crossing_lines, position_key


class PayoutLine(Protocol):
    """One payout line (``wallet.services.EscrowPayout``): minor units of the escrow's
    currency, and what they stand for."""

    @property
    def amount(self) -> int: ...

    @property
    def component(self) -> str: ...


@dataclass(frozen=True)
class Payee:
    """A player a settlement pays: whose books they are in and the currency of the wallet
    the payout lands in (the room's for practice chips, which never convert)."""

    player_id: Any
    operator_id: Any
    wallet_currency: str


@dataclass(frozen=True)
class SettlementPlan:
    """A settlement's accounts besides the escrow (``keys``, in the order it resolves
    them), the escrow's key, the lines, the rate snapshots of its conversions and what its
    transaction's metadata adds (the fee, and a network game's split)."""

    keys: tuple[AccountKey, ...]
    escrow: AccountKey
    lines: list[Line[AccountKey]]
    fx_snapshots: list[dict[str, Any]]
    metadata: dict[str, Any]


Slot = Any  # a settlement's name for one of its accounts: "fee", ("wallet", player id), ...


def fee_accounts(
    *, currency: str, escrow_operator_id: Any, shard: int, fee: int, split: FeeSplit | None
) -> dict[Slot, AccountKey]:
    """The accounts of a fee out of an escrow by name (``fee_lines``' names): the house fee
    of the escrow's operator, and for a network game's ``split`` the network's position and
    each sharing operator's position and house fee; all on the game's ``shard``."""
    keys: dict[Slot, AccountKey] = {}
    if fee:
        keys["fee"] = house_key(
            operator_id=escrow_operator_id,
            kind=AccountKind.HOUSE_FEE,
            currency=currency,
            shard=shard,
        )
    if split is not None:
        keys["network_position"] = position_key(
            operator_id=escrow_operator_id, currency=currency, shard=shard
        )
        for operator_id in sorted(split.operators, key=str):
            if split.operators[operator_id] and operator_id != escrow_operator_id:
                keys[("fee_share", operator_id)] = position_key(
                    operator_id=operator_id, currency=currency, shard=shard
                )
                keys[("fee", operator_id)] = house_key(
                    operator_id=operator_id,
                    kind=AccountKind.HOUSE_FEE,
                    currency=currency,
                    shard=shard,
                )
    return keys


def _settlement_accounts(
    *,
    currency: str,
    escrow_operator_id: Any,
    shard: int,
    payees: Mapping[Any, Payee],
    fee: int,
    split: FeeSplit | None,
    network: bool,
) -> dict[Slot, AccountKey]:
    """The accounts of a settlement by name: the fee's house shard follows the game, each
    payee's FX legs and position their own shard (on their own operator's books)."""
    keys = fee_accounts(
        currency=currency, escrow_operator_id=escrow_operator_id, shard=shard, fee=fee, split=split
    )
    network_position = position_key(operator_id=escrow_operator_id, currency=currency, shard=shard)
    for pk in sorted(payees, key=str):
        payee = payees[pk]
        if payee.wallet_currency != currency:
            for fx_currency in (currency, payee.wallet_currency):
                keys[("fx", pk, fx_currency)] = house_key(
                    operator_id=payee.operator_id,
                    kind=AccountKind.HOUSE_FX,
                    currency=fx_currency,
                    shard=shard_for(pk),
                )
        if payee.operator_id != escrow_operator_id:
            if not network:
                raise EscrowOperatorMismatchProblem(
                    "the escrow belongs to another operator, not the network's"
                )
            keys[("position", pk)] = position_key(
                operator_id=payee.operator_id, currency=currency, shard=shard_for(pk)
            )
            keys.setdefault("network_position", network_position)
    for pk in sorted(payees, key=str):
        payee = payees[pk]
        keys[("wallet", pk)] = player_key(
            player_id=pk, operator_id=payee.operator_id, currency=payee.wallet_currency
        )
    return keys


def _payout_lines(
    *,
    currency: str,
    escrow: AccountKey,
    accounts: Mapping[Slot, AccountKey],
    payees: Mapping[Any, Payee],
    lines_by_player: Mapping[Any, Sequence[PayoutLine]],
    quotes: Mapping[str, Quote],
) -> tuple[list[Line[AccountKey]], list[dict[str, Any]]]:
    """Per player: the escrow's lines (one per payout line and component), then their
    total across the positions (a payee of another operator), through the FX legs (a wallet
    in another currency) and into the wallet; and the rate snapshots."""
    lines: list[Line[AccountKey]] = []
    snapshots = []
    for pk in sorted(lines_by_player, key=str):
        player_lines = lines_by_player[pk]
        lines += [Line(escrow, -line.amount, line.component, pk) for line in player_lines]
        total = sum(line.amount for line in player_lines)
        if total == 0:
            continue
        if ("position", pk) in accounts:  # the network's books -> the payee's operator's
            lines += crossing_lines(
                out_of=accounts["network_position"],
                into=accounts[("position", pk)],
                amount=total,
                component="payout",
                player_id=pk,
            )
        wallet = accounts[("wallet", pk)]
        wallet_currency = payees[pk].wallet_currency
        if wallet_currency == currency:
            lines.append(Line(wallet, total, "payout", pk))
            continue
        conversion = payout_conversion(
            amount=total,
            room_currency=currency,
            wallet_currency=wallet_currency,
            quote=quotes[wallet_currency],
            fx_room=accounts[("fx", pk, currency)],
            fx_wallet=accounts[("fx", pk, wallet_currency)],
            player_id=pk,
        )
        lines += [*conversion.lines, Line(wallet, conversion.converted, "payout", pk)]
        snapshots.append(conversion.snapshot)
    return lines, snapshots


def fee_lines(
    *,
    escrow_operator_id: Any,
    escrow: AccountKey,
    accounts: Mapping[Slot, AccountKey],
    fee: int,
    split: FeeSplit | None,
) -> list[Line[AccountKey]]:
    """The fee out of the escrow into the house fee account (a network game's: what the
    network keeps), then each operator's share of a network game's fee across the positions
    into its own house fee account (``accounts``: ``fee_accounts``' names)."""
    lines: list[Line[AccountKey]] = []
    if fee:
        kept = fee if split is None else split.network
        lines += [Line(escrow, -fee, "fee"), Line(accounts["fee"], kept, "fee")]
    if split is None:
        return lines
    for operator_id in sorted(split.operators, key=str):
        share = split.operators[operator_id]
        if not share:
            continue
        if operator_id == escrow_operator_id:  # pragma: no cover - no player of the network
            lines.append(Line(accounts["fee"], share, "fee"))
            continue
        lines += [
            *crossing_lines(
                out_of=accounts["network_position"],
                into=accounts[("fee_share", operator_id)],
                amount=share,
                component="fee_share",
            ),
            Line(accounts[("fee", operator_id)], share, "fee"),
        ]
    return lines


def settlement_plan(
    *,
    game_ref: str,
    currency: str,
    escrow_operator_id: Any,
    payees: Mapping[Any, Payee],
    lines_by_player: Mapping[Any, Sequence[PayoutLine]],
    fee: int,
    split: FeeSplit | None,
    quotes: Mapping[str, Quote],
    network: bool | None = None,
) -> SettlementPlan:
    """Empty the escrow of ``game_ref`` (``currency``, owned by ``escrow_operator_id``):
    ``lines_by_player`` to each of ``payees`` (player id -> their lines, whose total is
    >= 0), ``fee`` to the house. ``split``: a network game's fee split (its escrow is the
    network operator's), None for any other game, whose payees are all of its operator
    (else ``escrow-operator-mismatch``). ``quotes``: the rate into each wallet currency
    other than the escrow's. ``network``: whether the escrow is the network's, when there
    is no fee to split (a tournament's prizes: wallet/services/plans/tournament.py);
    by default, whether there is a ``split``."""
    accounts = _settlement_accounts(
        currency=currency,
        escrow_operator_id=escrow_operator_id,
        shard=shard_for(game_ref),
        payees=payees,
        fee=fee,
        split=split,
        network=split is not None if network is None else network,
    )
    escrow = escrow_key(operator_id=escrow_operator_id, game_ref=game_ref, currency=currency)
    payouts, snapshots = _payout_lines(
        currency=currency,
        escrow=escrow,
        accounts=accounts,
        payees=payees,
        lines_by_player=lines_by_player,
        quotes=quotes,
    )
    fees = fee_lines(
        escrow_operator_id=escrow_operator_id,
        escrow=escrow,
        accounts=accounts,
        fee=fee,
        split=split,
    )
    metadata: dict[str, Any] = {"fee": fee}
    if split is not None:
        metadata["network"] = split.metadata()
    return SettlementPlan(
        keys=tuple(accounts.values()),
        escrow=escrow,
        lines=payouts + fees,
        fx_snapshots=snapshots,
        metadata=metadata,
    )
