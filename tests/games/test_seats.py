"""Sitting and leaving (R11). Real-money seats move the stake or the Money Play cashier amount
into the game's escrow through the wallet; refusals move nothing; leaving before the start
refunds; leaving a running game forfeits it (R10)."""

from __future__ import annotations

import pytest

from games.models import Hand, Match, Seat, Table
from gin_platform.models import AuditEvent
from gin_platform.money import PRACTICE_CURRENCY
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit, view
from tests.helpers import assert_problem as _problem
from tests.wallet.factories import SYSTEM, ExchangeRateFactory, fund
from wallet import services as wallet_services
from wallet.models import LedgerTransaction
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


def balance(client, currency: str = "EUR") -> int:
    return balances.wallet_balance(player=client.player, currency=currency)


def escrow(match_id: int, currency: str = "EUR") -> int:
    return balances.escrow_balance(game_ref=f"match:{match_id}", currency=currency)


def leave(client, table_id: int):
    return client.post(f"/api/v1/tables/{table_id}/leave")


def _nothing_moved(before: dict) -> None:
    assert {
        "seats": Seat.objects.count(),
        "matches": Match.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
    } == before


def _counts() -> dict:
    return {
        "seats": Seat.objects.count(),
        "matches": Match.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
    }


@pytest.fixture
def match_table(operator):
    """A real-money Match Play table: 5.00 EUR stakes, to 100."""
    return TableFactory(room=RoomFactory(operator=operator, stake=500, target=100))


@pytest.fixture
def money_table(operator):
    """A real-money Money Play table: 0.01 or 0.05 EUR a point, 10.00-1000.00 EUR cashier."""
    return TableFactory(room=RoomFactory(operator=operator, money=True))


def test_sitting_moves_the_stake_into_the_games_escrow(alice, match_table):
    fund(alice.player, 2_000)
    response = sit(alice, match_table.pk)
    assert response.status_code == 201
    seat = response.json()
    assert seat["state"] == "seated" and seat["match_status"] == "waiting"
    assert seat["amount"]["amount"] == "5.00" and seat["amount"]["currency"] == "EUR"
    assert seat["amount"]["display"]["amount"] == "5.00"  # display currency = wallet's
    assert balance(alice) == 1_500 and escrow(seat["match_id"]) == 500
    stored = Seat.objects.get(pk=seat["id"])
    assert stored.buy_in_reference == f"seat:{stored.pk}:buy-in"
    buy_in = LedgerTransaction.objects.get(reference=stored.buy_in_reference)
    assert buy_in.game_ref == f"match:{seat['match_id']}"
    assert AuditEvent.objects.filter(action="seat.taken", object_id=str(stored.pk)).exists()


def test_sitting_twice_returns_the_seat_and_charges_nothing_more(alice, match_table):
    fund(alice.player, 2_000)
    first = sit(alice, match_table.pk)
    before = _counts()
    again = sit(alice, match_table.pk)
    assert again.status_code == 200 and again.json() == first.json()
    assert balance(alice) == 1_500
    _nothing_moved(before)


def test_two_seats_start_the_match_and_deal_with_a_commitment(alice, bob, match_table, seeds):
    fund(alice.player, 2_000)
    fund(bob.player, 2_000)
    one = sit(alice, match_table.pk).json()
    two = sit(bob, match_table.pk)
    assert two.status_code == 201
    two = two.json()
    assert {one["position"], two["position"]} == {0, 1}
    assert two["state"] == "playing" and two["match_status"] == "running"
    match = Match.objects.get(pk=one["match_id"])
    assert match.status == Match.Status.RUNNING and match.started_at
    assert escrow(match.pk) == 1_000
    hand = Hand.objects.get(match=match)
    assert hand.number == 1 and hand.status == Hand.Status.IN_PROGRESS
    assert view(alice, match.pk).json()["hand"]["seed_commitment"] == hand.seed_commitment
    assert Seat.objects.get(pk=one["id"]).state == Seat.State.PLAYING
    # The room keeps a free table for the next players.
    free = Table.objects.filter(room=match_table.room).exclude(pk=match_table.pk)
    assert free.count() == 1


def test_a_third_player_finds_the_table_full_and_pays_nothing(
    alice, bob, make_player_client, match_table
):
    carol = make_player_client()
    for client in (alice, bob, carol):
        fund(client.player, 2_000)
    sit(alice, match_table.pk)
    sit(bob, match_table.pk)
    before = _counts()
    _problem(sit(carol, match_table.pk), 409, "table-full")
    assert balance(carol) == 2_000
    _nothing_moved(before)


def test_insufficient_funds_refuse_the_seat_and_move_nothing(alice, match_table):
    fund(alice.player, 499)
    before = _counts()
    body = _problem(sit(alice, match_table.pk), 409, "insufficient-funds")
    assert body["status"] == 409
    assert balance(alice) == 499
    _nothing_moved(before)


