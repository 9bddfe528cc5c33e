"""The player's own socket (/ws/v1/me) says ``wallet_changed`` each time the player's money
moves through the platform (docs/realtime.md "The player's socket"): a buy-in, the payout
of a settled game (to a player it pays), a refund; after the commit, to that player only,
with the reasons and never a figure. The page then reads GET /me/wallet: here the wallet
read after the push already shows the move, in the transfer model and in the seamless one
(the operator-side balance)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from channels.db import database_sync_to_async

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from tests.factories import OperatorFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import seat_both, sit
from tests.games.realtime.helpers import Socket, mint_ticket, open_socket
from tests.wallet import seamless
from tests.wallet.factories import fund

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

sync = database_sync_to_async


async def _player_socket(client) -> Socket:
    socket = await open_socket("/ws/v1/me", ticket=await mint_ticket(client))
    await socket.receive_type("hello")
    return socket


def _wallet(client) -> dict:
    response = client.get("/api/v1/me/wallet")
    assert response.status_code == 200, response.content
    return response.json()


def _post(client, path: str) -> dict:
    response = client.post(path, {}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


async def _reasons_until(socket: Socket, reason: str) -> set[str]:
    """The reasons of the socket's ``wallet_changed`` notices, up to one that gives ``reason``."""
    reasons: set[str] = set()
    while reason not in reasons:
        reasons |= set((await socket.receive_type("wallet_changed"))["reasons"])
    return reasons


def _forbidden_keys(message: dict) -> set[str]:
    """Nothing but the notice: no balance, no amount, no card, no other player."""
    return set(message) - {"type", "reasons"}


async def test_buy_in_settlement_and_refund_each_tell_the_player_and_nobody_else(
    operator, make_player_client
):
    alice, bob, carol = [
        await sync(make_player_client)(display_name=name) for name in ("Alice", "Bob", "Carol")
    ]
    for client in (alice, bob, carol):
        await sync(fund)(client.player, 10_000)
    room = await sync(RoomFactory)(operator=operator, ftk=True, stake=500, fee_bps=500)
    table, other_table = await sync(TableFactory)(room=room), await sync(TableFactory)(room=room)
    sockets = {
        name: await _player_socket(c) for name, c in (("a", alice), ("b", bob), ("c", carol))
    }

    match_id, _seats = await sync(seat_both)(alice, bob, table.pk)
    for name in ("a", "b"):
        bought = await sockets[name].receive_type("wallet_changed")
        assert bought["reasons"] == ["buy_in"] and not _forbidden_keys(bought)
    assert (await sync(_wallet)(alice))["balance"]["amount"] == "95.00"

    await sync(_post)(alice, f"/api/v1/matches/{match_id}/resign")  # Bob wins (R10)
    paid = await sockets["b"].receive_type("wallet_changed")
    assert paid["reasons"] == ["settlement"] and not _forbidden_keys(paid)
    # Read after the push, the wallet already shows the payout: 10.00 pot less the 5% fee.
    assert (await sync(_wallet)(bob))["balance"]["amount"] == "104.50"
    # The loser's wallet did not move at the settlement (her stake left it at the buy-in).
    assert await sockets["a"].nothing_more()
    assert (await sync(_wallet)(alice))["balance"]["amount"] == "95.00"

    assert await sockets["c"].nothing_more()  # another player's money says nothing to Carol
    assert (await sync(sit)(carol, other_table.pk)).status_code == 201
    assert (await sockets["c"].receive_type("wallet_changed"))["reasons"] == ["buy_in"]
    await sync(_post)(carol, f"/api/v1/tables/{other_table.pk}/leave")
    assert (await sockets["c"].receive_type("wallet_changed"))["reasons"] == ["refund"]
    assert (await sync(_wallet)(carol))["balance"]["amount"] == "100.00"
    for name in ("a", "b"):
        assert await sockets[name].nothing_more()  # Carol's money says nothing to them
    for socket in sockets.values():
        await socket.close()


@pytest.fixture
def seamless_operator(db):
    return OperatorFactory(webhook_url="")


@pytest.fixture
def wallet_server(seamless_operator):
    with OperatorWalletServer(secret=seamless_operator.webhook_secret) as running:
        seamless.seamless_mode(seamless_operator, running)
        yield running


async def test_a_seamless_player_is_told_once_the_operator_wallet_moved(
    seamless_operator, wallet_server
):
    alice, bob = [
        await sync(seamless.player_client)(seamless_operator, wallet_server, name)
        for name in ("Alice", "Bob")
    ]
    room = await sync(RoomFactory)(operator=seamless_operator, ftk=True, stake=500, fee_bps=500)
    table = await sync(TableFactory)(room=room)
    sockets = [await _player_socket(alice), await _player_socket(bob)]

    match_id, _seats = await sync(seat_both)(alice, bob, table.pk)
    for socket in sockets:
        # The operator's debit mirrored (committed first), then the buy-in.
        assert await _reasons_until(socket, "buy_in") == {"seamless_debit", "buy_in"}
    assert (await sync(_wallet)(alice))["operator_balance"]["amount"] == "95.00"

    await sync(_post)(alice, f"/api/v1/matches/{match_id}/resign")
    # The payout reaches Bob's platform wallet, then the operator's credit is mirrored out
    # of it once acknowledged: the notice after that one reads the operator's new balance.
    assert await _reasons_until(sockets[1], "seamless_credit") == {"settlement", "seamless_credit"}
    assert wallet_server.balance(bob.player.external_ref) == Decimal("104.50")
    assert (await sync(_wallet)(bob))["operator_balance"]["amount"] == "104.50"
    for socket in sockets:
        await socket.close()
