"""A player's statement of one tournament (docs/tournaments.md "Statements"): the player's
own lines (the entry, a refund, prizes) with their references and times, the totals, as
JSON or CSV, for the player and for their operator; 404 for what is not theirs."""

from __future__ import annotations

import csv
import io

import pytest

from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import assert_problem, operator_api, session_client
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tournaments.models import Entry
from tournaments.services.registration import entry_register, entry_unregister
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


@pytest.fixture
def played():
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(4)]
    tournament = sit_and_go(operator, entries=4)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament)
    return operator, players, tournament


def test_the_winner_reads_their_entry_and_prize_with_references_and_totals(played) -> None:
    operator, _, tournament = played
    winner = Entry.objects.get(tournament=tournament, status=Entry.Status.WON)
    response = session_client(winner.player).get(
        f"/api/v1/me/tournaments/{tournament.pk}/statement"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["tournament_id"], body["player_id"]) == (tournament.pk, str(winner.player_id))
    assert (body["entry_number"], body["status"], body["currency"]) == (winner.number, "won", "EUR")
    entry = LedgerTransaction.objects.get(reference=winner.entry_reference)
    prize = LedgerTransaction.objects.get(reference=winner.prize_reference)
    assert [
        (line["transaction_id"], line["kind"], line["account"], line["amount"], line["reference"])
        for line in body["lines"]
    ] == [
        (entry.pk, "buy_in", "player", _eur("-11.00"), winner.entry_reference),
        (entry.pk, "buy_in", "escrow", _eur("11.00"), winner.entry_reference),
        (prize.pk, "tournament_prize", "escrow", _eur("-40.00"), winner.prize_reference),
        (prize.pk, "tournament_prize", "player", _eur("40.00"), winner.prize_reference),
    ]
    assert all(line["created_at"] for line in body["lines"])
    assert body["totals"] == {
        "paid_in": _eur("11.00"),
        "paid_out": _eur("40.00"),
        "net": _eur("29.00"),
    }
    # Their operator reads the same statement of its player.
    by_operator = operator_api(operator).get(
        f"/api/v1/tournaments/{tournament.pk}/entries/{winner.player_id}/statement"
    )
    assert by_operator.status_code == 200 and by_operator.json() == body


def test_a_statement_downloads_as_csv_line_by_line(played) -> None:
    operator, _, tournament = played
    loser = Entry.objects.filter(tournament=tournament, round_out=1).order_by("number").first()
    path = f"/api/v1/tournaments/{tournament.pk}/entries/{loser.player_id}/statement"
    response = operator_api(operator).get(path, {"format": "csv"})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    assert f"tournament-{tournament.pk}-statement.csv" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "transaction_id",
        "created_at",
        "kind",
        "account",
        "component",
        "currency",
        "amount",
        "reference",
    ]
    assert [(row[2], row[3], row[5], row[6], row[7]) for row in rows[1:]] == [
        ("buy_in", "player", "EUR", "-11.00", loser.entry_reference),
        ("buy_in", "escrow", "EUR", "11.00", loser.entry_reference),
    ]
    json_answer = operator_api(operator).get(path).json()
    assert json_answer["totals"]["net"] == _eur("-11.00")  # out in round 1: paid nothing back
    assert_problem(operator_api(operator).get(path, {"format": "xml"}), 406, "not-acceptable")


def test_a_withdrawn_entry_shows_its_refund_and_nets_to_nothing() -> None:
    operator = OperatorFactory()
    player = funded_player(operator)
    tournament = sit_and_go(operator, entries=4)
    entry_register(player=player, tournament=tournament, actor=SYSTEM)
    entry_unregister(player=player, tournament=tournament, actor=SYSTEM)
    body = session_client(player).get(f"/api/v1/me/tournaments/{tournament.pk}/statement").json()
    assert body["status"] == "unregistered"
    assert [(line["kind"], line["account"], line["amount"]) for line in body["lines"]] == [
        ("buy_in", "player", _eur("-11.00")),
        ("buy_in", "escrow", _eur("11.00")),
        ("refund", "player", _eur("11.00")),
        ("refund", "escrow", _eur("-11.00")),
    ]
    assert body["totals"] == {
        "paid_in": _eur("11.00"),
        "paid_out": _eur("11.00"),
        "net": _eur("0.00"),
    }


def test_nobody_reads_a_statement_that_is_not_theirs(played) -> None:
    operator, players, tournament = played
    stranger = funded_player(operator)  # never entered
    me = f"/api/v1/me/tournaments/{tournament.pk}/statement"
    assert_problem(session_client(stranger).get(me), 404, "not-found")
    own = operator_api(operator)
    entries = f"/api/v1/tournaments/{tournament.pk}/entries"
    assert_problem(own.get(f"{entries}/{stranger.pk}/statement"), 404, "not-found")
    # Another operator: neither its tournament nor its players are there for it.
    other = OperatorFactory()
    outsider = funded_player(other)
    assert_problem(
        operator_api(other).get(f"{entries}/{players[0].pk}/statement"), 404, "not-found"
    )
    assert_problem(session_client(outsider).get(me), 404, "not-found")
    assert_problem(own.get(f"{entries}/{outsider.pk}/statement"), 404, "not-found")
    assert_problem(own.get("/api/v1/tournaments/999999/entries/x/statement"), 404, "not-found")
