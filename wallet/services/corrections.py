"""Corrections: ledger rows are append-only, so a mistake is corrected by a reversing
transaction (docs/wallet.md "transaction_reverse"), posted by staff under the reference
``reversal:<reference>`` (``reversal_reference``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from gin_platform.tenancy.principals import Actor
from wallet.ledger.checks import check_funds, check_reference
from wallet.ledger.lines import lines_on
from wallet.ledger.post import post
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import LedgerTransaction
from wallet.problems import (
    AlreadyReversedProblem,
    EscrowSettledProblem,
    TransactionNotReversibleProblem,
)
from wallet.selectors import balances as selectors
from wallet.services.plans.corrections import reversal_plan

Kind = LedgerTransaction.Kind


def reversal_reference(*, reference: str) -> str:
    """The ledger reference of a staff reversal: ``reversal:<reference>``."""
    return f"reversal:{reference}"


@reference_guard
@transaction.atomic
def transaction_reverse(
    *, ledger_transaction: LedgerTransaction, reference: str, reason: str, actor: Actor
) -> LedgerTransaction:
    """Post the exact opposite of a transaction (every entry negated, same components and
    players, the same FX amounts, so no new rate: wallet/services/plans/corrections.py). A
    reversal cannot itself be reversed, and a transaction is reversed at most once. Refused
    if a non-negative account would go below zero (``insufficient-funds``), or for a buy-in,
    refund or void (or a ticket entry or its refund) whose escrow is settled. Reversing a
    settlement reopens the escrow for a corrected settlement."""
    original = ledger_transaction
    reference = check_reference(reference)
    same: dict[str, Any] = {"kind": Kind.REVERSAL, "reverses": original}
    if (existing := posting_replay(reference=reference, same=same)) is not None:
        return existing
    if original.kind == Kind.REVERSAL:
        raise TransactionNotReversibleProblem("a reversal cannot be reversed")
    original_entries = list(original.entries.order_by("pk"))
    plan = reversal_plan(original_entries)

    def rules(locked: Locked) -> LedgerTransaction:
        if LedgerTransaction.objects.filter(reverses=original).exists():
            raise AlreadyReversedProblem(f"transaction #{original.pk} is already reversed")
        if (
            original.escrow is not None
            and original.kind in selectors.ENTRY_KINDS
            and selectors.escrow_is_settled(escrow=original.escrow)
        ):
            raise EscrowSettledProblem(
                f"the escrow of {original.game_ref} is settled; reverse the settlement first"
            )
        for pk, taken in plan.takes.items():
            account = locked.accounts[pk]
            if taken > 0 and not account.may_go_negative:
                check_funds(account, taken)
        return post(
            locked=locked.accounts,
            operator=original.operator,
            kind=Kind.REVERSAL,
            reference=reference,
            lines=lines_on(plan.lines, locked.accounts),
            actor=actor,
            now=locked.now,
            amount=original.amount,
            currency=original.currency,
            player=original.player,
            game_ref=original.game_ref,
            escrow=original.escrow,
            reverses=original,
            fx_snapshots=original.fx,
            metadata={"reason": reason, "reverses": original.reference},
        )

    return posting_make(
        reference=reference,
        same=same,
        accounts=[entry.account for entry in original_entries],
        rules=rules,
    )
