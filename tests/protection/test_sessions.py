"""Play sessions per jurisdiction profile (docs/player-protection.md "Sessions"), through
the API: limits before the first buy-in where the profile asks for them, the net position
from the ledger, a reached duration or loss limit ending the session and the game in
progress as the profile says, and no new buy-in after it."""

from __future__ import annotations

import pytest

from games.models import Match
from gin_platform.models import AuditEvent, OperatorEvent
from protection.models import PlaySession
from protection.services.sweep import play_sessions_sweep
from tests.factories import SYSTEM
from tests.games.helpers import act, never_going_out, play_to_end, seat_both, sit, view
from tests.helpers import assert_problem
from tests.protection.conftest import under
from wallet import services as wallet_services
from wallet.models import LedgerTransaction
from wallet.selectors import balances

pytestmark = pytest.mark.django_db

SESSION = "/api/v1/me/play-session"


def start(client, **limits):
    return client.post(SESSION, limits, format="json")


def state(client) -> dict:
    response = client.get(SESSION)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_es_profile_asks_for_both_limits_before_the_first_real_money_seat(
    operator, alice, match_table, practice_table
):
    under(operator, "es")
    before = LedgerTransaction.objects.count()
    assert_problem(sit(alice, match_table.pk), 409, "session-limits-required")
    assert LedgerTransaction.objects.count() == before  # nothing moved
    assert state(alice)["profile"]["session_limits_required"] is True
    # Practice is no gambling: no session needed.
    assert sit(alice, practice_table.pk).status_code == 201
    # Both limits, or neither counts.
    problem = assert_problem(start(alice, duration_minutes=60), 422, "session-limits-invalid")
    assert problem["field"] == "loss_limit"
    response = start(alice, duration_minutes=60, loss_limit="20.00")
    assert response.status_code == 201, response.content
    session = response.json()["session"]
    assert session["duration_limit_minutes"] == 60
    assert session["loss_limit"] == {"amount": "20.00", "currency": "EUR"}
    assert session["reality_check_minutes"] == 60
    assert sit(alice, match_table.pk).status_code == 201
    # A session that bought in keeps its limits.
    assert_problem(start(alice, duration_minutes=600, loss_limit="900.00"), 409, "session-active")
    assert OperatorEvent.objects.filter(type="session.started").count() == 1


@pytest.mark.parametrize("jurisdiction", ["uk", "it", "mga", "none"])
def test_other_profiles_start_a_session_at_the_first_buy_in(
    operator, alice, match_table, jurisdiction
):
    under(operator, jurisdiction)
    assert state(alice)["session"] is None
    assert sit(alice, match_table.pk).status_code == 201
    session = state(alice)["session"]
    assert session["state"] == "open" and session["duration_limit_minutes"] is None
    # The stake is at the table: in play, not won or lost yet (from the ledger).
    assert session["net_position"] == {"amount": "0.00", "currency": "EUR"}
    assert session["in_play"] == {"amount": "5.00", "currency": "EUR"}
    minutes = {"uk": 60, "it": 60, "mga": 60, "none": None}[jurisdiction]
    assert session["reality_check_minutes"] == minutes


def test_a_buy_in_that_could_pass_the_session_loss_limit_is_refused(
    operator, alice, bob, match_table, make_player_client
):
    under(operator, "uk")
    assert start(alice, loss_limit="7.00").status_code == 201
    assert sit(alice, match_table.pk).status_code == 201
    other = type(match_table).objects.create(room=match_table.room)
    problem = assert_problem(sit(alice, other.pk), 422, "limit-exceeded")
    assert problem["limit"] == "session_loss"
    assert problem["remaining"] == {"amount": "2.00", "currency": "EUR"}


def _duration_reached(clock, commits, session_id: int, minutes: int) -> None:
    clock.advance(minutes=minutes, seconds=1)
    with commits(execute=True):  # what follows at the tables, after the commit
        sweep = play_sessions_sweep()
    assert session_id in sweep.limits_reached


