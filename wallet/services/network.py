"""Money between operators in network play (docs/network.md "Money between operators",
"Settling the network").

A network game's escrow belongs to the network's operator. Money never crosses from one
operator's books to another's directly: each crossing goes through the network position
accounts (``network_position``, one per operator and currency, sharded like the house's),
so that every posting sums to zero per currency overall AND within each operator's books
(``wallet.ledger.post.post`` checks both; on PostgreSQL the deferred trigger of migration
0006 too). The legs are planned in wallet/services/plans/network.py (and the buy-in's and
the settlement's beside theirs):

- a buy-in of operator A's player into a network escrow: A's wallet (and A's FX legs) ->
  A's position (+stake) | the network's position (-stake) -> the escrow;
- a payout: the escrow -> the network's position (+paid) | A's position (-paid) -> A's FX
  legs -> A's wallet; a refund undoes its buy-ins line by line;
- the fee: the network keeps ``fee_share_bps`` of it; each operator earns the rest in
  proportion to its players' contributions to the pot (``network_fee_split``, a plan): the
  escrow -> the network's house fee | the network's position -> A's position (-share) ->
  A's house fee;
- the net settlement (``network_position_settle``, four eyes): the operator pays its
  outstanding position to the network, or the network pays it (outside accounts), which
  zeroes what was outstanding at its cut-off.

Sign of a position: what the operator's books have put into the network's books. The
operator keeps its players' cash, so a positive position is what it owes the network and a
negative one what the network owes it. The positions of all operators (the network's own
included) sum to zero per currency (``wallet.selectors.network.network_positions_net``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.models import Network, Operator
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import check_reference
from wallet.ledger.lines import lines_on
from wallet.ledger.post import post
from wallet.ledger.replay import reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import LedgerTransaction
from wallet.problems import EscrowOperatorMismatchProblem, NetworkSettlementInvalidProblem
from wallet.selectors import network as network_selectors
from wallet.services.plans.network import net_settlement_accounts, net_settlement_lines

Kind = LedgerTransaction.Kind


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
    outstanding position then, ``wallet.selectors.network.network_position_outstanding``); refused
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


@reference_guard
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
    reference = check_reference(reference)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise NetworkSettlementInvalidProblem("amount is a non-zero integer", field="amount")
    network_id = platform_selectors.network_operator_id()
    same = {"kind": Kind.NETWORK_SETTLEMENT, "amount": amount, "currency": code}
    accounts = net_settlement_accounts(
        operator_id=operator.pk, network_id=network_id, currency=code
    )
    if network_id is None or operator.pk == network_id:
        raise NetworkSettlementInvalidProblem(
            "a net settlement is between a member operator and the network", field="operator"
        )

    def rules(locked: Locked) -> LedgerTransaction:
        check_net_settlement(operator=operator, currency=code, cutoff=cutoff, amount=amount)
        return post(
            locked=locked.accounts,
            operator=operator,
            kind=Kind.NETWORK_SETTLEMENT,
            reference=reference,
            lines=lines_on(
                net_settlement_lines(accounts=accounts, amount=amount), locked.by_key(accounts.keys)
            ),
            actor=actor,
            now=locked.now,
            amount=amount,
            currency=code,
            metadata=(metadata or {}) | {"cutoff": cutoff.isoformat()},
        )

    return posting_make(reference=reference, same=same, keys=accounts.keys, rules=rules)
