"""A network tournament (R14 "Network tournaments"): players of three member operators, two
of them in EUR and one with GBP wallets, registered over the API and played to the end on
PostgreSQL. Each operator's position and fee share come out to the minor unit, the ledger
reconciles, and no answer, event or push to one operator names another operator's player
(statements included: an operator reads its own players' only)."""

from __future__ import annotations

import json
import uuid

import pytest

from gin_platform.models import OperatorEvent
from tests.factories import SYSTEM
from tests.games.network_world import member_make, network_make, player_client
from tests.helpers import operator_api
from tests.tournaments.test_lifecycle import FEE, STAKE, play_out
from tests.wallet.factories import ExchangeRateFactory, fund
from tournaments.models import Entry, Tournament
from tournaments.services.creation import TournamentOptions, tournament_create
from wallet.models import Account
from wallet.selectors import balances, reconciliation
from wallet.selectors import network as network_selectors

pytestmark = pytest.mark.django_db(transaction=True)


class Side:
    def __init__(self, name: str, *, currency: str, players: int) -> None:
        self.operator = member_make(name=name, webhook_url="", base_currency=currency)
        self.api = operator_api(self.operator)
        self.players = [
            player_client(
                self.operator,
                screen_name=f"{name[:5]}{number}{uuid.uuid4().hex[:4]}",
                display_name=f"Display {name} {number}",
                external_ref=f"{name.lower()}-{number}-{uuid.uuid4().hex[:6]}",
                wallet_currency=currency,
                display_currency=currency,
            )
            for number in range(players)
        ]
        for client in self.players:
            fund(client.player, 100_000 if currency == "EUR" else 90_000)

    def secrets(self) -> set[str]:
        return {
            value
            for client in self.players
            for value in (str(client.player.pk), client.player.external_ref)
        } | {f"Display {self.operator.name}"}


def test_three_operators_two_currencies_positions_fees_and_no_names_across() -> None:
    network = network_make(fee_share_bps=2000)
    ExchangeRateFactory(base="EUR", quote="GBP", rate="0.8500")
    sides = [
        Side("Alpha", currency="EUR", players=3),
        Side("Bravo", currency="EUR", players=3),
        Side("Charlie", currency="GBP", players=2),
    ]
    tournament = tournament_create(
        operator=network.operator,
        options=TournamentOptions(
            name="Network Sunday",
            kind="sit_and_go",
            seats=2,
            currency="EUR",
            max_entries=8,
            buy_in=STAKE,
            entry_fee=FEE,
            round_settings=[{"variant": "ftk", "target": None}],
        ),
        actor=SYSTEM,
    )
    for side in sides:  # registered over the API, by the player and by the operator
        for number, client in enumerate(side.players):
            if number % 2:
                response = side.api.post(
                    f"/api/v1/tournaments/{tournament.pk}/entries",
                    {"player_id": str(client.player.pk)},
                    format="json",
                )
            else:
                response = client.post(
                    f"/api/v1/tournaments/{tournament.pk}/registration", {}, format="json"
                )
            assert response.status_code == 201, response.content
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING

    play_out(tournament)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert balances.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0
    prizes = sum(Entry.objects.filter(tournament=tournament).values_list("prize", flat=True))
    assert prizes == 8 * STAKE
    # The fee (8.00) shared by contribution: each member's players put in their entries'
    # worth; the network keeps its share (docs/network.md).
    fees = {
        side.operator.name: balances.house_balance(
            operator=side.operator, kind=Account.Kind.HOUSE_FEE, currency="EUR"
        )
        for side in sides
    }
    network_fee = balances.house_balance(
        operator=network.operator, kind=Account.Kind.HOUSE_FEE, currency="EUR"
    )
    assert sum(fees.values()) + network_fee == 8 * FEE
    assert fees["Alpha"] == fees["Bravo"] == 240 and fees["Charlie"] == 160
    assert network_selectors.network_positions_net() == {"EUR": 0}
    report = reconciliation.reconcile()
    assert report.ok, report.render()

    # What each operator and its players read: the lobby, the tournament, its bracket, their
    # entries and tournaments, and the events recorded for them.
    for reader in sides:
        answers = []
        for path in (
            "/api/v1/tournaments",
            f"/api/v1/tournaments/{tournament.pk}",
            f"/api/v1/tournaments/{tournament.pk}/bracket",
            f"/api/v1/tournaments/{tournament.pk}/entries",
        ):
            response = reader.api.get(path)
            assert response.status_code == 200, (path, response.content)
            answers.append(response.json())
        for client in reader.players:
            for path in (
                f"/api/v1/tournaments/{tournament.pk}",
                f"/api/v1/tournaments/{tournament.pk}/bracket",
                "/api/v1/me/tournaments",
                f"/api/v1/me/tournaments/{tournament.pk}/statement",
            ):
                response = client.get(path)
                assert response.status_code == 200, (path, response.content)
                answers.append(response.json())
            statement = f"/api/v1/tournaments/{tournament.pk}/entries/{client.player.pk}/statement"
            response = reader.api.get(statement)
            assert response.status_code == 200, response.content
            assert response.json() == answers[-1]  # what the player reads themselves
            answers.append(response.json())
        # Another member's player's statement is not this operator's to read.
        for other in sides:
            if other is not reader:
                stranger = other.players[0].player.pk
                path = f"/api/v1/tournaments/{tournament.pk}/entries/{stranger}/statement"
                assert reader.api.get(path).status_code == 404
        answers += list(OperatorEvent.objects.filter(operator=reader.operator).values("data"))
        text = json.dumps(answers, default=str)
        for other in sides:
            if other is not reader:
                leaked = [secret for secret in other.secrets() if secret in text]
                assert leaked == [], (reader.operator.name, leaked)
        bracket = reader.api.get(f"/api/v1/tournaments/{tournament.pk}/bracket").json()
        own = {str(client.player.pk) for client in reader.players}
        for table in bracket:
            for seat in table["players"]:
                assert seat["screen_name"]
                assert (seat["player_id"] is not None) == (seat["player_id"] in own)
        entries = reader.api.get(f"/api/v1/tournaments/{tournament.pk}/entries").json()
        assert {entry["player_id"] for entry in entries} == own
