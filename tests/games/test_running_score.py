"""R10: the running score (hand points and hands won) is stored with the hand that changed it
and every reader shows that one figure; a forfeit (resign, leave, turn timer) counts every
hand already scored, and a Money Play forfeit pays exactly what R10 says, whoever is ahead.

The games are played over the REST API by two players choosing moves with the engine's bot;
the expected money is computed here from the rule book, independently of the engine."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, tasks
from games.models import Hand, Match
from settlement.models import Settlement
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, seat_both, view, watch
from tests.wallet.factories import fund
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db

STAKE_PER_POINT = 25  # 0.25 EUR a point
CASHIER = 9_000  # 90.00 EUR each
FEE_BPS = 500
TARGET = 100


def _money_room(operator):
    return RoomFactory(
        operator=operator,
        money=True,
        target=TARGET,
        stake_per_point_choices=[STAKE_PER_POINT],
        cashier_min=1_000,
        cashier_max=20_000,
        fee_bps=FEE_BPS,
        timeouts_forfeit=True,  # the timer cases: R10's forfeit, R13 off
    )


def _scored_so_far(match_id: int) -> tuple[list[int], list[int]]:
    """Hand points and hands won, added up from the ended hands' outcomes (the history)."""
    points, won = [0, 0], [0, 0]
    for outcome in Hand.objects.filter(match_id=match_id, status=Hand.Status.ENDED).values_list(
        "outcome", flat=True
    ):
        if outcome["winner"] is not None:
            points[outcome["winner"]] += outcome["points"]
            won[outcome["winner"]] += 1
    return points, won


def _assert_every_view_shows(seats, watcher, operator_client, match_id, points, won):
    bodies = [view(seats[seat], match_id).json()["match"] for seat in (0, 1)]
    bodies.append(watch(watcher, match_id).json()["match"])
    bodies.append(operator_client.get(f"/api/v1/matches/{match_id}").json())
    for body in bodies:
        assert (body["hand_points"], body["hands_won"]) == (points, won)


def _play_scored_hands(seats, watcher, operator_client, match_id, scored_hands: int):
    """Play until ``scored_hands`` hands have scored, checking every view after each hand."""
    hands_seen = 1
    for _ in range(5_000):
        look = view(seats[0], match_id).json()
        assert look["match"]["status"] == Match.Status.RUNNING, "the match ended too early"
        if look["hand"]["number"] != hands_seen:  # a hand just ended
            hands_seen = look["hand"]["number"]
            points, won = _scored_so_far(match_id)
            _assert_every_view_shows(seats, watcher, operator_client, match_id, points, won)
            if sum(won) >= scored_hands:
                return points, won
        to_act = look["hand"]["to_act"]
        mine = view(seats[to_act], match_id).json()
        move = engine.choose_action_from_view(mine["hand"])
        response = act(seats[to_act], match_id, **move, expected_seq=mine["seq"])
        assert response.status_code == 200, response.json()
    raise AssertionError("no hand ended")


def _play_until_to_act(seats, match_id: int, seat: int):
    for _ in range(10):
        look = view(seats[seat], match_id).json()
        assert look["match"]["status"] == Match.Status.RUNNING
        if look["hand"]["to_act"] == seat:
            return _scored_so_far(match_id)
        other = view(seats[1 - seat], match_id).json()
        move = engine.choose_action_from_view(other["hand"])
        assert act(seats[1 - seat], match_id, **move, expected_seq=other["seq"]).status_code == 200
    raise AssertionError(f"seat {seat} never came to act")


def _forfeit(how: str, seats, match_id: int, seat: int, table_id: int, capture) -> None:
    with capture(execute=True):
        if how == "resign":
            response = seats[seat].post(f"/api/v1/matches/{match_id}/resign", format="json")
            assert response.status_code == 200, response.json()
        elif how == "leave":
            response = seats[seat].post(f"/api/v1/tables/{table_id}/leave", format="json")
            assert response.status_code == 200, response.json()
        else:  # the turn timer: only the player to act can run out of time
            assert view(seats[0], match_id).json()["hand"]["to_act"] == seat
            Hand.objects.filter(match_id=match_id, status=Hand.Status.IN_PROGRESS).update(
                turn_deadline=timezone.now() - timedelta(minutes=5)
            )
            assert tasks.expire_turns() == 1


