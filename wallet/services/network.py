"""Money between operators in network play (docs/network.md "Money between operators",
"Settling the network").

A network game's escrow belongs to the network's operator. Money never crosses from one
operator's books to another's directly: each crossing goes through the network position
accounts (``network_position``, one per operator and currency, sharded like the house's),
so that every posting sums to zero per currency overall AND within each operator's books
(``_post`` checks both; on PostgreSQL the deferred trigger of migration 0006 too):

- a buy-in of operator A's player into a network escrow: A's wallet (and A's FX legs) ->
  A's position (+stake) | the network's position (-stake) -> the escrow;
- a payout: the escrow -> the network's position (+paid) | A's position (-paid) -> A's FX
  legs -> A's wallet; a refund undoes its buy-ins line by line;
- the fee: the network keeps ``fee_share_bps`` of it; each operator earns the rest in
  proportion to its players' contributions to the pot (``network_fee_split``): the escrow
  -> the network's house fee | the network's position -> A's position (-share) -> A's
  house fee;
- the net settlement (``network_position_settle``, four eyes): the operator pays its
  outstanding position to the network, or the network pays it (outside accounts), which
  zeroes what was outstanding at its cut-off.

Sign of a position: what the operator's books have put into the network's books. The
operator keeps its players' cash, so a positive position is what it owes the network and a
negative one what the network owes it. The positions of all operators (the network's own
included) sum to zero per currency (``wallet.network_selectors.network_positions_net``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.models import Network, Operator
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from wallet import network_selectors
from wallet.amounts import parse_currency
from wallet.models import LedgerTransaction
from wallet.problems import EscrowOperatorMismatchProblem, NetworkSettlementInvalidProblem
from wallet.services.posting import (
    AccountKey,
    AccountKind,
    Kind,
    Locked,
    _check_reference,
    _house_key,
    _Line,
    _post,
    _reference_guard,
    posting_make,
)

BPS = 10_000


# --- Accounts --------------------------------------------------------------------------------
def position_key(*, operator_id: Any, currency: str, shard: int) -> AccountKey:
    """An operator's (or the network's) network position account in ``currency``."""
    return _house_key(
        operator_id=operator_id, kind=AccountKind.NETWORK_POSITION, currency=currency, shard=shard
    )


def check_network_escrow(*, player_operator_id: Any, escrow_operator_id: Any) -> bool:
    """Whether a posting of this player into this escrow crosses operators: only into the
    network's escrows (anything else is ``escrow-operator-mismatch``)."""
    if escrow_operator_id == player_operator_id:
        return False
    if not platform_selectors.is_network_operator(escrow_operator_id):
        raise EscrowOperatorMismatchProblem(
            "the escrow belongs to another operator, not the network's"
        )
    return True


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


def network_fee_share_bps() -> int:
    """The network's share of each network game's fee (``Network.fee_share_bps``)."""
    value = Network.objects.values_list("fee_share_bps", flat=True).first()
    return int(value) if value is not None else 0


# --- Net settlement ------------------------------------------------------------------------
def network_settlement_reference(*, operator_id: Any, currency: str, cutoff: datetime) -> str:
    """The natural reference of a net settlement: one per operator, currency and cut-off."""
    return f"network-settlement:{operator_id}:{currency}:{cutoff.isoformat()}"


def check_net_settlement(
    *, operator: Operator, currency: str, cutoff: datetime, amount: int | None = None
) -> int:
    """The amount a net settlement of ``operator`` in ``currency`` at ``cutoff`` moves (its
    outstanding position then, ``wallet.network_selectors.network_position_outstanding``); refused
    (``network-settlement-invalid``) for the network itself, practice chips, a future
    cut-off, nothing outstanding, or an ``amount`` that is not what is outstanding."""
    network_id = platform_selectors.network_operator_id()
    if network_id is None or operator.pk == network_id:
        raise NetworkSettlementInvalidProblem(
            "a net settlement is between a member operator and the network", field="operator"
        )
    if currency == PRACTICE_CURRENCY:
        raise NetworkSettlementInvalidProblem(
            "practice chips are never settled between operators", field="currency"
        )
    if cutoff > timezone.now():
        raise NetworkSettlementInvalidProblem("the cut-off is in the future", field="cutoff")
    outstanding = network_selectors.network_position_outstanding(
        operator=operator, currency=currency, cutoff=cutoff
    )
    if outstanding == 0:
        raise NetworkSettlementInvalidProblem(
            f"nothing is outstanding in {currency} at {cutoff.isoformat()}", field="cutoff"
        )
    if amount is not None and amount != outstanding:
        raise NetworkSettlementInvalidProblem(
            f"the outstanding position is {outstanding}, not {amount}",
            field="amount",
            outstanding=outstanding,
        )
    return outstanding


@_reference_guard
@transaction.atomic
def network_position_settle(
    *,
    operator: Operator,
    currency: str,
    cutoff: datetime,
    amount: int,
    reference: str,
    actor: Actor,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """Record the payment that settles ``operator``'s network position outstanding at
    ``cutoff`` (everything posted before it; a settlement already posted counts, whenever it
    was). ``amount`` is signed like the position: positive, the operator paid the network;
    negative, the network paid the operator. The operator's position moves by ``-amount``
    against its outside account, the network's by ``+amount`` against its own, in one
    transaction under ``reference`` (idempotent: the same request returns the first
    posting). Checked again under the locks: the amount must still be what is outstanding.
    Runs from an approved four-eyes request (wallet.services.approvals)."""
    code = parse_currency(currency)
    reference = _check_reference(reference)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise NetworkSettlementInvalidProblem("amount is a non-zero integer", field="amount")
    network_id = platform_selectors.network_operator_id()
    # Always the first shard: every net settlement of an operator and currency then locks
    # the same position row, so two of them (different cut-offs, different references)
    # queue, and the second re-checks what is outstanding after the first committed.
    shard = 0
    same = {"kind": Kind.NETWORK_SETTLEMENT, "amount": amount, "currency": code}
    keys = (
        position_key(operator_id=operator.pk, currency=code, shard=shard),
        _house_key(operator_id=operator.pk, kind=AccountKind.OUTSIDE, currency=code, shard=shard),
        position_key(operator_id=network_id, currency=code, shard=shard),
        _house_key(operator_id=network_id, kind=AccountKind.OUTSIDE, currency=code, shard=shard),
    )
    if network_id is None or operator.pk == network_id:
        raise NetworkSettlementInvalidProblem(
            "a net settlement is between a member operator and the network", field="operator"
        )

    def rules(locked: Locked) -> LedgerTransaction:
        check_net_settlement(operator=operator, currency=code, cutoff=cutoff, amount=amount)
        member_position, member_outside, network_position, network_outside = locked.resolved
        return _post(
            locked=locked.accounts,
            operator=operator,
            kind=Kind.NETWORK_SETTLEMENT,
            reference=reference,
            lines=[
                _Line(member_position, -amount, "net_settlement"),
                _Line(member_outside, amount, "net_settlement"),
                _Line(network_position, amount, "net_settlement"),
                _Line(network_outside, -amount, "net_settlement"),
            ],
            actor=actor,
            now=locked.now,
            amount=amount,
            currency=code,
            metadata=(metadata or {}) | {"cutoff": cutoff.isoformat()},
        )

    return posting_make(reference=reference, same=same, keys=keys, rules=rules)
