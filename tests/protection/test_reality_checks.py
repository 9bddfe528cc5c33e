"""Reality checks (docs/player-protection.md "Reality checks"), on a frozen clock moved by
the test: due every interval of the profile, shown at the first turn boundary after the due
time (never before, never between boundaries), with the turn clock of the seat to act paused
while it waits, answered continue (the clock runs on, the next check one interval later) or
end_session; away from the tables the sweep shows it at once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Hand, Match
from games.services.timers import turn_timers_expire
from gin_platform.models import OperatorEvent
from protection.models import PlaySession, RealityCheck
from protection.services.sweep import play_sessions_sweep
from tests.games.helpers import act, seat_both, sit, view
from tests.helpers import assert_problem
from tests.protection.conftest import under

pytestmark = pytest.mark.django_db

SESSION = "/api/v1/me/play-session"


def hand_of(match_id: int) -> Hand:
    return Hand.objects.get(match_id=match_id, status=Hand.Status.IN_PROGRESS)


def move(client, match_id: int):
    """The seat to act passes the turn (the upcard offer: pass; then draw and discard)."""
    mine = view(client, match_id).json()
    kinds = {a["kind"]: a for a in mine["hand"]["legal_actions"]}
    if "pass" in kinds:
        return act(client, match_id, kind="pass", expected_seq=mine["seq"])
    if "draw_stock" in kinds:
        drawn = act(client, match_id, kind="draw_stock", expected_seq=mine["seq"])
        assert drawn.status_code == 200, drawn.json()
        mine = view(client, match_id).json()
        kinds = {a["kind"]: a for a in mine["hand"]["legal_actions"]}
    discard = next(a for a in mine["hand"]["legal_actions"] if a["kind"] == "discard")
    return act(client, match_id, kind="discard", card=discard["card"], expected_seq=mine["seq"])


def to_act(seats, match_id: int):
    return seats[hand_of(match_id).to_act]


def answer(client, check_id: int, reply: str):
    return client.post(f"/api/v1/me/reality-checks/{check_id}", {"answer": reply}, format="json")


@pytest.fixture
def uk_game(operator, alice, bob, match_table, clock, seeds):
    under(operator, "uk")
    match_id, seats = seat_both(alice, bob, match_table.pk)
    return match_id, seats


def test_a_check_comes_at_the_first_turn_boundary_after_its_due_time(uk_game, clock):
    match_id, seats = uk_game
    clock.advance(minutes=59)
    assert move(to_act(seats, match_id), match_id).status_code == 200
    assert not RealityCheck.objects.exists()  # not due yet
    clock.advance(minutes=2)  # due now, but no turn boundary yet: nothing shown
    assert not RealityCheck.objects.exists()
    hand = hand_of(match_id)
    assert hand.turn_stage == "turn"
    mover = to_act(seats, match_id)
    assert move(mover, match_id).status_code == 200  # the boundary
    checks = {c.player_id: c for c in RealityCheck.objects.all()}
    assert set(checks) == {seats[0].player.pk, seats[1].player.pk}
    shown = checks[mover.player.pk]
    assert shown.shown_at == clock.moment and shown.elapsed_seconds == 61 * 60
    assert shown.net_position == 0
    assert OperatorEvent.objects.filter(type="session.reality_check").count() == 2
    # The seat now to act: its clock paused while its check waits; its moves refused.
    hand = hand_of(match_id)
    assert hand.turn_stage == "pause"
    assert hand.turn_deadline == clock.moment + timedelta(seconds=120)
    waiting = to_act(seats, match_id)
    mine = view(waiting, match_id).json()
    legal = mine["hand"]["legal_actions"][0]
    tried = act(waiting, match_id, kind=legal["kind"], card=legal["card"], expected_seq=mine["seq"])
    assert_problem(tried, 409, "reality-check-open")
    body = waiting.get(SESSION).json()["session"]["reality_check"]
    assert body["id"] == checks[waiting.player.pk].pk
    assert body["elapsed_seconds"] == 61 * 60 and body["answers"] == ["continue", "end_session"]
    assert body["links"] == {"history": "/api/v1/me/history/summary", "limits": SESSION}


def test_continue_runs_the_clock_on_and_the_next_check_comes_an_interval_later(
    uk_game, clock, django_capture_on_commit_callbacks
):
    match_id, seats = uk_game
    clock.advance(minutes=61)
    move(to_act(seats, match_id), match_id)
    waiting = to_act(seats, match_id)
    check = RealityCheck.objects.get(player=waiting.player)
    clock.advance(seconds=40)  # the clock stood still while the check was shown
    with django_capture_on_commit_callbacks(execute=True):
        response = answer(waiting, check.pk, "continue")
    assert response.status_code == 200, response.content
    assert response.json()["answer"] == "continue"
    hand = hand_of(match_id)
    assert hand.turn_stage == "turn"
    assert hand.turn_deadline == clock.moment + timedelta(seconds=30)  # the whole turn left
    session = PlaySession.objects.get(player=waiting.player)
    assert session.next_reality_check_at == clock.moment + timedelta(minutes=60)
    assert move(waiting, match_id).status_code == 200
    assert_problem(answer(waiting, check.pk, "continue"), 409, "reality-check-not-open")


def test_an_unanswered_check_pauses_the_clock_for_two_minutes_at_most(uk_game, clock):
    match_id, seats = uk_game
    clock.advance(minutes=61)
    move(to_act(seats, match_id), match_id)
    assert hand_of(match_id).turn_stage == "pause"
    clock.advance(seconds=119)
    assert turn_timers_expire().extended == []  # still paused
    clock.advance(seconds=4)  # past the pause and the timer's grace
    assert turn_timers_expire().extended == [match_id]
    hand = hand_of(match_id)
    assert hand.turn_stage == "turn"
    assert hand.turn_deadline == clock.moment + timedelta(seconds=30)
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING


def test_end_session_in_a_check_stops_the_game_after_the_hand_under_es(
    operator, alice, bob, match_table, clock, seeds, django_capture_on_commit_callbacks
):
    under(operator, "es")
    for client in (alice, bob):
        body = {"duration_minutes": 240, "loss_limit": "50.00"}
        assert client.post(SESSION, body, format="json").status_code == 201
    match_id, seats = seat_both(alice, bob, match_table.pk)
    clock.advance(minutes=61)
    move(to_act(seats, match_id), match_id)
    waiting = to_act(seats, match_id)
    check = RealityCheck.objects.get(player=waiting.player)
    with django_capture_on_commit_callbacks(execute=True):
        assert answer(waiting, check.pk, "end_session").status_code == 200
    session = PlaySession.objects.get(player=waiting.player)
    assert session.state == "ended" and session.end_reason == "player"
    match = Match.objects.get(pk=match_id)
    assert match.clocks["stop_after_hand"] == "player"
    assert waiting.player.pk not in set(match.clocks.get("reality_open") or ())
    assert hand_of(match_id).turn_stage == "turn"  # the clock runs: the hand is played out


@pytest.mark.parametrize("jurisdiction", ["none"])
def test_no_profile_no_checks_unless_the_operator_sets_an_interval(
    operator, alice, bob, match_table, clock, seeds, jurisdiction
):
    under(operator, jurisdiction)
    match_id, seats = seat_both(alice, bob, match_table.pk)
    clock.advance(hours=5)
    move(to_act(seats, match_id), match_id)
    assert not RealityCheck.objects.exists()
    assert Match.objects.get(pk=match_id).clocks["reality_due"] == [None, None]


def test_the_operator_chooses_the_interval_within_the_profile(
    operator, operator_client, alice, bob, match_table, clock, seeds
):
    under(operator, "uk")
    refused = operator_client.patch(
        "/api/v1/operators/me",
        {"reality_check_minutes": 90},
        format="json",
        HTTP_IDEMPOTENCY_KEY="interval-90",
    )
    problem = assert_problem(refused, 422, "reality-check-interval-invalid")
    assert (problem["minimum"], problem["maximum"]) == (15, 60)
    chosen = operator_client.patch(
        "/api/v1/operators/me",
        {"reality_check_minutes": 20},
        format="json",
        HTTP_IDEMPOTENCY_KEY="interval-20",
    )
    assert chosen.status_code == 200 and chosen.json()["reality_check_minutes"] == 20
    match_id, seats = seat_both(alice, bob, match_table.pk)
    clock.advance(minutes=21)
    move(to_act(seats, match_id), match_id)
    assert RealityCheck.objects.count() == 2


def test_away_from_the_tables_the_sweep_shows_the_check_at_once(
    operator, alice, match_table, clock
):
    under(operator, "mga")
    assert sit(alice, match_table.pk).status_code == 201  # waiting for an opponent
    clock.advance(minutes=60, seconds=5)
    sweep = play_sessions_sweep()
    (check,) = RealityCheck.objects.all()
    assert sweep.checks_shown == [check.pk] and check.player_id == alice.player.pk
    assert play_sessions_sweep().checks_shown == []  # once
    assert alice.get(SESSION).json()["session"]["reality_check"]["id"] == check.pk


def test_one_check_for_a_player_at_two_tables(
    operator, alice, bob, make_player_client, match_table, clock, seeds
):
    under(operator, "uk")
    carol = make_player_client(display_name="Carol")
    first, seats_one = seat_both(alice, bob, match_table.pk)
    other = type(match_table).objects.create(room=match_table.room)
    second, seats_two = seat_both(alice, carol, other.pk)
    clock.advance(minutes=61)
    move(to_act(seats_one, first), first)
    move(to_act(seats_two, second), second)
    assert RealityCheck.objects.filter(player=alice.player).count() == 1
    for match_id in (first, second):
        seat = next(
            p
            for p, c in (seats_one if match_id == first else seats_two).clients.items()
            if c is alice
        )
        assert seat in Match.objects.get(pk=match_id).clocks["reality_open"]
