"""Complete games of each variant through the REST API, two players choosing moves with the
engine's bot from their own views; the right result (R10); every hand replays from its seed and
actions; hidden information holds over whole games; the match_finished signal fires once, on
commit."""

from __future__ import annotations

import itertools
import random

import pytest

from games import engine, selectors
from games.models import Hand, HandEvent, Match, Seat
from games.realtime import publisher
from games.signals import match_finished
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    passive_for_hands,
    play_to_end,
    seat_both,
    view,
)
from wallet import signals as wallet_signals

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_signals():
    received: list[tuple[type, int]] = []

    def receiver(sender, match_id, **kwargs):
        received.append((sender, match_id))

    match_finished.connect(receiver, weak=False, dispatch_uid="tests.games.finished")
    yield received
    match_finished.disconnect(dispatch_uid="tests.games.finished")


def _play(alice, bob, table, *, policy=None, sit_body=None):
    match_id, seats = seat_both(alice, bob, table.pk, **(sit_body or {}))
    checker = HiddenInformationChecker(match_id)
    kwargs = {"policy": policy} if policy else {}
    game = play_to_end(seats, match_id, checker=checker, **kwargs)
    assert checker.responses_checked == game.responses > 0
    return Match.objects.get(pk=match_id), game, seats


def hand_outcomes(match: Match) -> list[tuple[Hand, engine.HandOutcome]]:
    hands = match.hands.order_by("number")
    return [(hand, engine.HandOutcome.from_dict(hand.outcome)) for hand in hands]


def _assert_replayable(match: Match) -> None:
    """Every hand re-deals from its seed and replays from its events to
    exactly the stored state; its commitment is the seed's SHA-256."""
    for hand in match.hands.all():
        assert engine.state_to_json(selectors.hand_replay(hand)) == hand.state
        assert engine.seed_commitment(hand.server_seed) == hand.seed_commitment
        assert engine.verify_deck(hand.server_seed, hand.seed_commitment)


def _assert_dealers(match: Match) -> None:
    """R3: the first dealer comes from the first seed; the deal alternates; a void hand is
    redealt by the same dealer."""
    hands = list(match.hands.order_by("number"))
    assert hands[0].dealer == engine.first_dealer(hands[0].server_seed)
    for before, after in itertools.pairwise(hands):
        void = before.outcome["kind"] == "void"
        assert after.dealer == (before.dealer if void else 1 - before.dealer)


def _assert_finished_cleanly(match: Match, finished_signals) -> None:
    assert match.status == Match.Status.FINISHED and match.finished_at is not None
    assert set(match.seats.values_list("state", flat=True)) == {Seat.State.FINISHED}
    assert not match.hands.filter(status=Hand.Status.IN_PROGRESS).exists()
    assert finished_signals == []  # not announced before the commit


def test_first_to_knock_ends_with_the_first_knock(
    alice, bob, operator, seeds, finished_signals, django_capture_on_commit_callbacks
):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, ftk=True, stake=50))
    with django_capture_on_commit_callbacks(execute=True):
        match, game, _ = _play(alice, bob, table)
        match.refresh_from_db()
        _assert_finished_cleanly(match, finished_signals)
    assert finished_signals == [(Match, match.pk)]
    played = hand_outcomes(match)
    assert [outcome.kind for _, outcome in played[:-1]] == ["void"] * (len(played) - 1)
    last = played[-1][1]
    # R10 FTK: the first to knock wins, whatever the lay-offs and undercut.
    assert last.kind in ("knock", "gin", "big_gin", "undercut")
    assert match.winner_seat == last.knocker
    result = match.result
    assert result["reason"] == "first_to_knock"
    assert result["winner_seat"] == result["reached_target"] == last.knocker
    assert result["money_play"] is None and result["forfeit"] is None
    assert result["game_ref"] == f"match:{match.pk}" and result["variant"] == "ftk"
    assert [seat["position"] for seat in result["seats"]] == [0, 1]
    _assert_replayable(match)
    _assert_dealers(match)
    # Both players see the result and the showdown of the deciding hand.
    for seat in (0, 1):
        final = game.final_views[seat]
        assert final["match"]["result"]["winner_seat"] == last.knocker
        assert final["hand"]["seed"] == played[-1][0].server_seed
        assert final["hand"]["outcome"]["kind"] == last.kind
        assert final["hand"]["legal_actions"] == []


def test_a_void_first_to_knock_hand_is_redealt_by_the_same_dealer(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, ftk=True, stake=50))
    with django_capture_on_commit_callbacks(execute=True):
        match, _, _ = _play(alice, bob, table, policy=passive_for_hands(1))
    match.refresh_from_db()
    played = hand_outcomes(match)
    assert played[0][1].kind == "void" and len(played) >= 2
    assert played[1][0].dealer == played[0][0].dealer  # R7: same dealer deals again
    assert match.winner_seat == played[-1][1].knocker
    assert HandEvent.objects.filter(match=match, kind="hand_ended").count() == len(played)
    _assert_replayable(match)
    _assert_dealers(match)


