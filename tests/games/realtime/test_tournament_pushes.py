"""Another app pushes to a player's own socket (/ws/v1/me) through
``publisher.player_message`` only (docs/realtime.md "The player's socket"): a tournament's
message (R14) reaches that player's sockets after the commit, exactly as it was given, and
nobody else's; a transaction that rolls back sends nothing."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.db import transaction

from games.realtime import publisher
from tests.games.realtime.helpers import Socket, mint_ticket, open_socket

pytestmark = pytest.mark.django_db(transaction=True)

sync = database_sync_to_async
READY = {"type": "tournament.match_ready", "tournament_id": 7, "match_id": 41, "table_id": 9}


async def _player_socket(client) -> Socket:
    socket = await open_socket("/ws/v1/me", ticket=await mint_ticket(client))
    await socket.receive_type("hello")
    return socket


def _push_in_a_transaction(player_id, message: dict, *, commit: bool) -> None:
    try:
        with transaction.atomic():
            publisher.player_message(player_id=player_id, message=message)
            if not commit:
                raise RuntimeError("rolled back")
    except RuntimeError:
        pass


@pytest.mark.asyncio
async def test_a_tournament_message_reaches_its_player_after_the_commit_only(
    make_player_client,
):
    ann, bob = [await sync(make_player_client)(display_name=name) for name in ("Ann", "Bob")]
    sockets = {"ann": await _player_socket(ann), "bob": await _player_socket(bob)}
    await sync(_push_in_a_transaction)(ann.player.pk, READY, commit=False)
    assert await sockets["ann"].nothing_more()
    await sync(_push_in_a_transaction)(ann.player.pk, READY, commit=True)
    assert await sockets["ann"].receive_type("tournament.match_ready") == READY
    assert await sockets["bob"].nothing_more()
    for socket in sockets.values():
        await socket.close()


def test_a_message_names_its_type():
    with pytest.raises(ValueError, match="type"):
        publisher.player_message(player_id="someone", message={"match_id": 41})
