"""The only writer of ledger rows and cached balances (wallet/ledger/post.py): what ``post``
refuses before it writes anything (a bug of the service that built the lines, never user
input) and what it writes."""

import re

import pytest
from django.utils import timezone

from gin_platform.models import AuditEvent
from tests.factories import SYSTEM, OperatorFactory
from tests.wallet.factories import fund, ref
from wallet.ledger.lines import Line
from wallet.ledger.post import LedgerInvariantError, post, post_transfer
from wallet.locks import lock_accounts
from wallet.models import Account, LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


def _post_lines(locked, lines, *, operator, kind="adjustment", reference=None):
    return post(
        locked=locked,
        operator=operator,
        kind=kind,
        reference=reference or ref("post"),
        lines=lines,
        actor=SYSTEM,
        now=timezone.now(),
    )


@pytest.fixture
def wallet_and_outside(player):
    """The player's wallet (1,000) and the operator's outside-world account it came from."""
    fund(player, 1000)
    return balances.wallet_account(player=player), Account.objects.get(kind="outside")


def test_a_posting_that_leaves_an_operators_books_unbalanced_is_refused(player):
    """Zero per currency is not enough: each operator's books balance on their own (the
    network's included; money crosses only through the network positions)."""
    net = OperatorFactory(name="Network")
    fund(player, 10_000)
    wallet_a = balances.wallet_account(player=player)
    mine = Account.objects.create(kind="house_fee", operator=net, currency="EUR")
    locked = lock_accounts([wallet_a, mine])
    with pytest.raises(LedgerInvariantError, match="each operator's books"):
        post(
            locked=locked,
            operator=net,
            kind="adjustment",
            reference=ref("bad"),
            lines=[Line(wallet_a, -1, "x"), Line(mine, 1, "x")],
            actor=SYSTEM,
            now=timezone.now(),
        )
    assert LedgerTransaction.objects.filter(kind="adjustment").count() == 0


def test_a_posting_that_does_not_sum_to_zero_is_refused(operator, wallet_and_outside):
    wallet, outside = wallet_and_outside
    locked = lock_accounts([wallet, outside])
    with pytest.raises(LedgerInvariantError, match=re.escape("does not sum to zero: {'EUR': 1}")):
        _post_lines(locked, [Line(wallet, 2, "x"), Line(outside, -1, "x")], operator=operator)
    assert balances.wallet_balance(player=wallet.player) == 1000


def test_a_line_on_an_account_that_is_not_locked_is_refused(operator, wallet_and_outside):
    wallet, outside = wallet_and_outside
    locked = lock_accounts([wallet])
    with pytest.raises(LedgerInvariantError, match=f"account #{outside.pk} was not locked"):
        _post_lines(locked, [Line(wallet, -1, "x"), Line(outside, 1, "x")], operator=operator)


def test_a_posting_never_overdraws_a_non_negative_account(operator, wallet_and_outside):
    """The wallet may not go below zero; the outside world (the money outside the platform)
    may."""
    wallet, outside = wallet_and_outside
    locked = lock_accounts([wallet, outside])
    with pytest.raises(LedgerInvariantError, match="would overdraw"):
        _post_lines(locked, [Line(wallet, -1001, "x"), Line(outside, 1001, "x")], operator=operator)
    assert outside.may_go_negative and not wallet.may_go_negative
    assert balances.wallet_balance(player=wallet.player) == 1000


def test_a_posting_writes_its_entries_with_running_balances_and_moves_the_balances(
    operator, wallet_and_outside
):
    """Zero lines are dropped; each entry carries its account's balance after it (two lines
    on one account chain); the locked rows and the cached balances move by the lines' sums;
    the audit row lists the entries."""
    wallet, outside = wallet_and_outside
    locked = lock_accounts([wallet, outside])
    txn = _post_lines(
        locked,
        [
            Line(wallet, -300, "a", wallet.player_id),
            Line(outside, 0, "nothing"),
            Line(wallet, -200, "b", wallet.player_id),
            Line(outside, 500, "c"),
        ],
        operator=operator,
    )
    entries = list(txn.entries.order_by("pk"))
    assert [(e.account_id, e.amount, e.balance_after, e.component) for e in entries] == [
        (wallet.pk, -300, 700, "a"),
        (wallet.pk, -200, 500, "b"),
        (outside.pk, 500, outside.balance + 500, "c"),
    ]
    assert [(e.account_id, e.amount, e.balance_after) for e in txn.posted_entries] == [
        (e.account_id, e.amount, e.balance_after) for e in entries
    ]
    assert locked[wallet.pk].balance == 500
    assert Account.objects.get(pk=wallet.pk).balance == 500
    assert Account.objects.get(pk=outside.pk).balance == outside.balance + 500
    audit = AuditEvent.objects.get(action="ledger.adjustment", object_id=str(txn.pk))
    assert audit.data["entries"] == [[e.account_id, e.amount, e.component] for e in entries]
    assert reconciliation.reconcile().ok


def test_a_transfer_is_two_lines_tagged_with_its_kind_and_player(player, wallet_and_outside):
    wallet, outside = wallet_and_outside
    locked = lock_accounts([wallet, outside])
    txn = post_transfer(
        locked=locked,
        player=player,
        kind="withdrawal",
        reference=ref("out"),
        source=wallet,
        target=outside,
        amount=250,
        currency="EUR",
        actor=SYSTEM,
        now=timezone.now(),
        metadata={"why": "test"},
    )
    assert (txn.kind, txn.amount, txn.currency, txn.player_id) == (
        "withdrawal",
        250,
        "EUR",
        player.pk,
    )
    assert txn.metadata == {"why": "test"}
    assert list(txn.entries.order_by("pk").values_list("account_id", "amount", "component")) == [
        (wallet.pk, -250, "withdrawal"),
        (outside.pk, 250, "withdrawal"),
    ]
    assert set(txn.entries.values_list("player_id", flat=True)) == {player.pk}
