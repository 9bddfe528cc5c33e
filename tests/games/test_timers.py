"""R10 "Leaving, timing out": every turn has a deadline; the beat job
forfeits a turn left to expire, and settlement pays the opponent; a move that races the
timer either applies or loses, never both; a player may resign."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games import services, tasks
from games.models import Hand, HandEvent, Match
from games.problems import StaleSequenceProblem
from settlement.models import Settlement
from tests.conftest import SYSTEM
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, play_to_end, seat_both, snapshot, view
from tests.games.test_concurrency import action_poster, match_locker, race_holding, running_match
from tests.wallet.factories import fund
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


def _expire(match_id: int, *, ago: timedelta = timedelta(minutes=1)) -> None:
    Hand.objects.filter(match_id=match_id, status=Hand.Status.IN_PROGRESS).update(
        turn_deadline=timezone.now() - ago
    )


def _money_game(alice, bob, operator):
    """A real-money Match Play game (5.00 EUR each, 5% fee), just dealt."""
    for client in (alice, bob):
        fund(client.player, 1_000)
    table = TableFactory(
        room=RoomFactory(operator=operator, stake=500, target=100, timeouts_forfeit=True)
    )
    match_id, seats = seat_both(alice, bob, table.pk)
    look = view(seats[0], match_id).json()
    return match_id, seats, look["hand"]["to_act"], look["seq"]


def test_the_beat_schedule_runs_the_timer_every_few_seconds():
    entry = settings.CELERY_BEAT_SCHEDULE["expire-turns"]
    assert entry["task"] == "games.tasks.expire_turns" and entry["schedule"] <= 10
    assert tasks.expire_turns.name == "games.tasks.expire_turns"
    assert "settle-stragglers" in settings.CELERY_BEAT_SCHEDULE  # the others stay


@pytest.mark.slow
def test_every_turn_change_sets_a_fresh_deadline(alice, bob, operator, seeds):
    table = TableFactory(
        room=RoomFactory(operator=operator, practice=True, stake=100, timeouts_forfeit=True)
    )
    match_id, seats = seat_both(alice, bob, table.pk)
    turn_seconds = Match.objects.get(pk=match_id).turn_seconds
    seen: list[tuple[int, int, object]] = []  # (hand number, to_act, deadline)

    def record(response, seat):
        hand = Hand.objects.filter(match_id=match_id, status="in_progress").first()
        if hand is None:
            return
        assert hand.turn_deadline is not None, "a turn without a deadline"
        key = (hand.number, hand.to_act, hand.turn_deadline)
        if not seen or seen[-1][:2] != key[:2]:  # a new turn: a full turn time from now
            left = (hand.turn_deadline - timezone.now()).total_seconds()
            assert turn_seconds - 10 < left <= turn_seconds, left
        if not seen or seen[-1] != key:
            seen.append(key)

    play_to_end(seats, match_id, on_response=record)
    for before, after in itertools.pairwise(seen):
        if after[:2] != before[:2]:  # a new turn (or a new deal): a new, later deadline
            assert after[2] > before[2]
        else:  # the same turn (draw, then discard): the same deadline
            assert after[2] == before[2]
    assert len({key[:2] for key in seen}) > 4
    assert not Hand.objects.filter(match_id=match_id, turn_deadline__isnull=False).exclude(
        status="in_progress"
    )


def test_a_turn_left_to_expire_forfeits_the_game_and_settles_it(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    match_id, seats, to_act, _seq = _money_game(alice, bob, operator)
    _expire(match_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.expire_turns() == 1
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.SETTLED
    assert (match.forfeit_seat, match.forfeit_reason) == (to_act, "timeout")
    assert match.winner_seat == 1 - to_act and match.result["reason"] == "forfeit"
    assert match.result["forfeit"] == {"seat": to_act, "reason": "timeout"}
    assert match.hands.get().status == Hand.Status.ABANDONED
    settlement = Settlement.objects.get(match=match)
    assert settlement.fee == 50  # 5% of the 10.00 EUR pot
    winner, loser = seats[1 - to_act].player, seats[to_act].player
    assert balances.wallet_balance(player=winner) == 1_000 - 500 + 950
    assert balances.wallet_balance(player=loser) == 500
    assert balances.escrow_balance(game_ref=match.game_ref, currency="EUR") == 0
    events = [e.kind for e in HandEvent.objects.filter(match=match).order_by("match_seq")]
    assert events[-2:] == ["forfeit", "match_finished"]
    assert tasks.expire_turns() == 0  # nothing left to expire


def test_a_turn_within_its_time_or_grace_is_left_alone(alice, bob, operator, seeds):
    match_id, _seats, _to_act, _seq = _money_game(alice, bob, operator)
    before = snapshot(match_id)
    assert services.turn_timers_expire().forfeited == []
    _expire(match_id, ago=services.turn_grace() - timedelta(milliseconds=500))
    assert services.turn_timers_expire().forfeited == []
    assert snapshot(match_id)["events"] == before["events"]
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING


def test_a_move_committed_before_the_timer_wins(alice, bob, operator, seeds):
    match_id, seats, to_act, seq = _money_game(alice, bob, operator)
    _expire(match_id)
    stale = (match_id, to_act, seq)  # what the sweep read, an instant before the move
    assert act(seats[to_act], match_id, kind="pass", expected_seq=seq).status_code == 200
    with pytest.raises(StaleSequenceProblem):
        services.match_forfeit(
            match=stale[0], seat=stale[1], reason="timeout", expected_seq=stale[2], actor=SYSTEM
        )
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.RUNNING and match.forfeit_seat is None
    # The next turn has a fresh deadline: the sweep leaves it alone.
    assert services.turn_timers_expire().forfeited == []


def test_a_move_arriving_after_the_timer_fired_loses(alice, bob, operator, seeds):
    match_id, seats, to_act, seq = _money_game(alice, bob, operator)
    _expire(match_id)
    assert services.turn_timers_expire().forfeited == [match_id]
    response = act(seats[to_act], match_id, kind="pass", expected_seq=seq)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/stale-sequence"
    assert not HandEvent.objects.filter(match_id=match_id, kind="pass").exists()


def test_a_player_may_resign_and_the_opponent_wins(alice, bob, operator, seeds):
    match_id, seats, to_act, _seq = _money_game(alice, bob, operator)
    waiting = 1 - to_act  # resigning does not need to be one's turn
    response = seats[waiting].post(f"/api/v1/matches/{match_id}/resign", {}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["match"]["status"] == "finished"
    assert body["match"]["forfeit"] == {"seat": waiting, "reason": "resigned"}
    assert body["match"]["winner_seat"] == to_act
    assert body["hand"]["status"] == "abandoned" and body["hand"]["seed"]
    again = seats[waiting].post(f"/api/v1/matches/{match_id}/resign", {}, format="json")
    assert again.status_code == 409
    assert again.json()["type"] == "/problems/match-not-in-progress"


def test_resigning_with_a_stale_sequence_or_someone_elses_game_changes_nothing(
    alice, bob, make_player_client, operator, seeds
):
    match_id, seats, _to_act, seq = _money_game(alice, bob, operator)
    stranger = make_player_client()
    before = snapshot(match_id)
    stale = seats[0].post(
        f"/api/v1/matches/{match_id}/resign", {"expected_seq": seq + 5}, format="json"
    )
    assert stale.status_code == 409 and stale.json()["type"] == "/problems/stale-sequence"
    assert stranger.post(f"/api/v1/matches/{match_id}/resign").status_code == 404
    assert snapshot(match_id) == before
    ok = seats[0].post(f"/api/v1/matches/{match_id}/resign", {"expected_seq": seq}, format="json")
    assert ok.status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_racing_the_timer_either_applies_or_loses(operator, seeds):
    outcomes = set()
    for _ in range(4):
        match_id, players, to_act, seq = running_match(operator, timeouts_forfeit=True)
        _expire(match_id)
        move, sweep = race_holding(
            [action_poster(players[to_act], match_id, "pass", seq), services.turn_timers_expire],
            hold=match_locker(match_id),
        )
        match = Match.objects.get(pk=match_id)
        applied = HandEvent.objects.filter(match_id=match_id, kind="pass").count()
        forfeited = match.forfeit_seat is not None
        if move.status_code == 200:
            assert (applied, forfeited) == (1, False)
            assert sweep.forfeited == [] and sweep.skipped == [match_id]
            assert match.status == Match.Status.RUNNING
            outcomes.add("move")
        else:
            assert move.status_code == 409, move.content
            assert move.json()["type"] == "/problems/stale-sequence"
            assert (applied, forfeited) == (0, True)
            assert sweep.forfeited == [match_id]
            assert match.forfeit_reason == "timeout"
            assert match.status == Match.Status.SETTLED  # settled on commit, eagerly
            outcomes.add("timer")
        # Never both: exactly one change after the sequence the two raced for.
        assert HandEvent.objects.filter(match_id=match_id, match_seq=seq + 1).count() == 1
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).update(
            status=Match.Status.ABORTED, finished_at=timezone.now()
        )
    assert outcomes
