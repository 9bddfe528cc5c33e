"""Settling finished games into the ledger, exactly once (docs/settlement.md "Flow")."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.models import Match
from gin_platform.money import PRACTICE_CURRENCY
from settlement import services
from settlement.models import Settlement
from settlement.problems import GameNotFinishedProblem
from settlement.tasks import settle_game, settle_stragglers
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import session_client
from tests.races import race
from tests.settlement.helpers import finish_with, money_result, play_out, seat_two
from tests.wallet.factories import ExchangeRateFactory
from wallet.models import LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


def settlement_postings(match) -> int:
    return LedgerTransaction.objects.filter(reference=f"settlement:match:{match.pk}").count()


def balance(player) -> int:
    return balances.wallet_balance(player=player)


def lines_of(settlement, seat):
    return {
        line["component"]: line["amount"]
        for line in settlement.statement["lines"]
        if line["seat"] == seat
    }


@pytest.fixture
def operator_eur(db):
    return OperatorFactory(base_currency="EUR")


# --- First To Knock and Match Play: the pot minus the fee (R10) ----------------------------
@pytest.mark.parametrize(("variant", "stake"), [("ftk", 333), ("match", 1001)])
def test_bot_game_settles_pot_minus_fee_with_odd_amounts(operator_eur, variant, stake):
    room = RoomFactory(
        operator=operator_eur,
        variant=variant,
        target=None if variant == "ftk" else 100,
        stake=stake,
        fee_bps=333,
    )
    match = seat_two(TableFactory(room=room))
    seats = {seat.position: seat.player for seat in match.seats.all()}
    before = {pos: balance(player) for pos, player in seats.items()}
    match = play_out(match)

    settlement = services.game_settle(match_id=match.pk)

    winner = match.result["winner_seat"]
    pot = 2 * stake
    fee = pot * 333 // 10_000  # rounded down: the fraction stays with the player
    assert pot * 333 % 10_000 != 0  # the fee does not divide evenly
    assert settlement.fee == fee
    assert balance(seats[winner]) == before[winner] + pot - fee
    assert balance(seats[1 - winner]) == before[1 - winner]  # the stake was taken at the seat
    assert lines_of(settlement, winner) == {
        "stake": f"{stake / 100:.2f}",
        "pot": f"{stake / 100:.2f}",
        "fee_deduction": f"{-fee / 100:.2f}",
    }
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED
    assert balances.escrow_balance(game_ref=match.game_ref, currency="EUR") == 0
    assert reconciliation.reconcile().ok


def test_the_ledger_itself_shows_why_money_moved(operator_eur):
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500, fee_bps=500)
    match = play_out(seat_two(TableFactory(room=room)))
    settlement = services.game_settle(match_id=match.pk)
    entries = settlement.ledger_transaction.entries.all()
    components = {entry.component for entry in entries}
    assert {"stake", "pot", "fee_deduction", "fee", "payout"} <= components
    assert sum(entry.amount for entry in entries) == 0
    winner = match.result["winner_seat"]
    winner_player = match.seats.get(position=winner).player_id
    escrow_lines = [e for e in entries if e.player_id == winner_player and e.component != "payout"]
    payout = next(e for e in entries if e.component == "payout")
    assert -sum(e.amount for e in escrow_lines) == payout.amount == 1000 - 50


# --- Money Play (R10) -----------------------------------------------------------------------
def money_room(operator, **extra):
    defaults = dict(
        operator=operator,
        money=True,
        stake_per_point_choices=[10],
        cashier_min=100,
        cashier_max=10**6,
        fee_bps=500,
    )
    return RoomFactory(**(defaults | extra))


def test_r10_worked_example(operator_eur):
    """A won 3 hands for 105 hand points, B won 2 for 40: A = 280, B = 90, A wins 190 x stake."""
    match = seat_two(TableFactory(room=money_room(operator_eur)), cashier=(50_000, 50_000))
    a, b = (match.seats.get(position=p).player for p in (0, 1))
    before = (balance(a), balance(b))
    finish_with(match, **money_result(hand_points=(105, 40), hands_won=(3, 2), reached_target=0))
    settlement = services.game_settle(match_id=match.pk)
    statement = settlement.statement
    assert statement["money_play"]["scores"]["totals"] == [280, 90]
    assert statement["money_play"]["winnings"] == {"amount": "19.00", "currency": "EUR"}
    assert statement["fee"] == {"amount": "0.95", "currency": "EUR"}
    assert lines_of(settlement, 0) == {
        "cashier_return": "500.00",
        "points": "6.50",
        "line_bonus": "2.50",
        "target_bonus": "10.00",
        "fee_deduction": "-0.95",
    }
    assert balance(a) == before[0] + 50_000 + 1900 - 95
    assert balance(b) == before[1] + 50_000 - 1900
    assert reconciliation.reconcile().ok


def test_money_play_loser_cashier_cap(operator_eur):
    match = seat_two(TableFactory(room=money_room(operator_eur)), cashier=(50_000, 1_000))
    a, b = (match.seats.get(position=p).player for p in (0, 1))
    before = (balance(a), balance(b))
    finish_with(match, **money_result(hand_points=(105, 40), hands_won=(3, 2), reached_target=0))
    settlement = services.game_settle(match_id=match.pk)
    assert balance(b) == before[1]  # lost exactly the cashier amount, never more
    assert balance(a) == before[0] + 50_000 + 1_000 - 50
    assert settlement.statement["money_play"]["caps_applied"][0]["cap"] == "loser_cashier"
    assert lines_of(settlement, 1)["cap_adjustment"] == "9.00"


def test_money_play_winner_cashier_cap(operator_eur):
    match = seat_two(TableFactory(room=money_room(operator_eur)), cashier=(500, 50_000))
    a, b = (match.seats.get(position=p).player for p in (0, 1))
    before = (balance(a), balance(b))
    finish_with(match, **money_result(hand_points=(105, 40), hands_won=(3, 2), reached_target=0))
    services.game_settle(match_id=match.pk)
    fee = 500 * 500 // 10_000
    assert balance(a) == before[0] + 500 + 500 - fee  # wins at most their own cashier amount
    assert balance(b) == before[1] + 50_000 - 500


def test_money_play_zero_point_bonus(operator_eur):
    match = seat_two(TableFactory(room=money_room(operator_eur, fee_bps=0)), cashier=(50_000,) * 2)
    finish_with(match, **money_result(hand_points=(0, 100), hands_won=(0, 2), reached_target=1))
    settlement = services.game_settle(match_id=match.pk)
    assert lines_of(settlement, 1)["zero_point_bonus"] == "10.00"
    assert settlement.statement["money_play"]["winnings"]["amount"] == "35.00"  # 350 points


def test_money_play_equal_scores_move_no_money(operator_eur):
    match = seat_two(TableFactory(room=money_room(operator_eur)), cashier=(7_000, 9_000))
    a, b = (match.seats.get(position=p).player for p in (0, 1))
    before = (balance(a), balance(b))
    scores = {
        "hand_points": [50, 100],
        "line_bonus": [75, 25],
        "target_bonus": [0, 0],
        "zero_point_bonus": [0, 0],
        "totals": [125, 125],
        "winner": None,
        "point_difference": 0,
        "target": 100,
        "reached_target": None,
    }
    finish_with(match, winner_seat=None, money_play=scores, hand_points=[50, 100])
    settlement = services.game_settle(match_id=match.pk)
    assert settlement.fee == 0
    assert (balance(a), balance(b)) == (before[0] + 7_000, before[1] + 9_000)


def test_bot_money_play_game_settles_with_fx_into_a_usd_wallet(operator_eur):
    ExchangeRateFactory(base="EUR", quote="USD")
    ExchangeRateFactory(base="USD", quote="EUR", rate="0.9328")
    players = [
        PlayerFactory(operator=operator_eur, wallet_currency="USD", display_currency="USD"),
        PlayerFactory(operator=operator_eur),
    ]
    match = seat_two(
        TableFactory(room=money_room(operator_eur, stake_per_point_choices=[1])),
        players=players,
        cashier=(20_000, 20_000),
    )
    match = play_out(match)
    settlement = services.game_settle(match_id=match.pk)
    usd = next(p for p in settlement.statement["players"] if p["player_id"] == str(players[0].pk))
    assert usd["credited"]["currency"] == "USD"
    assert usd["fx"]["rate"] and usd["fx"]["direction"] == "EUR->USD"
    assert reconciliation.reconcile().ok


def test_practice_game_settles_in_play_money(operator_eur):
    room = RoomFactory(operator=operator_eur, practice=True, stake=100, fee_bps=0)
    match = play_out(seat_two(TableFactory(room=room)))
    settlement = services.game_settle(match_id=match.pk)
    assert settlement.currency == PRACTICE_CURRENCY and settlement.is_practice
    winner = match.seats.get(position=match.result["winner_seat"]).player
    assert balances.wallet_balance(player=winner, currency=PRACTICE_CURRENCY) > 0
    assert not LedgerTransaction.objects.filter(
        reference=f"settlement:match:{match.pk}", currency="EUR"
    ).exists()


def test_forfeit_pays_the_opponent(operator_eur):

    room = RoomFactory(operator=operator_eur, variant="match", target=100, stake=500, fee_bps=0)
    match = seat_two(TableFactory(room=room))
    leaver = match.seats.get(position=0).player
    stayer = match.seats.get(position=1).player
    before = balance(stayer)
    game_services.match_forfeit(match=match, seat=0, reason="left", actor=SYSTEM)
    services.game_settle(match_id=match.pk)
    assert balance(stayer) == before + 1000
    assert Match.objects.get(pk=match.pk).result["forfeit"] == {"seat": 0, "reason": "left"}
    assert balance(leaver) == 10**7 - 500


def test_a_money_play_leaver_still_ahead_wins_no_money(operator_eur):
    """R10: a player can never win money by leaving. The leaver is 95 points and 4 hands up:
    even with the opponent's target bonus the leaver's final score is the higher, so each
    takes back their cashier amount and no fee is taken."""

    match = seat_two(TableFactory(room=money_room(operator_eur)), cashier=(9_000, 9_000))
    leaver, stayer = (match.seats.get(position=p).player for p in (0, 1))
    before = (balance(leaver), balance(stayer))
    Match.objects.filter(pk=match.pk).update(points_0=95, hands_won_0=4)
    game_services.match_forfeit(match=match, seat=0, reason="resigned", actor=SYSTEM)
    settlement = services.game_settle(match_id=match.pk)
    scores = settlement.statement["money_play"]["scores"]
    assert scores["totals"] == [95 + 100, 0 + 100 + 0]  # no zero-point bonus: 95 was scored
    assert settlement.statement["winner_seat"] is None and settlement.fee == 0
    assert (balance(leaver), balance(stayer)) == (before[0] + 9_000, before[1] + 9_000)


@pytest.mark.parametrize("variant", ["ftk", "match"])
def test_the_loser_has_lines_of_their_own_in_the_settlement(operator_eur, variant):
    """Each player's history shows buy-in, result and return: the loser's stake is released
    from the escrow (``stake``) and goes to the pot (``pot``, negative), in lines tagged
    with the loser; the statement and the ledger agree, and reconciliation checks it."""

    room = RoomFactory(
        operator=operator_eur,
        variant=variant,
        target=None if variant == "ftk" else 100,
        stake=700,
        fee_bps=250,
    )
    match = play_out(seat_two(TableFactory(room=room)))
    settlement = services.game_settle(match_id=match.pk)
    loser_seat = 1 - match.result["winner_seat"]
    loser = match.seats.get(position=loser_seat).player
    assert lines_of(settlement, loser_seat) == {"stake": "7.00", "pot": "-7.00"}
    client = session_client(loser)
    history = client.get("/api/v1/me/wallet/transactions").json()["results"]
    assert {row["kind"] for row in history} >= {"buy_in", "settlement"}
    settled = next(row for row in history if row["kind"] == "settlement")
    assert {(e["component"], e["amount"]) for e in settled["entries"]} == {
        ("stake", "-7.00"),  # the escrow released the stake ...
        ("pot", "7.00"),  # ... and it went to the pot the winner took
    }
    loser_row = next(p for p in settlement.statement["players"] if p["seat"] == loser_seat)
    assert loser_row["net"] == {"amount": "-7.00", "currency": "EUR"}
    run = services.reconciliation_run()
    assert run.ok, run.report


def test_reconciliation_flags_a_statement_that_disagrees_with_the_ledger(operator_eur, caplog):
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    settlement = services.game_settle(match_id=play_out(seat_two(TableFactory(room=room))).pk)
    statement = settlement.statement
    statement["players"][0]["payout"]["amount"] = "123.45"
    Settlement.objects.filter(pk=settlement.pk).update(statement=statement)
    run = services.reconciliation_run()
    assert not run.ok
    assert any(line.startswith("STATEMENT game") for line in run.report["lines"])
    assert "statements disagree with the ledger" in caplog.text


# --- exactly once --------------------------------------------------------------------------
def test_settling_twice_posts_once(operator_eur):
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))
    first = services.game_settle(match_id=match.pk)
    second = services.game_settle(match_id=match.pk)
    settle_game(match.pk)  # a redelivered message
    assert first.pk == second.pk
    assert settlement_postings(match) == 1
    assert Settlement.objects.filter(match=match).count() == 1


def test_a_game_in_play_is_not_settled(operator_eur):

    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    match = seat_two(TableFactory(room=room))
    with pytest.raises(GameNotFinishedProblem):
        services.game_settle(match_id=match.pk)
    assert settlement_postings(match) == 0


def test_a_worker_dying_mid_task_posts_nothing_and_the_redelivery_posts_once(
    operator_eur, monkeypatch
):
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))

    class WorkerDied(BaseException):
        """Like a SIGKILL between the ledger posting and the end of the task."""

    original = services.game_services.match_settled_record

    def die(**kwargs):
        raise WorkerDied

    monkeypatch.setattr(services.game_services, "match_settled_record", die)
    with pytest.raises(WorkerDied):
        settle_game(match.pk)
    assert settlement_postings(match) == 0  # the whole transaction rolled back
    monkeypatch.setattr(services.game_services, "match_settled_record", original)
    settle_game(match.pk)  # acks_late: the broker redelivers the message
    settle_game(match.pk)
    assert settlement_postings(match) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_threads_settling_the_same_game_post_once(operator_eur):
    room = RoomFactory(operator=operator_eur, variant="match", target=100, stake=700)
    match = play_out(seat_two(TableFactory(room=room)))
    results = race(2, lambda _: services.game_settle(match_id=match.pk))
    assert [result for result in results if isinstance(result, Exception)] == []
    assert settlement_postings(match) == 1
    assert reconciliation.reconcile().ok


@pytest.mark.django_db(transaction=True)
def test_a_finished_game_is_settled_on_commit_through_the_signal(operator_eur):
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))  # eager Celery: settled on commit
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED
    assert settlement_postings(match) == 1


def test_stragglers_are_found_and_settled(operator_eur, django_capture_on_commit_callbacks):

    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))  # the on-commit never ran here
    Match.objects.filter(pk=match.pk).update(
        finished_at=match.finished_at.replace(year=match.finished_at.year - 1)
    )
    assert settle_stragglers() == 1
    assert Match.objects.get(pk=match.pk).status == Match.Status.SETTLED