def test_self_exclusion_refuses_every_seat(alice, match_table, practice_table):
    fund(alice.player, 2_000)
    wallet_services.self_exclusion_create(player=alice.player, days=30, actor=SYSTEM)
    before = _counts()
    _problem(sit(alice, match_table.pk), 403, "self-excluded")
    assert balance(alice) == 2_000
    _nothing_moved(before)
    # A break is from play, play money too (docs/player-protection.md "Breaks and limits").
    _problem(sit(alice, practice_table.pk), 403, "self-excluded")
    _nothing_moved(before)


def test_a_loss_limit_refuses_a_stake_it_could_exceed(alice, match_table):
    fund(alice.player, 2_000)
    wallet_services.player_limit_set(
        player=alice.player, kind="loss", period="day", amount=100, actor=SYSTEM
    )
    before = _counts()
    _problem(sit(alice, match_table.pk), 422, "limit-exceeded")
    _nothing_moved(before)


def test_a_player_with_another_wallet_currency_buys_in_converted(make_player_client, match_table):
    dollar = make_player_client(wallet_currency="USD", display_currency="USD")
    fund(dollar.player, 1_000, "USD")
    before = _counts()
    _problem(sit(dollar, match_table.pk), 409, "fx-rate-unavailable")
    _nothing_moved(before)
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0720")
    seat = sit(dollar, match_table.pk)
    assert seat.status_code == 201
    assert escrow(seat.json()["match_id"]) == 500
    assert balance(dollar, "USD") == 1_000 - 536  # 5.36 USD, rounded up (wallet)


def test_leaving_before_the_start_refunds_the_buy_in(alice, bob, match_table):
    fund(alice.player, 2_000)
    seat = sit(alice, match_table.pk).json()
    response = leave(alice, match_table.pk)
    assert response.status_code == 200
    left = response.json()
    assert left["state"] == "left" and left["left_at"]
    assert balance(alice) == 2_000 and escrow(seat["match_id"]) == 0
    assert Match.objects.get(pk=seat["match_id"]).status == Match.Status.ABORTED
    stored = Seat.objects.get(pk=seat["id"])
    assert LedgerTransaction.objects.filter(reference=stored.refund_reference).count() == 1
    # Leaving again: not seated. Sitting again opens a new game.
    _problem(leave(alice, match_table.pk), 409, "not-seated")
    again = sit(alice, match_table.pk).json()
    assert again["match_id"] != seat["match_id"] and balance(alice) == 1_500


def test_leaving_a_running_game_forfeits_it(
    alice, bob, match_table, seeds, django_capture_on_commit_callbacks
):
    fund(alice.player, 2_000)
    fund(bob.player, 2_000)
    mine = sit(alice, match_table.pk).json()
    sit(bob, match_table.pk)
    with django_capture_on_commit_callbacks() as callbacks:
        response = leave(alice, match_table.pk)
    assert response.status_code == 200 and response.json()["state"] == "finished"
    assert len(callbacks) == 1  # match_finished, on commit
    match = Match.objects.get(pk=mine["match_id"])
    opponent = 1 - mine["position"]
    assert match.status == Match.Status.FINISHED and match.winner_seat == opponent
    assert match.forfeit_seat == mine["position"] and match.forfeit_reason == "left"
    assert match.result["reason"] == "forfeit"
    assert match.result["forfeit"] == {"seat": mine["position"], "reason": "left"}
    assert match.result["reached_target"] == opponent
    # The stakes stay in escrow for settlement to pay out: nothing is refunded.
    assert escrow(match.pk) == 1_000 and balance(alice) == 1_500
    hand = match.hands.get()
    assert hand.status == Hand.Status.ABANDONED
    assert match.events.filter(kind="forfeit", seat=mine["position"]).exists()
    assert AuditEvent.objects.filter(action="match.forfeited", object_id=str(match.pk)).exists()
    # Both players see the result; nobody may act in the abandoned hand.
    final = view(bob, match.pk).json()
    assert final["match"]["result"]["forfeit"]["reason"] == "left"
    assert final["hand"]["legal_actions"] == [] and final["hand"]["to_act"] is None
    assert final["hand"]["seed"] == hand.server_seed  # the game is over: verifiable
    # The table is free again.
    assert Match.objects.filter(table=match_table, status__in=("waiting", "running")).count() == 0


def test_a_money_play_forfeit_scores_the_opponent_as_reaching_the_target(
    alice, bob, money_table, seeds
):
    for client in (alice, bob):
        fund(client.player, 50_000)
    mine = sit(alice, money_table.pk, cashier_amount="100.00", stake_per_point="0.05").json()
    sit(bob, money_table.pk, cashier_amount="50.00")
    leave(alice, money_table.pk)
    match = Match.objects.get(pk=mine["match_id"])
    opponent = 1 - mine["position"]
    money = match.result["money_play"]
    assert money["reached_target"] == opponent
    assert money["target_bonus"][opponent] == 100 and money["zero_point_bonus"][opponent] == 100
    assert match.winner_seat == opponent == money["winner"]
    assert {seat["amount"] for seat in match.result["seats"]} == {10_000, 5_000}


