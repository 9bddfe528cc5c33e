"""Registering and the player's API (R14 "Entry", "Leaving", "Responsible gaming"): over
HTTP, refusals are problems that change nothing, a break taken while registered withdraws
and refunds the entry, a linked player cannot register beside their link, a player takes
their seat and plays their match through the API, a ticket pays an entry."""

from __future__ import annotations

import pytest

from games import engine
from gin_platform.tenancy.services import player_session_create
from integrity.services.links import player_link_declare
from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import assert_problem, bearer_client, operator_api
from tests.tournaments.test_lifecycle import FEE, FUNDS, STAKE, balance, funded_player, sit_and_go
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.sweep import tournaments_sweep
from wallet import services as wallet
from wallet.services.responsible_gaming import self_exclusion_create

pytestmark = pytest.mark.django_db(transaction=True)


def client_of(player):
    return bearer_client(player_session_create(player=player, actor=SYSTEM).token)


def register(client, tournament, **body):
    return client.post(f"/api/v1/tournaments/{tournament.pk}/registration", body, format="json")


@pytest.fixture
def operator():
    return OperatorFactory()


def test_registering_over_http_and_every_refusal_changes_nothing(operator) -> None:
    tournament = sit_and_go(operator, entries=3)
    first, second, third, late = (funded_player(operator) for _ in range(4))
    response = register(client_of(first), tournament)
    assert response.status_code == 201, response.content
    assert response.json()["paid"] == {"amount": "11.00", "currency": "EUR"}
    assert register(client_of(first), tournament).status_code == 200  # again: charged once
    assert balance(first) == FUNDS - STAKE - FEE
    # A link declared before registering keeps the linked player out (R10).
    player_link_declare(player=second, other_player_id=first.pk, kind="household", actor=SYSTEM)
    assert_problem(register(client_of(second), tournament), 409, "tournament-linked-player")
    assert balance(second) == FUNDS
    assert_problem(register(client_of(second), tournament, surprise=1), 400, "unknown-fields")
    broke = funded_player(operator)
    wallet.withdraw(
        player=broke, amount=FUNDS - 5, currency="EUR", reference="empty-it", actor=SYSTEM
    )
    assert_problem(register(client_of(broke), tournament), 409, "insufficient-funds")
    assert register(client_of(third), tournament).status_code == 201
    for player in (late,):  # full: 2 of 3 taken; one more fills and starts it
        assert register(client_of(player), tournament).status_code == 201
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert_problem(
        register(client_of(funded_player(operator)), tournament),
        409,
        "tournament-registration-closed",
    )
    other = OperatorFactory()
    stranger = client_of(funded_player(other))
    assert_problem(stranger.get(f"/api/v1/tournaments/{tournament.pk}"), 404, "not-found")
    assert_problem(register(stranger, tournament), 404, "not-found")


def test_a_break_taken_while_registered_withdraws_and_refunds_the_entry(operator) -> None:
    tournament = sit_and_go(operator, entries=4)
    staying, leaving = funded_player(operator), funded_player(operator)
    for player in (staying, leaving):
        assert register(client_of(player), tournament).status_code == 201
    self_exclusion_create(player=leaving, days=183, actor=SYSTEM)
    tournaments_sweep(actor=SYSTEM)
    entry = Entry.objects.get(tournament=tournament, player=leaving)
    assert entry.status == Entry.Status.UNREGISTERED
    assert balance(leaving) == FUNDS
    assert Entry.objects.get(tournament=tournament, player=staying).status == "registered"
    assert_problem(register(client_of(leaving), tournament), 403, "self-excluded")


