"""The one skeleton of every posting (wallet/ledger/skeleton.py ``posting_make``): resolve
and lock the accounts, replay a reference seen before (whatever the rules say now), else
check the rules on the locked rows and post."""

import pytest
from django.utils import timezone

from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.ledger.keys import AccountKind, house_key, player_key
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import LedgerTransaction
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


def test_a_replay_returns_the_first_posting_even_after_the_rules_changed(player):
    first = _deposit_with_reference(player, "psp:9")
    services.self_exclusion_create(player=player, days=30, actor=SYSTEM)
    assert _deposit_with_reference(player, "psp:9").pk == first.pk
    assert balances.wallet_balance(player=player) == 100


def _deposit_with_reference(player, reference):
    return services.deposit(
        player=player, amount=100, currency="EUR", reference=reference, actor=SYSTEM
    )


def _keys(player):
    return (
        player_key(player_id=player.pk, operator_id=player.operator_id, currency="EUR"),
        house_key(
            operator_id=player.operator_id, kind=AccountKind.OUTSIDE, currency="EUR", shard=0
        ),
    )


def test_the_rules_get_the_locked_rows_in_key_order_and_the_time_after_the_locks(player):
    fund(player, 100)
    keys = _keys(player)
    before = timezone.now()
    seen: list[Locked] = []

    def rules(locked: Locked) -> None:
        seen.append(locked)

    assert posting_make(reference=None, same={}, keys=keys, rules=rules) is None
    (locked,) = seen
    assert [account.kind for account in locked.resolved] == ["player", "outside"]
    assert locked.by_key(keys) == dict(zip(keys, locked.resolved, strict=True))
    assert all(locked.accounts[account.pk] is account for account in locked.resolved)
    assert locked.now >= before and locked.reads is None


def test_a_reference_seen_before_is_answered_without_the_rules(player):
    first = fund(player, 100)
    called = []
    replayed = posting_make(
        reference=first.reference,
        same={"kind": first.kind},
        keys=_keys(player),
        rules=called.append,
    )
    assert replayed == first and called == []
    assert LedgerTransaction.objects.filter(reference=first.reference).count() == 1
    # another reference is another request: the rules run
    assert posting_make(reference=ref(), same={"kind": "deposit"}, rules=called.append) is None
    assert len(called) == 1