def test_money_play_cashier_amounts_within_the_rooms_bounds(alice, bob, money_table):
    fund(alice.player, 200_000)
    fund(bob.player, 200_000)
    before = _counts()
    for amount in ("9.99", "1000.01"):
        body = _problem(
            sit(alice, money_table.pk, cashier_amount=amount, stake_per_point="0.01"),
            422,
            "cashier-amount-out-of-range",
        )
        assert body["minimum"] == {"amount": "10.00", "currency": "EUR"}
        assert body["maximum"] == {"amount": "1000.00", "currency": "EUR"}
    _problem(sit(alice, money_table.pk, stake_per_point="0.01"), 422, "cashier-amount-out-of-range")
    body = _problem(
        sit(alice, money_table.pk, cashier_amount="20.00", stake_per_point="0.02"),
        422,
        "stake-per-point-not-offered",
    )
    assert [choice["amount"] for choice in body["choices"]] == ["0.01", "0.05"]
    # With two stakes on offer the first player must choose one.
    _problem(sit(alice, money_table.pk, cashier_amount="20.00"), 422, "stake-per-point-not-offered")
    _problem(
        sit(alice, money_table.pk, cashier_amount="20.001", stake_per_point="0.01"),
        422,
        "amount-too-precise",  # the API's one rule for amounts
    )
    _nothing_moved(before)
    first = sit(alice, money_table.pk, cashier_amount="20.00", stake_per_point="0.05")
    assert first.status_code == 201
    assert first.json()["amount"]["amount"] == "20.00"
    assert first.json()["stake_per_point"]["amount"] == "0.05"
    assert escrow(first.json()["match_id"]) == 2_000
    # The table now plays at 0.05: another stake is refused, none means the table's.
    before = _counts()
    body = _problem(
        sit(bob, money_table.pk, cashier_amount="30.00", stake_per_point="0.01"),
        409,
        "stake-per-point-mismatch",
    )
    assert body["stake_per_point"] == {"amount": "0.05", "currency": "EUR"}
    _nothing_moved(before)
    second = sit(bob, money_table.pk, cashier_amount="30.00")
    assert second.status_code == 201 and second.json()["stake_per_point"]["amount"] == "0.05"
    assert escrow(first.json()["match_id"]) == 5_000
    assert Match.objects.get(pk=first.json()["match_id"]).stake_per_point == 5


@pytest.mark.parametrize("field", ["cashier_amount", "stake_per_point"])
def test_only_money_play_takes_a_cashier_amount_or_stake_per_point(alice, match_table, field):
    fund(alice.player, 2_000)
    before = _counts()
    body = _problem(sit(alice, match_table.pk, **{field: "1.00"}), 400, "validation-error")
    assert field in body["errors"]
    _nothing_moved(before)


def test_practice_tables_use_play_money_only(alice, bob, practice_table):
    fund(alice.player, 2_000)
    seat = sit(alice, practice_table.pk).json()
    assert seat["amount"] == {"amount": "100", "currency": PRACTICE_CURRENCY, "display": None}
    assert balance(alice) == 2_000  # real money untouched
    assert balance(alice, PRACTICE_CURRENCY) == 10_000 - 100  # the chip grant, minus the stake
    assert escrow(seat["match_id"], PRACTICE_CURRENCY) == 100


def test_closed_rooms_and_tables_seat_nobody(alice, operator, match_table):
    fund(alice.player, 2_000)
    closed_table = TableFactory(room=match_table.room, status=Table.Status.CLOSED)
    inactive = TableFactory(room=RoomFactory(operator=operator, active=False))
    before = _counts()
    _problem(sit(alice, closed_table.pk), 409, "room-inactive")
    _problem(sit(alice, inactive.pk), 409, "room-inactive")
    _nothing_moved(before)


def test_another_operators_table_does_not_exist(alice):
    foreign = TableFactory()
    fund(alice.player, 2_000)
    _problem(sit(alice, foreign.pk), 404, "not-found")
    _problem(leave(alice, foreign.pk), 404, "not-found")
    _problem(sit(alice, "nope"), 404, "not-found")


def test_my_seats_lists_the_tables_i_sit_at(alice, match_table, practice_table):
    fund(alice.player, 2_000)
    sit(alice, match_table.pk)
    sit(alice, practice_table.pk)
    listing = alice.get("/api/v1/me/seats").json()
    assert {seat["table_id"] for seat in listing["results"]} == {
        match_table.pk,
        practice_table.pk,
    }
    leave(alice, match_table.pk)
    listing = alice.get("/api/v1/me/seats").json()
    assert [seat["table_id"] for seat in listing["results"]] == [practice_table.pk]