def test_a_player_takes_the_seat_and_plays_the_match_over_the_api(operator) -> None:
    players = [funded_player(operator) for _ in range(2)]
    clients = [client_of(player) for player in players]
    tournament = sit_and_go(operator, entries=2)
    for client in clients:
        assert register(client, tournament).status_code == 201
    table = BracketTable.objects.get(tournament=tournament)
    assert table.status == BracketTable.Status.PLAYING
    mine = clients[0].get("/api/v1/me/tournaments").json()["results"][0]
    assert mine["match_id"] == table.match_id and mine["status"] == "in"
    for client in clients:
        seated = client.post(f"/api/v1/tournaments/{tournament.pk}/seat", format="json")
        assert seated.status_code == 200, seated.content
        assert seated.json() == {"match_id": table.match_id, "round": 1, "table": 1}
    by_seat = {}
    for client in clients:
        view = client.get(f"/api/v1/matches/{table.match_id}/view").json()
        by_seat[view["match"]["your_seat"]] = client
    for _ in range(500):
        view = clients[0].get(f"/api/v1/matches/{table.match_id}/view").json()
        if view["match"]["status"] != "running":
            break
        mover = by_seat[view["hand"]["to_act"]]
        mine = mover.get(f"/api/v1/matches/{table.match_id}/view").json()
        move = engine.choose_action_from_view(mine["hand"])
        answer = mover.post(
            f"/api/v1/matches/{table.match_id}/actions",
            {**move, "expected_seq": mine["seq"]},
            format="json",
        )
        assert answer.status_code == 200, answer.content
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    detail = clients[1].get(f"/api/v1/tournaments/{tournament.pk}").json()
    assert detail["seed"] == tournament.seed and detail["status"] == "finished"
    winner = Entry.objects.get(tournament=tournament, status=Entry.Status.WON)
    assert balance(winner.player) == FUNDS - STAKE - FEE + 2 * STAKE
    assert_problem(
        clients[0].post(f"/api/v1/tournaments/{tournament.pk}/seat", format="json"),
        409,
        "tournament-no-seat",
    )


def test_a_granted_ticket_pays_the_entry_and_comes_back_when_withdrawn(operator) -> None:
    player = funded_player(operator)
    tournament = sit_and_go(operator, entries=4)
    wallet.ticket_grant(
        player=player,
        tournament_ref=tournament.game_ref,
        amount=STAKE + FEE,
        currency="EUR",
        reference="ticket-1",
        actor=SYSTEM,
    )
    client = client_of(player)
    assert_problem(
        register(client_of(funded_player(operator)), tournament, ticket=True),
        409,
        "tournament-ticket-missing",
    )
    response = register(client, tournament, ticket=True)
    assert response.status_code == 201 and response.json()["payment"] == "ticket"
    assert balance(player) == FUNDS  # the wallet is untouched
    assert client.delete(f"/api/v1/tournaments/{tournament.pk}/registration").status_code == 200
    assert register(client, tournament, ticket=True).status_code == 201  # the ticket is back


def test_an_operator_creates_lists_registers_and_cancels_over_the_api(operator, idem) -> None:
    api = operator_api(operator)
    created = api.post(
        "/api/v1/tournaments",
        {
            "name": "Friday",
            "kind": "sit_and_go",
            "seats": 4,
            "currency": "EUR",
            "buy_in": "5.00",
            "entry_fee": "0.50",
            "max_entries": 8,
            "round_settings": [{"variant": "match", "target": 50}],
        },
        format="json",
        **idem(),
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["seed"] is None and len(body["seed_commitment"]) == 64
    tournament_id = body["id"]
    assert [t["id"] for t in api.get("/api/v1/tournaments").json()["results"]] == [tournament_id]
    invalid = api.post(
        "/api/v1/tournaments",
        {
            **{"name": "x", "kind": "sit_and_go", "seats": 3, "advance": 2, "currency": "EUR"},
            "max_entries": 8,
            "round_settings": [{"variant": "ftk"}],
        },
        format="json",
        **idem(),
    )
    assert_problem(invalid, 422, "tournament-options-invalid")
    player = funded_player(operator)
    entry = api.post(
        f"/api/v1/tournaments/{tournament_id}/entries",
        {"player_id": str(player.pk)},
        format="json",
    )
    assert entry.status_code == 201 and balance(player) == FUNDS - 550
    cancelled = api.post(f"/api/v1/tournaments/{tournament_id}/cancel", format="json")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["seed"]  # revealed once it has ended
    assert balance(player) == FUNDS


def test_a_link_made_after_both_registered_keeps_the_later_one_from_their_table(operator) -> None:
    first, second, third = (funded_player(operator) for _ in range(3))
    tournament = sit_and_go(operator, entries=3, seats=4)  # one table: the final
    for player in (first, second):
        assert register(client_of(player), tournament).status_code == 201
    player_link_declare(player=second, other_player_id=first.pk, kind="household", actor=SYSTEM)
    assert register(client_of(third), tournament).status_code == 201  # full: it starts
    final = BracketTable.objects.get(tournament=tournament)
    entries = {entry.player_id: entry for entry in Entry.objects.filter(tournament=tournament)}
    assert final.entries == [entries[first.pk].pk, entries[third.pk].pk] or final.entries == [
        entries[third.pk].pk,
        entries[first.pk].pk,
    ]
    out = Entry.objects.get(pk=entries[second.pk].pk)
    assert (out.status, out.out_reason, out.round_out) == ("out", "linked", 1)
