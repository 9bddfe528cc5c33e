"""Who reads a history and what it shows (docs/player-protection.md "History"): a player
their own, their operator the same, another operator nothing (404); at a network table the
other seat by screen name only, on both sides; each match's hand history (with its replays)
open to its players and their operators and to nobody else; no card in a row; 365 days and
no older; a practice game's net in chips; the refusals."""

from __future__ import annotations

import json
from base64 import b64encode
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.utils import timezone

from games.models import Match
from gin_platform.money import PRACTICE_CURRENCY
from protection import history
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import card_tokens
from tests.helpers import assert_problem, operator_api, session_client
from tests.integrity.world import play_and_lose, player_make, world_make
from tests.protection.history_world import all_pages, cashier, play_and_resign
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/history"
PARTS = ("matches", "transactions", "summary")


@pytest.fixture
def network_game():
    """Ann (operator Alpha) beat Bob (operator Bravo) at a network table."""
    world = world_make()
    ann, bob = player_make(world.a, "AnnAce"), player_make(world.b, "BobBear")
    match = play_and_lose(world, winner=ann, loser=bob)
    return world, ann, bob, match


def test_at_a_network_table_the_other_seat_is_a_screen_name_only(network_game):
    world, ann, bob, match = network_game
    for reader, me, other in (
        (session_client(ann), ann, bob),
        (operator_api(world.a), ann, bob),
        (session_client(bob), bob, ann),
        (operator_api(world.b), bob, ann),
    ):
        base = ME if reader.__dict__.get("player") else f"/api/v1/players/{me.pk}/history"
        rows = all_pages(reader, f"{base}/matches")
        assert [row["match_id"] for row in rows] == [match.pk]
        (opponent,) = rows[0]["opponents"]
        assert opponent == {
            "position": 1 - rows[0]["position"],
            "screen_name": other.screen_name,
            "display_name": None,
            "operator": None,
        }
        answers = json.dumps([reader.get(f"{base}/{part}").json() for part in PARTS])
        for secret in (
            str(other.pk),
            other.external_ref,
            other.display_name,
            str(other.operator_id),
        ):
            assert secret not in answers
        csv_text = b"".join(reader.get(f"{base}/matches?format=csv").streaming_content).decode()
        assert other.screen_name in csv_text and other.display_name not in csv_text
    won = all_pages(session_client(ann), f"{ME}/matches")[0]
    assert (won["outcome"], won["net"]) == ("won", {"amount": "4.50", "currency": "EUR"})


def test_another_operator_reads_no_history_of_a_player_not_its_own(network_game):
    world, ann, _bob, _match = network_game
    for part in PARTS:
        refused = operator_api(world.b).get(f"/api/v1/players/{ann.pk}/history/{part}")
        assert_problem(refused, 404, "not-found")
        refused = operator_api(world.a).get(f"/api/v1/players/not-a-player/history/{part}")
        assert_problem(refused, 404, "not-found")
        # A player token has no operator route, an API key no /me.
        assert_problem(
            session_client(ann).get(f"/api/v1/players/{ann.pk}/history/{part}"),
            403,
            "permission-denied",
        )
        assert_problem(operator_api(world.a).get(f"{ME}/{part}"), 403, "permission-denied")


def test_each_match_links_its_hand_history_for_its_players_and_nobody_else(network_game):
    world, ann, bob, match = network_game
    row = all_pages(session_client(ann), f"{ME}/matches")[0]
    assert row["hands_url"] == f"http://testserver/api/v1/matches/{match.pk}/hands"
    assert row["hands"] == 1 and row["status"] == Match.Status.SETTLED
    assert card_tokens(row) == set()  # the row itself shows no card
    hands = f"/api/v1/matches/{match.pk}/hands"
    for reader in (session_client(ann), session_client(bob), operator_api(world.a)):
        listed = reader.get(hands)
        assert listed.status_code == 200, listed.content
        (hand,) = listed.json()["hands"]
        assert hand["seed"] and len(hand["hands"]) == 2  # over: the replay shows every card
        assert reader.get(f"{hands}/1").status_code == 200
        assert reader.get(f"{hands}/1/fairness").json()["checks"]["commitment"] is True
    carl = player_make(world.a, "CarlCat")
    for path in (hands, f"{hands}/1", f"{hands}/1/fairness"):
        assert_problem(session_client(carl).get(path), 404, "not-found")
    assert all_pages(session_client(carl), f"{ME}/matches") == []


