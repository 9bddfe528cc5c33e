"""A player's ticket on the tournament as they see it (R14 "Entry"; docs/tournaments.md
"API"): `my_ticket` on the lobby and on one tournament says what the calling player's ticket
to it is worth and whether it pays the entry; it is gone once entered with and back after a
withdrawal; the lobby reads the wallet once for the whole page; an operator's key sees no
ticket, and at a network tournament one operator's player never sees another's."""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import SYSTEM, OperatorFactory
from tests.games.network_world import member_make, network_make, player_client
from tests.helpers import operator_api
from tests.tournaments.test_lifecycle import FEE, FUNDS, STAKE, balance, funded_player, sit_and_go
from tests.tournaments.test_registration import client_of, register
from tournaments.services.creation import TournamentOptions, tournament_create
from wallet import services as wallet

pytestmark = pytest.mark.django_db(transaction=True)

ENTRY = STAKE + FEE
references = itertools.count()


def grant(player, tournament, amount: int = ENTRY) -> None:
    wallet.ticket_grant(
        player=player,
        tournament_ref=tournament.game_ref,
        amount=amount,
        currency=tournament.currency,
        reference=f"grant-{next(references)}",
        actor=SYSTEM,
    )


def eur(minor: int) -> dict[str, str]:
    return {"amount": f"{minor // 100}.{minor % 100:02d}", "currency": "EUR"}


def lobby(client) -> dict[int, dict]:
    response = client.get("/api/v1/tournaments")
    assert response.status_code == 200, response.content
    return {row["id"]: row["my_ticket"] for row in response.json()["results"]}


def shown(client, tournament) -> dict | None:
    response = client.get(f"/api/v1/tournaments/{tournament.pk}")
    assert response.status_code == 200, response.content
    return response.json()["my_ticket"]


def test_my_ticket_on_the_lobby_and_the_tournament_until_entered_and_back_when_withdrawn() -> None:
    operator = OperatorFactory()
    holder, other = funded_player(operator), funded_player(operator)
    covered, short, none = (sit_and_go(operator, entries=4) for _ in range(3))
    grant(holder, covered)
    grant(holder, short, amount=ENTRY - 1)  # worth less than the entry: it enters nothing
    client = client_of(holder)
    whole = {"value": eur(ENTRY), "covers_entry": True}
    partial = {"value": eur(ENTRY - 1), "covers_entry": False}
    assert lobby(client) == {covered.pk: whole, short.pk: partial, none.pk: None}
    assert shown(client, covered) == whole
    assert shown(client, short) == partial
    assert shown(client, none) is None
    # Nobody else sees it: another player of the operator, the operator's own key.
    assert set(lobby(client_of(other)).values()) == {None}
    assert shown(client_of(other), covered) is None
    api = operator_api(operator)
    assert set(lobby(api).values()) == {None}
    assert shown(api, covered) is None

    assert register(client, covered, ticket=True).status_code == 201
    assert shown(client, covered) is None  # entered with: nothing left on it
    assert balance(holder) == FUNDS
    assert client.delete(f"/api/v1/tournaments/{covered.pk}/registration").status_code == 200
    assert shown(client, covered) == whole  # withdrawn: the ticket is back
    assert lobby(client)[covered.pk] == whole


def test_the_lobby_reads_the_tickets_once_for_the_whole_page() -> None:
    operator = OperatorFactory()
    player = funded_player(operator)
    client = client_of(player)

    def lobby_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/v1/tournaments").status_code == 200
        return len(queries)

    grant(player, sit_and_go(operator, entries=4))
    lobby_queries()  # the caches of a first request (the session, the network) filled
    few = lobby_queries()
    for _ in range(5):
        grant(player, sit_and_go(operator, entries=4))
    assert len(lobby(client)) == 6
    assert lobby_queries() == few


def test_at_a_network_tournament_each_player_sees_only_their_own_ticket() -> None:
    network = network_make()
    alpha, bravo = member_make(name="Alpha"), member_make(name="Bravo")
    tournament = tournament_create(
        operator=network.operator,
        options=TournamentOptions(
            name="Network tickets",
            kind="sit_and_go",
            seats=2,
            currency="EUR",
            max_entries=4,
            buy_in=STAKE,
            entry_fee=FEE,
            round_settings=[{"variant": "ftk", "target": None}],
        ),
        actor=SYSTEM,
    )
    holder = player_client(alpha, screen_name="AlphaHolder")
    alpha_other = player_client(alpha, screen_name="AlphaOther")
    bravo_player = player_client(bravo, screen_name="BravoPlayer")
    grant(holder.player, tournament)
    whole = {"value": eur(ENTRY), "covers_entry": True}
    assert shown(holder, tournament) == whole
    assert lobby(holder)[tournament.pk] == whole
    for client in (alpha_other, bravo_player, operator_api(alpha), operator_api(bravo)):
        assert shown(client, tournament) is None
        assert lobby(client)[tournament.pk] is None
    # The ticket enters the network's tournament across the operators' positions.
    response = register(holder, tournament, ticket=True)
    assert response.status_code == 201, response.content
    assert response.json()["payment"] == "ticket"
    assert shown(holder, tournament) is None
