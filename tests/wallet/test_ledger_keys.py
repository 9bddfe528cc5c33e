"""Which account a posting needs (wallet/ledger/keys.py), and the house shards."""

import uuid

import pytest

from tests.factories import SYSTEM, PlayerFactory
from tests.wallet.factories import fund, ref
from wallet import services
from wallet.ledger.keys import (
    AccountKind,
    escrow_key,
    house_key,
    house_shards,
    player_key,
    shard_for,
    ticket_key,
)
from wallet.models import Account
from wallet.selectors import balances, reconciliation


def test_each_kind_of_account_is_found_by_what_makes_it_unique():
    operator, player = uuid.uuid4(), uuid.uuid4()
    wallet = player_key(player_id=player, operator_id=operator, currency="EUR")
    assert wallet.identity == ("player", "EUR", str(player))
    assert wallet.lookup() == {"kind": "player", "currency": "EUR", "player_id": player}
    escrow = escrow_key(operator_id=operator, game_ref="match:1", currency="EUR")
    assert escrow.identity == ("escrow", "EUR", "match:1")
    # ``player_id IS NULL``: the escrow's partial unique index (a ticket shares its game_ref)
    assert escrow.lookup() == {
        "kind": "escrow",
        "currency": "EUR",
        "game_ref": "match:1",
        "player_id": None,
    }
    ticket = ticket_key(
        player_id=player, operator_id=operator, game_ref="tournament:1", currency="EUR"
    )
    assert ticket.identity == ("ticket", "EUR", str(player), "tournament:1")
    assert ticket.lookup() == {
        "kind": "ticket",
        "currency": "EUR",
        "player_id": player,
        "game_ref": "tournament:1",
    }
    fee = house_key(operator_id=operator, kind=AccountKind.HOUSE_FEE, currency="EUR", shard=3)
    assert fee.identity == ("house_fee", "EUR", str(operator), 3)
    assert fee.lookup() == {
        "kind": "house_fee",
        "currency": "EUR",
        "operator_id": operator,
        "shard": 3,
    }
    # whose books: the key says it, as the row will
    assert {wallet.operator_id, escrow.operator_id, ticket.operator_id, fee.operator_id} == {
        operator
    }


def test_a_shard_is_a_stable_hash_of_the_id_within_the_shard_count(settings):
    settings.WALLET_HOUSE_SHARDS = 4
    ids = [uuid.uuid4() for _ in range(50)]
    assert house_shards() == 4
    assert {shard_for(value) for value in ids} <= {0, 1, 2, 3}
    assert [shard_for(value) for value in ids] == [shard_for(str(value)) for value in ids]
    settings.WALLET_HOUSE_SHARDS = 0  # never fewer than one shard
    assert house_shards() == 1 and shard_for(ids[0]) == 0


@pytest.mark.django_db
def test_house_accounts_are_sharded_by_player(operator, settings):
    settings.WALLET_HOUSE_SHARDS = 4
    players = [PlayerFactory(operator=operator) for _ in range(12)]
    for player in players:
        fund(player, 100)
    outside = Account.objects.filter(kind="outside", operator=operator)
    assert {a.shard for a in outside} <= {0, 1, 2, 3} and outside.count() > 1
    assert {a.shard for a in outside} == {services.shard_for(p.pk) for p in players}
    assert balances.house_balance(operator=operator, kind="outside", currency="EUR") == -1200
    # A player always uses the same shard, so a withdrawal lands on their deposit's shard.
    services.withdraw(player=players[0], amount=100, currency="EUR", reference=ref(), actor=SYSTEM)
    shard = Account.objects.get(kind="outside", shard=services.shard_for(players[0].pk))
    assert shard.entries.filter(component="withdrawal").count() == 1
    assert reconciliation.reconcile().ok
