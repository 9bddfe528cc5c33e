"""Ledger invariants held by the database, append-only rows, reconcile."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, InternalError, connection, transaction

from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.models import Account, AppendOnlyError, LedgerEntry, LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


class _RolledBack(Exception):
    """Raised to roll a savepoint back, taking its raw rows (and their pending deferred
    trigger checks) with it."""


def raw_transaction(operator, reference: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO wallet_ledgertransaction "
            "(operator_id, kind, reference, currency, fx, metadata, actor_type, actor_id, "
            "created_at) VALUES (%s, 'deposit', %s, 'EUR', '[]', '{}', 'system', 'raw', "
            "CURRENT_TIMESTAMP)",
            [operator.pk.hex if connection.vendor == "sqlite" else operator.pk, reference],
        )
        return LedgerTransaction.objects.get(reference=reference).pk


def raw_entry(txn_id: int, account: Account, amount: int, currency: str | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO wallet_ledgerentry "
            "(transaction_id, account_id, currency, amount, balance_after, component, "
            "created_at) VALUES (%s, %s, %s, %s, %s, 'raw', CURRENT_TIMESTAMP)",
            [txn_id, account.pk, currency or account.currency, amount, amount],
        )


# --- Append-only -----------------------------------------------------------------------------
def test_ledger_rows_cannot_be_changed_or_deleted_through_the_orm(player):
    txn = fund(player, 100)
    entry = txn.entries.first()
    for attempt in (
        lambda: txn.save(),
        lambda: txn.delete(),
        lambda: entry.save(),
        lambda: entry.delete(),
        lambda: LedgerEntry.objects.filter(pk=entry.pk).update(amount=1),
        lambda: LedgerEntry.objects.all().delete(),
        lambda: LedgerTransaction.objects.update(reference="x"),
        lambda: LedgerEntry.objects.bulk_update([entry], ["amount"]),
    ):
        with pytest.raises(AppendOnlyError):
            attempt()
    assert reconciliation.reconcile().ok


def test_a_non_negative_account_cannot_go_below_zero_in_the_database(player):
    fund(player, 100)
    wallet = balances.wallet_account(player=player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=wallet.pk).update(balance=-1)
    outside = Account.objects.get(kind="outside")
    assert outside.balance == -100  # the outside world may go negative


def test_a_zero_entry_is_refused_by_the_database(player):
    txn = fund(player, 100)
    with pytest.raises(IntegrityError), transaction.atomic():
        raw_entry(txn.pk, balances.wallet_account(player=player), 0)


def test_an_account_has_exactly_the_owner_its_kind_needs(operator, player):
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="escrow", operator=operator, currency="EUR", player=player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="player", operator=operator, currency="EUR")
    Account.objects.create(kind="house_fee", operator=operator, currency="EUR")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="house_fee", operator=operator, currency="EUR")


# --- Reconciliation ------------------------------------------------------------------------
def test_reconcile_passes_on_a_clean_ledger(operator, player):
    fund(player, 1000)
    services.withdraw(player=player, amount=300, currency="EUR", reference=ref(), actor=SYSTEM)
    out = StringIO()
    call_command("reconcile", stdout=out)
    assert "OK: the ledger reconciles" in out.getvalue()
    assert "3 accounts" not in out.getvalue()  # 2 accounts: wallet and outside world
    report = reconciliation.reconcile()
    assert report.ok and report.accounts_checked == 2 and report.transactions_checked == 2


def test_reconcile_reports_a_cached_balance_that_drifted(player):
    fund(player, 1000)
    wallet = balances.wallet_account(player=player)
    Account.objects.filter(pk=wallet.pk).update(balance=1001)
    report = reconciliation.reconcile()
    assert not report.ok
    assert report.drifts[0].account_id == wallet.pk
    assert report.drifts[0].cached == 1001 and report.drifts[0].entries_sum == 1000
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("reconcile", stdout=out)
    assert failed.value.returncode == 1
    assert f"DRIFT account #{wallet.pk}" in out.getvalue()
    assert "off by 1" in out.getvalue()


def test_reconcile_reports_an_unbalanced_transaction(operator, player):
    """The raw insert is visible inside its (never committed) savepoint; on PostgreSQL the
    deferred trigger would refuse to commit it (see the PostgreSQL tests below)."""
    fund(player, 1000)
    wallet = balances.wallet_account(player=player)
    with pytest.raises(_RolledBack), transaction.atomic():
        txn_id = raw_transaction(operator, "raw:1")
        raw_entry(txn_id, wallet, 5)
        Account.objects.filter(pk=wallet.pk).update(balance=1005)
        report = reconciliation.reconcile()
        raise _RolledBack
    assert not report.ok and not report.drifts
    assert [(u.transaction_id, u.currency, u.total) for u in report.unbalanced] == [
        (txn_id, "EUR", 5)
    ]
    assert "UNBALANCED" in report.render()


def test_reconcile_reports_an_entry_in_the_wrong_currency(operator, player):
    fund(player, 1000)
    wallet = balances.wallet_account(player=player)
    with pytest.raises(_RolledBack), transaction.atomic():
        txn_id = raw_transaction(operator, "raw:2")
        raw_entry(txn_id, wallet, 5, currency="USD")
        raw_entry(txn_id, wallet, -5, currency="USD")
        report = reconciliation.reconcile()
        raise _RolledBack
    assert len(report.currency_mismatches) == 2 and not report.ok


# --- PostgreSQL: the deferred constraint trigger and append-only triggers -----------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_to_commit_an_unbalanced_transaction(operator, player):
    fund(player, 1000)
    wallet = balances.wallet_account(player=player)
    with pytest.raises(IntegrityError, match="does not sum to zero"), transaction.atomic():
        txn_id = raw_transaction(operator, "raw:unbalanced")
        raw_entry(txn_id, wallet, 5)
    assert not LedgerTransaction.objects.filter(reference="raw:unbalanced").exists()
    # A balanced raw insert commits (the trigger checks sums, not who wrote the rows).
    outside = Account.objects.get(kind="outside")
    with transaction.atomic():
        txn_id = raw_transaction(operator, "raw:balanced")
        raw_entry(txn_id, wallet, 5)
        raw_entry(txn_id, outside, -5)
    assert LedgerTransaction.objects.filter(reference="raw:balanced").exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_an_entry_in_another_currency_than_its_account(operator, player):
    fund(player, 1000)
    wallet = balances.wallet_account(player=player)
    with pytest.raises(IntegrityError, match="its account"), transaction.atomic():
        txn_id = raw_transaction(operator, "raw:currency")
        raw_entry(txn_id, wallet, 5, currency="USD")
        raw_entry(txn_id, wallet, -5, currency="USD")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_updates_and_deletes_of_ledger_rows(player):

    fund(player, 1000)
    for sql in (
        "UPDATE wallet_ledgerentry SET amount = amount + 1",
        "DELETE FROM wallet_ledgerentry",
        "UPDATE wallet_ledgertransaction SET reference = 'x'",
        "DELETE FROM wallet_ledgertransaction",
    ):
        with (
            pytest.raises((IntegrityError, InternalError), match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert LedgerEntry.objects.count() == 2
    assert reconciliation.reconcile().ok
