"""A tournament's room and tables (R14; docs/games.md "Tournament matches") keep to the
tournament: never in the lobby or the network's list of rooms to offer, every ordinary way
to a seat refused with 409 ``tournament-table`` (sitting, the waiting list, the house bot,
leaving a match still waiting), no free table kept open, the operator reading the room
with its ``purpose`` but changing it never; a network tournament masks the other
operators' players as network tables do; settlement closes its matches with nothing
posted, in batches too; an outage moves the no-show deadline on (R13)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services
from games.models import Match, Room, Seat, Table
from games.problems import (
    InvalidRoomOptionsProblem,
    NetworkTableOtherModeProblem,
    ScreenNameRequiredProblem,
    TournamentTableProblem,
)
from gin_platform.models import Outage
from gin_platform.tenancy.services import api_key_create, network_membership_update
from settlement import services as settlement
from settlement.models import Settlement
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.network_world import member_make, network_make, player_client
from tests.games.tournament_world import claim, match_open, players_of, room_open, running
from tests.helpers import assert_problem, operator_api, session_client
from tests.settlement.helpers import play_out, seat_two
from wallet.models import LedgerTransaction

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_a_tournament_room_is_first_to_knock_or_match_play_in_a_real_currency(operator):
    room = room_open(operator, variant="ftk", seats=3, turn_seconds=20)
    assert (room.purpose, room.variant, room.seats, room.rules["seats"]) == (
        "tournament",
        "ftk",
        3,
        3,
    )
    assert (room.stake, room.target, room.fee_bps, room.is_practice) == (None, None, 0, False)
    assert room.tables.count() == 0  # each match opens its own
    with pytest.raises(InvalidRoomOptionsProblem):
        room_open(operator, variant="money")
    with pytest.raises(InvalidRoomOptionsProblem):
        services.tournament_room_open(
            operator=operator,
            name="Chips Cup",
            variant="match",
            rules=None,
            seats=2,
            currency="XGC",
            actor=SYSTEM,
        )


def test_the_lobby_never_lists_a_tournament_room_and_the_operator_sees_its_purpose(operator):
    cash = RoomFactory(operator=operator)
    TableFactory(room=cash)
    cup = room_open(operator)
    match_open(cup, players_of(operator, 2))
    me = session_client(PlayerFactory(operator=operator))
    lobby = me.get("/api/v1/lobby")
    assert lobby.status_code == 200
    assert [room["id"] for room in lobby.json()["results"]] == [cash.pk]
    assert_problem(me.get(f"/api/v1/lobby/{cup.pk}"), 404, "not-found")
    rooms = operator_api(operator).get("/api/v1/rooms").json()["results"]
    assert {room["id"]: room["purpose"] for room in rooms} == {
        cash.pk: "cash",
        cup.pk: "tournament",
    }


def test_every_ordinary_way_to_a_seat_is_refused(operator):
    ann, bob, eve = players_of(operator, 3)
    cup = room_open(operator)
    match = match_open(cup, [ann, bob])
    table = match.table
    for player in (ann, eve):  # the player it is reserved for as much as anybody else
        client = session_client(player)
        assert_problem(client.post(f"/api/v1/tables/{table.pk}/sit"), 409, "tournament-table")
        assert_problem(client.post(f"/api/v1/tables/{table.pk}/bot"), 409, "tournament-table")
    with pytest.raises(TournamentTableProblem):
        services.seat_take(player=eve, table=table, actor=SYSTEM)
    with pytest.raises(TournamentTableProblem):
        services.waiting_list_join(player=eve, room=cup, actor=SYSTEM)
    with pytest.raises(TournamentTableProblem):
        services.table_seat_bot(player=ann, table=table, actor=SYSTEM)
    claim(ann, match)
    body = assert_problem(
        session_client(ann).post(f"/api/v1/tables/{table.pk}/leave"), 409, "tournament-table"
    )
    assert "tournament" in body["detail"]
    assert Seat.objects.filter(match=match).count() == 2
    assert not Seat.objects.filter(player=eve).exists()
    assert not LedgerTransaction.objects.exists()


def test_the_operator_changes_a_tournament_room_only_through_the_tournament(operator):
    cup = room_open(operator)
    api = operator_api(operator)
    headers = {"HTTP_IDEMPOTENCY_KEY": "close-the-cup"}
    response = api.patch(f"/api/v1/rooms/{cup.pk}", {"active": False}, format="json", **headers)
    assert_problem(response, 409, "tournament-table")
    headers = {"HTTP_IDEMPOTENCY_KEY": "a-table-more"}
    assert_problem(api.post(f"/api/v1/rooms/{cup.pk}/tables", **headers), 409, "tournament-table")
    cup.refresh_from_db()
    assert cup.active and cup.tables.count() == 0


def test_no_free_table_is_kept_open_in_a_tournament_room(operator):
    cup = room_open(operator)
    running(players_of(operator, 2), cup)
    assert Table.objects.filter(room=cup).count() == 1


def test_a_network_tournament_seats_member_operators_players_by_screen_name():
    network = network_make()
    alpha, beta = member_make(name="Alpha"), member_make(name="Beta")
    ace = player_client(alpha, screen_name="AceOfClubs").player
    bea = player_client(beta).player
    cup = room_open(network.operator)
    match = match_open(cup, [ace, bea])
    claim(ace, match)
    with pytest.raises(ScreenNameRequiredProblem):  # the others see only that name
        claim(bea, match)
    bea.screen_name = "Bea"
    bea.save(update_fields=["screen_name"])
    claim(bea, match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.operator_id == network.operator_id
    # Alpha reads the game with Beta's player as a screen name only (docs/network.md).
    seats = operator_api(alpha).get(f"/api/v1/matches/{match.pk}").json()["seats"]
    assert [(seat["player_id"], seat["screen_name"]) for seat in seats] == [
        (str(ace.pk), "AceOfClubs"),
        (None, "Bea"),
    ]
    assert cup.pk not in {
        room["id"]
        for room in operator_api(alpha).get("/api/v1/operators/me/network/rooms").json()["results"]
    }
    assert session_client(ace).get(f"/api/v1/lobby/{cup.pk}").status_code == 404


def test_a_network_tournament_match_never_mixes_live_and_test_mode_players():
    network = network_make()
    live = member_make(name="Live")
    sandbox = api_key_create(operator=live, actor=SYSTEM, mode="test").api_key.operator
    network_membership_update(operator=sandbox, member=True, all_rooms=True, actor=SYSTEM)
    players = [PlayerFactory(operator=live), PlayerFactory(operator=sandbox)]
    with pytest.raises(NetworkTableOtherModeProblem):
        match_open(room_open(network.operator), players)
    assert not Match.objects.exists()


def test_settlement_closes_tournament_matches_in_a_batch_with_nothing_posted(operator):
    """Here nothing commits (no receiver runs): the games wait finished, then one batch
    settles a cash game and closes two tournament matches (a walkover and a played one)."""
    cup = room_open(operator)
    walkover = match_open(cup, players_of(operator, 2))
    claim(Seat.objects.get(match=walkover, position=1).player, walkover)
    walkover.refresh_from_db()
    services.tournament_no_shows_sweep(now=walkover.no_show_deadline + timedelta(seconds=1))
    played = play_out(running(players_of(operator, 2), cup))
    cash = play_out(seat_two(TableFactory(room=RoomFactory(operator=operator, stake=500))))
    ids = [walkover.pk, played.pk, cash.pk]
    assert set(settlement.unsettled_match_ids(older_than_seconds=0)) == set(ids)
    assert sorted(settlement.games_settle(match_ids=ids)) == sorted(ids)
    assert set(Match.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"settled"}
    assert list(Settlement.objects.values_list("match_id", flat=True)) == [cash.pk]
    postings = LedgerTransaction.objects.filter(reference__startswith="settlement:match:")
    assert list(postings.values_list("reference", flat=True)) == [f"settlement:match:{cash.pk}"]
    assert settlement.game_settle(match_id=played.pk) is None  # again: nothing more
    assert settlement.unsettled_match_ids(older_than_seconds=0) == []
    assert settlement.reconciliation_run().ok


def test_an_outage_moves_the_no_show_deadline_on(operator):
    """R13: nobody could take a seat while the platform was down."""
    match = match_open(room_open(operator), players_of(operator, 2))
    deadline = match.no_show_deadline
    Outage.objects.create(
        started_at=deadline - timedelta(seconds=30), ended_at=deadline + timedelta(seconds=30)
    )
    assert services.tournament_no_shows_sweep(now=deadline + timedelta(seconds=60)) == 0
    match.refresh_from_db()
    # The outage's 60 s and the match's reconnect grace (30 s by default).
    assert match.no_show_deadline == deadline + timedelta(seconds=90)
    assert {seat.state for seat in Seat.objects.filter(match=match)} == {"reserved"}
    assert Room.objects.get(pk=match.room_id).purpose == "tournament"
