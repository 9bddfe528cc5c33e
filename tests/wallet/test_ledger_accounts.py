"""Finding, creating and locking a posting's accounts (wallet/ledger/accounts.py): missing
ones created in one global order holding no lock, then all locked at once in primary-key
order; an escrow is its operator's."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import OperatorFactory
from wallet.ledger.accounts import (
    account_identity,
    accounts_get_or_create,
    in_key_order,
    resolve_and_lock,
)
from wallet.ledger.keys import AccountKind, escrow_key, house_key, player_key
from wallet.models import Account
from wallet.problems import EscrowOperatorMismatchProblem

pytestmark = pytest.mark.django_db


def _keys(player):
    """A wallet, an escrow and a house account, in that order (the reverse of creation)."""
    return (
        player_key(player_id=player.pk, operator_id=player.operator_id, currency="EUR"),
        escrow_key(operator_id=player.operator_id, game_ref="match:acc", currency="EUR"),
        house_key(
            operator_id=player.operator_id, kind=AccountKind.HOUSE_FEE, currency="EUR", shard=2
        ),
    )


def test_missing_accounts_are_created_house_first_then_escrows_then_wallets(player):
    keys = _keys(player)
    accounts = accounts_get_or_create(*keys)
    assert [account.kind for account in accounts] == ["player", "escrow", "house_fee"]
    assert [account_identity(account) for account in accounts] == [key.identity for key in keys]
    created = list(Account.objects.order_by("pk").values_list("kind", flat=True))
    assert created == ["house_fee", "escrow", "player"]
    assert [a.pk for a in accounts_get_or_create(*keys)] == [a.pk for a in accounts]


def test_accounts_are_resolved_in_key_order_and_locked_by_primary_key(player):
    keys = _keys(player)
    resolved, locked = resolve_and_lock(keys, [])  # created first, then locked
    assert [account_identity(account) for account in resolved] == [k.identity for k in keys]
    assert list(locked) == sorted(account.pk for account in resolved)
    with CaptureQueriesContext(connection) as captured:
        again, locked_again = resolve_and_lock(keys, [])
    assert [a.pk for a in again] == [
        a.pk for a in resolved
    ] and locked_again.keys() == locked.keys()
    assert sum("FOR UPDATE" in query["sql"] for query in captured.captured_queries) == 1
    assert len(captured.captured_queries) == 1  # all exist: ONE statement finds and locks them


def test_accounts_passed_by_row_are_locked_with_the_keys(player, operator):
    other = Account.objects.create(kind="outside", operator=operator, currency="EUR", shard=5)
    resolved, locked = resolve_and_lock(_keys(player)[:1], [other])
    assert len(resolved) == 1 and set(locked) == {resolved[0].pk, other.pk}


def test_an_escrow_of_another_operator_is_refused(player):
    stranger = OperatorFactory()
    Account.objects.create(kind="escrow", operator=stranger, currency="EUR", game_ref="match:x")
    key = escrow_key(operator_id=player.operator_id, game_ref="match:x", currency="EUR")
    with pytest.raises(EscrowOperatorMismatchProblem):
        resolve_and_lock([key], [])
    found = {account_identity(a): a for a in Account.objects.filter(game_ref="match:x")}
    with pytest.raises(EscrowOperatorMismatchProblem):
        in_key_order([key], found)
