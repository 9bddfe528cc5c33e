"""Idempotency by reference (wallet/ledger/replay.py): the same request again returns the
first transaction, anything else under its reference is ``reference-conflict``, and so is a
reference lost to a concurrent posting at insert time."""

import pytest
from django.db import IntegrityError

from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.ledger import skeleton
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.models import LedgerTransaction
from wallet.problems import ReferenceConflictProblem
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


def test_an_unused_reference_has_nothing_to_replay():
    assert posting_replay(reference=ref("new"), same={"kind": "deposit"}) is None


def test_the_same_request_is_replayed_and_another_is_a_conflict_naming_what_differs(player):
    first = fund(player, 100)
    same = {"kind": "deposit", "player": player, "amount": 100, "currency": "EUR"}
    assert posting_replay(reference=first.reference, same=same) == first
    assert posting_replay(reference=first.reference, same={"kind": "deposit"}) == first
    with pytest.raises(ReferenceConflictProblem, match="a different kind, amount") as raised:
        posting_replay(reference=first.reference, same={**same, "kind": "withdrawal", "amount": 5})
    assert raised.value.extensions == {"reference": first.reference, "transaction_id": first.pk}


def test_the_guard_turns_only_a_lost_reference_into_a_conflict():
    @reference_guard
    def lost(*, reference):
        raise IntegrityError('duplicate key value violates "wallet_ledgertransaction_reference"')

    @reference_guard
    def other(*, reference):
        raise IntegrityError('null value in column "amount" of "wallet_ledgerentry"')

    with pytest.raises(ReferenceConflictProblem) as raised:
        lost(reference="r:1")
    assert raised.value.extensions == {"reference": "r:1"}
    with pytest.raises(IntegrityError):
        other(reference="r:2")


def test_a_reference_race_lost_at_insert_time_is_a_reference_conflict(player, monkeypatch):
    """What a concurrent posting under the same reference on other accounts looks like: the
    replay check saw nothing, the unique index refuses the insert, nothing is posted."""
    fund(player, 1000)
    taken = LedgerTransaction.objects.get()
    monkeypatch.setattr(skeleton, "posting_replay", lambda reference, **same: None)
    with pytest.raises(ReferenceConflictProblem):
        services.withdraw(
            player=player, amount=10, currency="EUR", reference=taken.reference, actor=SYSTEM
        )
    assert balances.wallet_balance(player=player) == 1000
    assert reconciliation.reconcile().ok