@pytest.mark.parametrize("target", [100, 250])
@pytest.mark.slow
def test_match_play_runs_hands_to_the_target(
    alice, bob, operator, seeds, target, finished_signals, django_capture_on_commit_callbacks
):
    room = RoomFactory(operator=operator, practice=True, target=target, stake=100)
    table = TableFactory(room=room)
    with django_capture_on_commit_callbacks(execute=True):
        match, game, _ = _play(alice, bob, table, policy=passive_for_hands(1))
        match.refresh_from_db()
        _assert_finished_cleanly(match, finished_signals)
    assert finished_signals == [(Match, match.pk)]
    played = hand_outcomes(match)
    assert played[0][1].kind == "void"  # the first hand was played out to a void
    points, won = [0, 0], [0, 0]
    for _, outcome in played:
        if outcome.winner is not None:
            points[outcome.winner] += outcome.points
            won[outcome.winner] += 1
    winner = match.winner_seat
    assert points[winner] >= target > points[1 - winner]  # R10 Match Play
    # Nobody had reached the target before the last hand.
    last = played[-1][1]
    assert points[winner] - last.points < target and last.winner == winner
    assert list(match.points) == points and list(match.hands_won) == won
    assert match.result["reason"] == "target_reached"
    assert match.result["hand_points"] == points and match.result["hands_won"] == won
    assert match.result["hands_played"] == len(played)
    _assert_replayable(match)
    _assert_dealers(match)
    for seat in (0, 1):
        assert game.final_views[seat]["match"]["hand_points"] == points


@pytest.mark.parametrize("target", [50, 100])
@pytest.mark.slow
def test_money_play_to_the_target_with_line_target_and_zero_point_bonuses(
    alice, bob, operator, seeds, target, finished_signals, django_capture_on_commit_callbacks
):
    room = RoomFactory(
        operator=operator,
        practice=True,
        money=True,
        target=target,
        stake_per_point_choices=[1, 2],
        cashier_min=500,
        cashier_max=5_000,
    )
    table = TableFactory(room=room)
    body = {"cashier_amount": "2000", "stake_per_point": "2"}
    with django_capture_on_commit_callbacks(execute=True):
        match, _, _ = _play(alice, bob, table, sit_body=body)
        match.refresh_from_db()
        _assert_finished_cleanly(match, finished_signals)
    assert finished_signals == [(Match, match.pk)]
    played = hand_outcomes(match)
    points, won = [0, 0], [0, 0]
    for _, outcome in played:
        if outcome.winner is not None:
            points[outcome.winner] += outcome.points
            won[outcome.winner] += 1
    reached = next(seat for seat in (0, 1) if points[seat] >= target)
    # R10 Money Play, computed here by hand: points + 25 per hand won + target bonus (100, or
    # 50 in a 50-point game) + the same again when the other player scored nothing.
    bonus = 50 if target == 50 else 100
    totals = [
        points[seat]
        + 25 * won[seat]
        + (bonus if seat == reached else 0)
        + (bonus if seat == reached and points[1 - seat] == 0 else 0)
        for seat in (0, 1)
    ]
    money = match.result["money_play"]
    assert money["totals"] == totals
    assert money["hand_points"] == points and match.result["hands_won"] == won
    assert money["reached_target"] == match.result["reached_target"] == reached
    expected_winner = None if totals[0] == totals[1] else totals.index(max(totals))
    assert match.winner_seat == money["winner"] == expected_winner
    assert money["point_difference"] == abs(totals[0] - totals[1])
    assert match.result["stake_per_point"] == 2
    assert [seat["amount"] for seat in match.result["seats"]] == [2000, 2000]
    _assert_replayable(match)
    _assert_dealers(match)


@pytest.mark.slow
def test_random_legal_play_also_runs_to_a_result(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    """Players choosing at random among their legal actions (upcard takes, discard draws,
    passes, odd discards), going out whenever they may: the game still ends, every hand
    replays, nothing leaks."""
    rng = random.Random(5)

    def policy(hand: dict) -> dict:
        out = [a for a in hand["legal_actions"] if a["kind"] in ("knock", "big_gin")]
        return rng.choice(out or hand["legal_actions"])

    table = TableFactory(room=RoomFactory(operator=operator, practice=True, ftk=True, stake=50))
    with django_capture_on_commit_callbacks(execute=True):
        match, _, _ = _play(alice, bob, table, policy=policy)
    match.refresh_from_db()
    assert match.status in (Match.Status.FINISHED, Match.Status.SETTLED)  # settlement ran
    _assert_replayable(match)


def test_the_signal_is_not_sent_when_the_transaction_rolls_back(
    alice, bob, practice_table, seeds, finished_signals, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as captured:
        match_id, seats = seat_both(alice, bob, practice_table.pk)
        seats[0].post(f"/api/v1/tables/{practice_table.pk}/leave")
    assert Match.objects.get(pk=match_id).status == Match.Status.FINISHED
    # Queued for the commit (besides the pushes to sockets, and the wallet's notice that the
    # players' money moved), never run: the test rolls back.
    pushes = {publisher.__name__, wallet_signals.__name__}  # their own commit hooks
    announcements = [c for c in captured if getattr(c, "func", c).__module__ not in pushes]
    assert len(announcements) == 1
    assert finished_signals == []


@pytest.mark.slow
def test_a_finished_match_still_shows_both_players_the_result(
    alice, bob, practice_table, seeds, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        match, game, seats = _play(alice, bob, practice_table)
    match.refresh_from_db()
    for seat in (0, 1):
        again = view(seats[seat], match.pk).json()
        assert again["match"]["status"] == match.status  # finished, or settled since
        again["match"]["status"] = game.final_views[seat]["match"]["status"]
        assert again == game.final_views[seat]
        assert again["hand"]["your_turn"] is False


@pytest.mark.django_db(transaction=True)
def test_the_signal_fires_once_after_a_real_commit(
    alice, bob, practice_table, seeds, finished_signals
):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    assert finished_signals == []
    seats[0].post(f"/api/v1/tables/{practice_table.pk}/leave")
    assert finished_signals == [(Match, match_id)]
    seats[1].post(f"/api/v1/tables/{practice_table.pk}/leave")  # not seated any more
    assert finished_signals == [(Match, match_id)]
