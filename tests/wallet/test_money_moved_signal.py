"""``wallet.signals.player_money_moved`` (docs/wallet.md "The contract for games and
settlement"): one send per committed transaction, with every player its postings moved and
their kinds; nothing for a transaction that rolls back, and the next one is heard again."""

from __future__ import annotations

import pytest
from django.db import transaction

from tests.factories import PlayerFactory
from tests.wallet.factories import fund
from wallet.signals import player_money_moved

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard():
    sends: list[dict] = []

    def receiver(sender, *, moves, **_):
        sends.append(moves)

    player_money_moved.connect(receiver, dispatch_uid="tests.heard")
    yield sends
    player_money_moved.disconnect(dispatch_uid="tests.heard")


def test_one_send_per_transaction_names_every_player_it_moved(operator, heard):
    alice, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    with transaction.atomic():
        fund(alice, 1_000)
        fund(bob, 500)
        fund(alice, 200)
        assert heard == []  # not before the commit
    assert heard == [{alice.pk: ("deposit",), bob.pk: ("deposit",)}]


def test_a_rolled_back_transaction_says_nothing_and_the_next_one_is_heard(operator, heard):
    alice = PlayerFactory(operator=operator)
    with pytest.raises(RuntimeError), transaction.atomic():
        fund(alice, 1_000)
        raise RuntimeError("rolled back")
    assert heard == []
    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():  # a savepoint rolled back
            fund(alice, 300)
            raise RuntimeError("rolled back")
        fund(alice, 200)
    assert heard == [{alice.pk: ("deposit",)}]
    fund(alice, 100)
    assert heard == [{alice.pk: ("deposit",)}, {alice.pk: ("deposit",)}]
