"""Settling a three- or four-player game (R12): the pot less the fee (R10, rounded down) is
shared by the room's prize table with the engine's rounding, in ONE balanced ledger
transaction with a statement line per player and component; wallet totals before and after
add up to the minor unit and the ledger reconciles."""

from __future__ import annotations

import pytest

from games import engine, selectors
from games import services as game_services
from games.models import Match
from settlement import payouts, services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import TableFactory
from tests.games.test_multi_play import play_out, seat_all
from wallet.selectors import balances as wallet_balances
from wallet.selectors import reconciliation

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator_eur(db):
    return OperatorFactory(base_currency="EUR")


def room(operator, *, seats, variant="match", prize_table=None, stake=1001, fee_bps=333):
    return game_services.room_create(
        operator=operator,
        name=f"{seats} seats",
        variant=variant,
        currency="EUR",
        stake=stake,
        fee_bps=fee_bps,
        seats=seats,
        prize_table=prize_table,
        actor=SYSTEM,
    )


def balances(players) -> list[int]:
    return [wallet_balances.wallet_balance(player=player) for player in players]


def settle_and_check(match: Match, players, before_seating):
    """Settle; check the money to the minor unit against the result's split."""
    settlement = services.game_settle(match_id=match.pk)
    result = selectors.match_result(match.result)
    stake = result.stake
    count = len(players)
    pot = stake * count
    fee = pot * result.fee_bps // 10_000
    assert (result.pot, result.fee, settlement.fee) == (pot, fee, fee)
    shares = engine.split_pot(pot - fee, result.ranking, result.prize_table)
    assert result.payouts == shares and sum(shares) == pot - fee
    by_seat = {seat.position: seat.player for seat in match.seats.all()}
    after = dict(zip(by_seat, balances(by_seat.values()), strict=True))
    for position, player in by_seat.items():
        start = before_seating[players.index(player)]
        assert after[position] == start - stake + shares[position]
    assert sum(after.values()) == sum(before_seating) - fee  # nothing else moved
    entries = settlement.ledger_transaction.entries.all()
    assert sum(entry.amount for entry in entries) == 0  # one balanced transaction
    lines = settlement.statement["lines"]
    for position in range(count):
        mine = [line for line in lines if line["seat"] == position]
        components = {line["component"] for line in mine}
        assert {"stake", "pot"} <= components
        assert ("prize" in components) == (shares[position] > 0)
        player = settlement.statement["players"][position]
        assert player["payout"]["amount"] == f"{shares[position] / 100:.2f}"
    assert settlement.statement["prize_table"]["ranking"] == result.ranking.to_list()
    assert wallet_balances.escrow_balance(game_ref=match.game_ref, currency="EUR") == 0
    assert reconciliation.reconcile().ok
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED
    return settlement, result


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seats", "variant", "prize_table"),
    [
        (3, "ftk", None),
        (3, "match", "70_30"),
        (4, "match", "65_35"),
        (4, "match", "50_30_20"),
        (4, "ftk", None),
    ],
)
def test_a_bot_game_settles_by_the_prize_table_to_the_minor_unit(
    operator_eur, seats, variant, prize_table
):
    options = {"seats": seats, "variant": variant, "prize_table": prize_table}
    table = TableFactory(room=room(operator_eur, **options))
    players = [PlayerFactory(operator=operator_eur) for _ in range(seats)]
    before = [amount + 10**7 for amount in balances(players)]  # seat_all funds 10**7 each
    match = play_out(seat_all(table, seats, players=players))
    settle_and_check(match, players, before)


def test_a_forfeited_game_pays_the_last_player_and_the_leavers_nothing(operator_eur):
    table = TableFactory(room=room(operator_eur, seats=3, variant="match", prize_table="70_30"))
    players = [PlayerFactory(operator=operator_eur) for _ in range(3)]
    before = [amount + 10**7 for amount in balances(players)]  # seat_all funds 10**7 each
    match = seat_all(table, 3, players=players)
    first, second = players[0], players[1]
    game_services.seat_leave(player=first, table=table, actor=SYSTEM)
    game_services.seat_leave(player=second, table=table, actor=SYSTEM)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    _, result = settle_and_check(match, players, before)
    assert result.reason == engine.REASON_FORFEIT
    # 70/30: the last player standing takes 70 %, the latest leaver 30 %, the first nothing.
    positions = {seat.player_id: seat.position for seat in match.seats.all()}
    assert result.ranking.to_list() == [
        [positions[players[2].pk]],
        [positions[second.pk]],
        [positions[first.pk]],
    ]
    assert result.payouts[positions[first.pk]] == 0


def test_the_prize_table_payout_rounds_to_the_better_placed_player():
    ranking = engine.Ranking.from_list([[2], [0, 1], [3]])
    payout = payouts.prize_table_payout(
        stakes=[333, 333, 333, 333], ranking=ranking, prize_table="50_30_20", fee_bps=333
    )
    pot = 4 * 333
    fee = pot * 333 // 10_000
    assert payout.fee == fee == 44
    shares = [payout.total_for(seat) for seat in range(4)]
    assert sum(shares) + fee == pot
    # 1288 to share: 644 / 386 / 257 (+1 remainder to first place); places 2-3 shared by
    # seats 0 and 1: (386 + 257) / 2 = 321.5, the odd unit to the lower seat.
    assert shares == [322, 321, 645, 0]
    assert payout.total == pot