def test_es_a_reached_duration_ends_the_session_and_the_game_after_its_hand(
    operator, alice, bob, match_table, clock, seeds, django_capture_on_commit_callbacks
):
    under(operator, "es")
    assert start(alice, duration_minutes=30, loss_limit="50.00").status_code == 201
    assert start(bob, duration_minutes=240, loss_limit="50.00").status_code == 201
    match_id, seats = seat_both(alice, bob, match_table.pk)
    session = PlaySession.objects.get(player=alice.player)
    before = {c: balances.wallet_balance(player=c.player) for c in (alice, bob)}
    _duration_reached(clock, django_capture_on_commit_callbacks, session.pk, 30)
    session.refresh_from_db()
    assert session.state == "ended" and session.end_reason == "duration_limit"
    assert OperatorEvent.objects.filter(type="session.limit_reached").count() == 1
    match = Match.objects.get(pk=match_id)
    assert match.clocks["stop_after_hand"] == "duration_limit"
    # No new buy-in: the session ended, and es asks for a new one's limits first.
    other = type(match_table).objects.create(room=match_table.room)
    assert_problem(sit(alice, other.pk), 409, "session-limits-required")
    # The hand in play is played out; then the match is voided, forfeit-free.
    with django_capture_on_commit_callbacks(execute=True):  # the void queued on commit
        game = play_to_end(seats, match_id, policy=never_going_out)
    assert game.final_views[0]["match"]["status"] == "suspended"  # no move reaches it
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED and match.hands.count() == 1
    after = {c: balances.wallet_balance(player=c.player) for c in (alice, bob)}
    assert {c: after[c] - before[c] for c in after} == {alice: 500, bob: 500}  # stakes back
    assert LedgerTransaction.objects.filter(reference=f"void:match:{match_id}").count() == 1
    assert AuditEvent.objects.filter(action="match.voided", object_id=str(match_id)).exists()


def test_uk_a_reached_duration_finishes_the_match_and_takes_no_new_buy_in(
    operator, alice, bob, match_table, clock, seeds, django_capture_on_commit_callbacks
):
    under(operator, "uk")
    assert start(alice, duration_minutes=20).status_code == 201
    match_id, seats = seat_both(alice, bob, match_table.pk)
    session = PlaySession.objects.get(player=alice.player)
    _duration_reached(clock, django_capture_on_commit_callbacks, session.pk, 20)
    session.refresh_from_db()
    assert session.state == "limit_reached" and session.ended_at is None
    assert "stop_after_hand" not in Match.objects.get(pk=match_id).clocks
    other = type(match_table).objects.create(room=match_table.room)
    problem = assert_problem(sit(alice, other.pk), 403, "session-limit-reached")
    assert problem["limit"] == "duration"
    game = play_to_end(seats, match_id)
    assert game.final_views[0]["match"]["status"] in ("finished", "settled")
    # The player ends the session; a new one may start.
    assert alice.post(f"{SESSION}/end").json()["session"] is None
    assert sit(alice, other.pk).status_code == 201


def test_es_a_reached_loss_limit_ends_the_session(
    operator, alice, bob, match_table, seeds, django_capture_on_commit_callbacks
):
    under(operator, "es")
    for client in (alice, bob):
        assert start(client, duration_minutes=120, loss_limit="5.00").status_code == 201
    match_id, seats = seat_both(alice, bob, match_table.pk)
    # Until the game is settled nobody has lost: the stakes are in play.
    assert play_sessions_sweep().limits_reached == []
    with django_capture_on_commit_callbacks(execute=True):  # the settlement, on commit
        play_to_end(seats, match_id)
    loser = next(c for c in (alice, bob) if balances.wallet_balance(player=c.player) < 100_000)
    sweep = play_sessions_sweep()
    session = PlaySession.objects.get(player=loser.player)
    assert sweep.limits_reached == [session.pk]
    assert session.end_reason == "loss_limit" and session.final_net == -500
    assert session.state == "ended"
    assert play_sessions_sweep().limits_reached == []  # once


def test_practice_and_bots_never_touch_a_session(operator, alice, practice_table):
    under(operator, "es")
    response = sit(alice, practice_table.pk)
    assert response.status_code == 201
    assert not PlaySession.objects.exists()
    assert view(alice, response.json()["match_id"]).status_code == 200
    assert act  # the helpers are the games tests' own


def test_a_break_ends_the_session_and_refuses_the_next_buy_in(operator, alice, match_table):
    under(operator, "uk")
    assert sit(alice, match_table.pk).status_code == 201
    session = PlaySession.objects.get(player=alice.player)
    wallet_services.self_exclusion_create(player=alice.player, days=200, actor=SYSTEM)
    other = type(match_table).objects.create(room=match_table.room)
    assert_problem(sit(alice, other.pk), 403, "self-excluded")
    sweep = play_sessions_sweep()
    assert sweep.break_ended == [session.pk]
    session.refresh_from_db()
    assert session.end_reason == "break" and session.state == "ended"
    assert OperatorEvent.objects.filter(type="session.ended").count() == 1


def test_es_a_session_ended_takes_the_player_from_a_table_still_waiting(
    operator, alice, match_table, django_capture_on_commit_callbacks
):
    under(operator, "es")
    assert start(alice, duration_minutes=60, loss_limit="20.00").status_code == 201
    seat = sit(alice, match_table.pk).json()
    assert seat["match_status"] == "waiting"
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.post(f"{SESSION}/end").status_code == 200
    # The buy-in back, the seat left: nobody starts a game with a player whose session ended.
    assert balances.wallet_balance(player=alice.player) == 100_000
    assert balances.escrow_balance(game_ref=f"match:{seat['match_id']}", currency="EUR") == 0
    assert Match.objects.get(pk=seat["match_id"]).seats.get().state == "left"
