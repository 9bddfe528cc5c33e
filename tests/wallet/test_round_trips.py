"""How many statements a posting costs (docs/wallet.md "Speed"), and that the posting path
that saves them gives up no guarantee: a replay is still answered, a duplicate reference
still conflicts (and the database still refuses an unbalanced transaction written in one
statement: test_ledger_write.py)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.wallet.factories import SYSTEM, fund, ref
from tests.wallet.tables import buy_in, settle
from wallet import services
from wallet.locks import lock_accounts_if_all_exist
from wallet.models import Account, LedgerTransaction
from wallet.problems import ReferenceConflictProblem
from wallet.selectors import balances, reconciliation, transactions
from wallet.services import EscrowPayout

pytestmark = pytest.mark.django_db


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


def test_a_settlement_reads_its_entries_once(player, opponent):
    for seated in (player, opponent):
        fund(seated, 1000)
        buy_in(seated, 500, game="match:rt")
    txn = settle([EscrowPayout(player=player, amount=950, component="pot")], 50, game="match:rt")
    assert _statements(lambda: transactions.transaction_entries(ledger_transaction=txn)) == []
    stored = LedgerTransaction.objects.get(pk=txn.pk)
    read = transactions.transaction_entries(ledger_transaction=stored)
    assert sorted((e.account_id, e.amount, e.component) for e in read) == sorted(
        (e.account_id, e.amount, e.component) for e in txn.posted_entries
    )
    assert all(e.account.pk == e.account_id for e in read)


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