def _r10_forfeit_money(*, points, won, leaver):
    """R10 "Leaving, timing out", from the rule book: the opponent reached the target."""
    stayer = 1 - leaver
    totals = [points[seat] + 25 * won[seat] for seat in (0, 1)]
    totals[stayer] += 100  # target bonus
    if points[leaver] == 0:
        totals[stayer] += 100  # zero-point bonus
    if totals[stayer] <= totals[leaver]:  # a player can never win money by leaving
        return totals, 0, 0
    winnings = min((totals[stayer] - totals[leaver]) * STAKE_PER_POINT, CASHIER, CASHIER)
    return totals, winnings, winnings * FEE_BPS // 10_000


@pytest.mark.parametrize("how", ["resign", "leave", "timer"])
@pytest.mark.parametrize("leaver_is", ["behind", "ahead"])
def test_a_money_play_forfeit_after_scored_hands_pays_what_r10_says(
    make_player_client,
    operator,
    operator_client,
    seeds,
    django_capture_on_commit_callbacks,
    how,
    leaver_is,
):
    alice, bob, carol = (make_player_client(display_name=n) for n in ("Alice", "Bob", "Carol"))
    for client in (alice, bob):
        fund(client.player, 50_000)
    table = TableFactory(room=_money_room(operator))
    body = {"cashier_amount": "90.00", "stake_per_point": "0.25"}
    match_id, seats = seat_both(alice, bob, table.pk, **body)
    points, won = _play_scored_hands(seats, carol, operator_client, match_id, scored_hands=2)
    totals_now = [points[s] + 25 * won[s] for s in (0, 1)]
    leader = 0 if totals_now[0] >= totals_now[1] else 1
    leaver = leader if leaver_is == "ahead" else 1 - leader
    if how == "timer":  # only the player to act can time out: play on until it is the leaver
        points, won = _play_until_to_act(seats, match_id, leaver)
    before = {s: balances.wallet_balance(player=seats[s].player) for s in (0, 1)}

    _forfeit(how, seats, match_id, leaver, table.pk, django_capture_on_commit_callbacks)

    totals, winnings, fee = _r10_forfeit_money(points=points, won=won, leaver=leaver)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.SETTLED
    assert match.result["hand_points"] == points and match.result["hands_won"] == won
    assert match.result["money_play"]["totals"] == totals
    stayer = 1 - leaver
    assert match.winner_seat == (stayer if winnings else None)
    settlement = Settlement.objects.get(match=match)
    assert settlement.fee == fee
    assert settlement.statement["money_play"]["winnings"]["amount"] == f"{winnings / 100:.2f}"
    after = {s: balances.wallet_balance(player=seats[s].player) for s in (0, 1)}
    assert after[stayer] - before[stayer] == CASHIER + winnings - fee
    assert after[leaver] - before[leaver] == CASHIER - winnings
    assert after[leaver] - before[leaver] <= CASHIER  # never wins money by leaving
    _assert_every_view_shows(seats, carol, operator_client, match_id, points, won)
    assert reconciliation.reconcile().ok


def test_the_documented_example_pays_19_75_and_a_0_98_fee():
    """0.25 a point, cashiers 90/90, 5% fee; the leaver 40 points from 2 hands won, the
    opponent 19 from 2: final scores 90 and 169, winnings 19.75, fee 0.98."""
    totals, winnings, fee = _r10_forfeit_money(points=[40, 19], won=[2, 2], leaver=0)
    assert (totals, winnings, fee) == ([90, 169], 1975, 98)


def test_a_forfeited_hand_shows_both_hands_once_the_game_is_over(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    for client in (alice, bob):
        fund(client.player, 50_000)
    table = TableFactory(room=_money_room(operator))
    match_id, seats = seat_both(
        alice, bob, table.pk, cashier_amount="90.00", stake_per_point="0.25"
    )
    _forfeit("resign", seats, match_id, 0, table.pk, django_capture_on_commit_callbacks)
    hand = Hand.objects.get(match_id=match_id)
    assert hand.status == Hand.Status.ABANDONED
    held = hand.state["hands"]
    for body in (
        view(seats[0], match_id).json()["hand"],
        view(seats[1], match_id).json()["hand"],
        watch(bob, match_id).json()["hand"],
    ):
        assert [sorted(cards) for cards in body["hands"]] == [sorted(cards) for cards in held]
        assert all(len(cards) == 10 for cards in body["hands"])
        assert body["seed"] == hand.server_seed
