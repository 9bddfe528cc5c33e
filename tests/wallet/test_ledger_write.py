"""The ledger's one writer (wallet/ledger/write.py): a posting's rows in one statement, a
batch's in one statement, and the database's guarantees kept behind it (the deferred
zero-sum trigger, the balance CHECKs, nothing written when a check fails)."""

import pytest
from django.db import IntegrityError, transaction

from gin_platform.models import AuditEvent
from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.ledger.write import LedgerBatch, ledger_write
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors import balances, reconciliation, transactions

pytestmark = pytest.mark.django_db


def _raw_posting(operator, *, kind: str, reference: str):
    """An unsaved transaction and its audit row, for ``ledger_write`` called directly."""
    txn = LedgerTransaction(
        operator=operator,
        kind=kind,
        reference=reference,
        currency="EUR",
        actor_type="system",
        actor_id="test",
    )
    audit = AuditEvent(
        operator=operator,
        actor_type="system",
        actor_id="test",
        action=f"ledger.{kind}",
        object_type="wallet.ledgertransaction",
    )
    return txn, audit


def test_the_written_rows_are_the_ones_the_orm_reads_back(operator, player):
    txn = services.deposit(
        player=player,
        amount=123,
        currency="EUR",
        reference=ref("dep"),
        actor=SYSTEM,
        metadata={"psp": "x", "n": 1},
    )
    stored = LedgerTransaction.objects.get(pk=txn.pk)
    assert (stored.kind, stored.amount, stored.currency, stored.player_id) == (
        "deposit",
        123,
        "EUR",
        player.pk,
    )
    assert stored.metadata == {"psp": "x", "n": 1} and stored.created_at == txn.created_at
    entries = list(stored.entries.order_by("pk").values_list("amount", "component", "player_id"))
    assert entries == [(-123, "deposit", player.pk), (123, "deposit", player.pk)]
    posted = transactions.transaction_entries(ledger_transaction=txn)
    assert [(e.amount, e.account_id) for e in posted] == [
        (e.amount, e.account_id) for e in stored.entries.order_by("pk")
    ]
    audit = AuditEvent.objects.get(action="ledger.deposit", object_id=str(txn.pk))
    assert audit.data["entries"] == [[e.account_id, e.amount, "deposit"] for e in posted]
    assert audit.operator_id == operator.pk


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_one_statement_write_is_still_refused_if_it_does_not_balance(operator, player):
    """The deferred zero-sum trigger checks what ``ledger_write`` wrote, at commit."""
    fund(player, 1000)
    wallet = Account.objects.get(kind="player", player=player)
    txn, audit = _raw_posting(operator, kind="deposit", reference="raw:one-sided")
    entry = LedgerEntry(
        transaction=txn, account=wallet, currency="EUR", amount=5, balance_after=1005
    )
    with pytest.raises(IntegrityError, match="does not sum to zero"), transaction.atomic():
        ledger_write(txn=txn, entries=[entry], deltas={wallet.pk: 5}, audit=audit)
    assert not LedgerTransaction.objects.filter(reference="raw:one-sided").exists()
    assert balances.wallet_balance(player=player) == 1000
    assert reconciliation.reconcile().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_one_statement_write_keeps_the_balance_check(operator, player):
    """A balance CHECK broken by the write fails the whole statement: nothing is written."""
    fund(player, 10)
    wallet = Account.objects.get(kind="player", player=player)
    outside = Account.objects.get(kind="outside")
    txn, audit = _raw_posting(operator, kind="withdrawal", reference="raw:overdraw")
    entries = [
        LedgerEntry(transaction=txn, account=wallet, currency="EUR", amount=-50, balance_after=-40),
        LedgerEntry(transaction=txn, account=outside, currency="EUR", amount=50, balance_after=0),
    ]
    with pytest.raises(IntegrityError, match="balance_non_negative"), transaction.atomic():
        ledger_write(txn=txn, entries=entries, deltas={wallet.pk: -50, outside.pk: 50}, audit=audit)
    assert not LedgerTransaction.objects.filter(reference="raw:overdraw").exists()
    assert not AuditEvent.objects.filter(action="ledger.withdrawal").exists()
    assert balances.wallet_balance(player=player) == 10


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_batch_write_is_still_refused_if_one_of_its_postings_does_not_balance(operator, player):
    """``LedgerBatch``: the deferred zero-sum trigger checks each transaction of the batch at
    commit; one that does not balance refuses the whole batch, the balanced one included."""
    fund(player, 1000)
    wallet = Account.objects.get(kind="player", player=player)
    outside = Account.objects.get(kind="outside")
    with pytest.raises(IntegrityError, match="does not sum to zero"), transaction.atomic():
        batch = LedgerBatch(count=2)
        txn, audit = _raw_posting(operator, kind="deposit", reference="raw:balanced")
        batch(
            txn=txn,
            entries=[
                LedgerEntry(account=outside, currency="EUR", amount=-5, balance_after=-1005),
                LedgerEntry(account=wallet, currency="EUR", amount=5, balance_after=1005),
            ],
            deltas={outside.pk: -5, wallet.pk: 5},
            audit=audit,
        )
        txn, audit = _raw_posting(operator, kind="deposit", reference="raw:batch-one-sided")
        batch(
            txn=txn,
            entries=[LedgerEntry(account=wallet, currency="EUR", amount=5, balance_after=1010)],
            deltas={wallet.pk: 5},
            audit=audit,
        )
        batch.flush()
    assert not LedgerTransaction.objects.filter(reference__startswith="raw:").exists()
    assert balances.wallet_balance(player=player) == 1000
    assert reconciliation.reconcile().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_batch_write_keeps_the_balance_check(operator, player):
    """A balance CHECK broken by the batch's write fails its one statement: nothing of the
    batch is written, and the keys it took are only gaps in the sequence."""
    fund(player, 10)
    wallet = Account.objects.get(kind="player", player=player)
    outside = Account.objects.get(kind="outside")
    batch = LedgerBatch(count=1)
    txn, audit = _raw_posting(operator, kind="withdrawal", reference="raw:batch-overdraw")
    batch(
        txn=txn,
        entries=[
            LedgerEntry(account=wallet, currency="EUR", amount=-50, balance_after=-40),
            LedgerEntry(account=outside, currency="EUR", amount=50, balance_after=0),
        ],
        deltas={wallet.pk: -50, outside.pk: 50},
        audit=audit,
    )
    with pytest.raises(IntegrityError, match="balance_non_negative"), transaction.atomic():
        batch.flush()
    assert not LedgerTransaction.objects.filter(reference="raw:batch-overdraw").exists()
    assert not AuditEvent.objects.filter(action="ledger.withdrawal").exists()
    assert balances.wallet_balance(player=player) == 10
