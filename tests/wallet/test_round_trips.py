"""How many statements a posting costs (docs/wallet.md "Speed"), and that the posting path
that saves them gives up no guarantee: the database still refuses an unbalanced
transaction, a replay is still answered, a duplicate reference still conflicts."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from gin_platform.models import AuditEvent
from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.ledger_write import LedgerBatch, ledger_write
from wallet.locks import lock_accounts_if_all_exist
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.problems import ReferenceConflictProblem
from wallet.selectors import balances, reconciliation, transactions
from wallet.services import EscrowPayout

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


def _statements(work) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        work()
    return [query["sql"] for query in captured.captured_queries]


@pytest.mark.postgres
def test_a_deposit_to_existing_accounts_is_six_statements(player):
    """SAVEPOINT (the test's transaction is the caller's), one statement that finds and
    locks both accounts, one read (replay, wallet mode, self-exclusion, caps, limits), one
    write (transaction, entries, balances, audit row), the deposit.completed event,
    RELEASE (14 before: one round trip per read and per written table)."""
    fund(player, 100)
    sql = _statements(
        lambda: services.deposit(
            player=player, amount=250, currency="EUR", reference=ref("dep"), actor=SYSTEM
        )
    )
    assert len(sql) == 6, "\n".join(sql)
    assert sum("FOR UPDATE" in statement for statement in sql) == 1
    assert balances.wallet_balance(player=player) == 350
    assert reconciliation.reconcile().ok


@pytest.mark.postgres
def test_a_first_deposit_creates_the_accounts_before_it_locks(player):
    """Accounts missing: the one find-and-lock statement locks nothing, the accounts are
    created holding no lock, then locked in key order."""
    sql = _statements(lambda: fund(player, 100))
    locks = [statement for statement in sql if "FOR UPDATE" in statement]
    creates = [i for i, s in enumerate(sql) if s.startswith('INSERT INTO "wallet_account"')]
    assert len(locks) == 2 and len(creates) == 2
    assert sql.index(locks[0]) < creates[0] < creates[1] < sql.index(locks[1])
    assert balances.wallet_balance(player=player) == 100
    assert reconciliation.reconcile().ok


def test_a_replayed_or_conflicting_deposit_after_the_one_read(player):
    first = services.deposit(
        player=player, amount=100, currency="EUR", reference="dep:same", actor=SYSTEM
    )
    again = services.deposit(
        player=player, amount=100, currency="EUR", reference="dep:same", actor=SYSTEM
    )
    assert again.pk == first.pk
    with pytest.raises(ReferenceConflictProblem):
        services.deposit(
            player=player, amount=999, currency="EUR", reference="dep:same", actor=SYSTEM
        )
    assert balances.wallet_balance(player=player) == 100


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


def test_a_settlement_reads_its_entries_once(player, opponent):
    for seated in (player, opponent):
        fund(seated, 1000)
        services.table_buy_in(
            player=seated,
            game_ref="match:rt",
            amount=500,
            currency="EUR",
            reference=ref("buy-in"),
            actor=SYSTEM,
        )
    txn = services.escrow_settle(
        game_ref="match:rt",
        currency="EUR",
        reference=ref("settle"),
        payouts=[EscrowPayout(player=player, amount=950, component="pot")],
        fee=50,
        actor=SYSTEM,
    )
    assert _statements(lambda: transactions.transaction_entries(ledger_transaction=txn)) == []
    stored = LedgerTransaction.objects.get(pk=txn.pk)
    read = transactions.transaction_entries(ledger_transaction=stored)
    assert sorted((e.account_id, e.amount, e.component) for e in read) == sorted(
        (e.account_id, e.amount, e.component) for e in txn.posted_entries
    )
    assert all(e.account.pk == e.account_id for e in read)


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


@pytest.mark.postgres
def test_the_accounts_a_posting_locks_are_the_instances_the_orm_would_read(player):
    """``lock_accounts_if_all_exist`` builds its instances from the rows itself (not through
    ``raw()``): every field the same as the ORM's, of the same type, marked saved."""
    fund(player, 100)
    lookups = [{"kind": Account.Kind.PLAYER, "player_id": player.pk, "currency": "EUR"}]
    (locked,) = lock_accounts_if_all_exist(lookups=lookups)
    read = Account.objects.get(kind=Account.Kind.PLAYER, player=player, currency="EUR")
    for field in Account._meta.concrete_fields:
        mine, theirs = getattr(locked, field.attname), getattr(read, field.attname)
        assert (mine, type(mine)) == (theirs, type(theirs)), field.name
    assert not locked._state.adding
    assert locked._state.db == "default"
