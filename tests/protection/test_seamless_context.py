"""A seamless player's buy-in carries their play session to the operator's wallet
(docs/player-protection.md "Reality checks"): the debit request's ``context`` has the
session's figures and the reality check waiting, for operators who render their own client."""

from __future__ import annotations

import pytest
from django.utils import timezone

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from protection.models import PlaySession
from protection.services.reality_checks import reality_check_show
from tests.factories import OperatorFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit
from tests.protection.conftest import under
from tests.wallet.seamless import player_client, seamless_mode
from wallet.models import WalletCall

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def operator(db):
    return OperatorFactory(webhook_url="")


def test_the_debit_of_a_buy_in_carries_the_session_and_its_waiting_check(operator):
    under(operator, "mga")
    with OperatorWalletServer(secret=operator.webhook_secret) as server:
        seamless_mode(operator, server)
        alice = player_client(operator, server, "Alice")
        table = TableFactory(room=RoomFactory(operator=operator, ftk=True))
        other = TableFactory(room=table.room)
        # The first buy-in starts the session: nothing to carry yet.
        assert sit(alice, table.pk).status_code == 201
        assert server.state.contexts == {}
        # A reality check comes due and is shown (the player is not at a running table).
        PlaySession.objects.filter(player=alice.player).update(next_reality_check_at=timezone.now())
        check, _ = reality_check_show(player_id=alice.player.pk, now=timezone.now())
        assert check is not None
        # A second buy-in while the session runs: its figures and the check go with it.
        assert sit(alice, other.pk).status_code == 201
    debit = WalletCall.objects.filter(kind="debit", player=alice.player).order_by("created_at")
    context = debit.last().context["play_session"]
    assert context["state"] == "open" and context["jurisdiction"] == "mga"
    assert context["in_play"] == {"amount": "5.00", "currency": "EUR"}
    assert context["reality_check"]["id"] == check.pk
    assert server.state.contexts == {str(debit.last().pk): debit.last().context}