def test_rows_older_than_365_days_are_not_served(operator):
    room = RoomFactory(operator=operator, ftk=True, stake=500)
    api = operator_api(operator)
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    for player in (ann, bob):
        cashier(api, player, "deposits", "50.00")
    old = play_and_resign(room, winner=session_client(ann), loser=session_client(bob))
    recent = play_and_resign(room, winner=session_client(ann), loser=session_client(bob))
    Match.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=366))
    client = session_client(ann)
    assert [row["match_id"] for row in all_pages(client, f"{ME}/matches")] == [recent.pk]
    # Nor to a cursor made to point before the window.
    moved = Match.objects.get(pk=old.pk).created_at + timedelta(seconds=1)
    cursor = b64encode(urlencode({"p": str(moved)}).encode()).decode()
    assert client.get(f"{ME}/matches", {"cursor": cursor}).json()["results"] == []
    csv_text = b"".join(client.get(f"{ME}/matches?format=csv").streaming_content).decode()
    assert csv_text.count("\r\n") == 2  # the header and the recent match


def test_a_practice_game_in_play_counts_in_chips_and_not_in_the_money(operator):
    room = RoomFactory(operator=operator, practice=True, bot_enabled=False)
    table = TableFactory(room=room)
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    for player in (ann, bob):
        sat = session_client(player).post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
        assert sat.status_code == 201, sat.content
    client = session_client(ann)
    (row,) = all_pages(client, f"{ME}/matches")
    assert (row["outcome"], row["is_practice"], row["status"]) == ("in_play", True, "running")
    assert row["net"] == {"amount": "-500", "currency": PRACTICE_CURRENCY}
    assert row["buy_in"] == {"amount": "500", "currency": PRACTICE_CURRENCY}
    # Chips are not money: the wallet's movements and figures have none of them.
    assert all_pages(client, f"{ME}/transactions") == []
    summary = client.get(f"{ME}/summary?period=month").json()
    assert summary["periods"] == [] and summary["totals"]["by_kind"] == {}
    assert summary["closing_balance"] == {"amount": "0.00", "currency": ann.wallet_currency}


def test_a_player_without_history_reads_empty_lists_and_zero_figures(player_client, player):
    for part in ("matches", "transactions"):
        body = player_client.get(f"{ME}/{part}").json()
        assert body == {"next": None, "previous": None, "results": []}
    summary = player_client.get(f"{ME}/summary").json()
    zero = {"amount": "0.00", "currency": player.wallet_currency}
    assert summary["opening_balance"] == summary["closing_balance"] == zero
    assert summary["totals"]["play_net"] == zero and summary["periods"] == []
    header = b"".join(player_client.get(f"{ME}/summary?format=csv").streaming_content)
    assert header == b"period,currency,deposits,withdrawals,net_deposits,play_net,other,change\r\n"


def test_refusals_are_problems(player_client):
    assert_problem(player_client.get(f"{ME}/summary?period=week"), 400, "validation-error")
    assert_problem(player_client.get(f"{ME}/transactions?category=bonus"), 400, "validation-error")
    for part in PARTS:
        assert_problem(player_client.get(f"{ME}/{part}?format=xml"), 406, "not-acceptable")
    for part in ("matches", "transactions"):
        forged = player_client.get(f"{ME}/{part}?cursor=cD15ZXN0ZXJkYXk%3D")  # p=yesterday
        assert_problem(forged, 404, "not-found")
    assert_problem(
        player_client.post(f"{ME}/matches", {}, format="json"), 405, "method-not-allowed"
    )


def test_a_download_reads_the_window_in_batches_newest_first(player):
    for amount in (100, 200, 300, 400, 500):
        fund(player, amount)  # each deposit: one entry on the wallet, possibly at one moment
    movements = history.movement_history(player=player, window=history.history_window())
    batches = list(history.newest_first(movements, size=2))
    assert [len(batch) for batch in batches] == [2, 2, 1]
    read = [entry.pk for batch in batches for entry in batch]
    assert read == list(movements.order_by("-created_at", "-pk").values_list("pk", flat=True))
    assert [entry.amount for batch in batches for entry in batch] == [500, 400, 300, 200, 100]
