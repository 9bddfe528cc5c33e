"""A reality check due at the deal pauses its seat's turn clock (docs/player-protection.md
"At the table"): the seat's moves are refused while it waits, the game view shows the stage
``paused``, and the answer lets the clock run on. The stage is stored whole: ``paused`` is
longer than R13's own stages, which PostgreSQL, unlike SQLite, holds the column to."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Hand
from protection.models import PlaySession
from tests.games.helpers import act, never_going_out, seat_both, view
from tests.helpers import assert_problem
from tests.protection.conftest import under

pytestmark = pytest.mark.django_db


def test_a_check_due_at_the_deal_pauses_the_seats_clock_until_it_is_answered(
    operator, alice, bob, match_table, django_capture_on_commit_callbacks
):
    under(operator, "es")
    for client in (alice, bob):
        limits = {"duration_minutes": 120, "loss_limit": "20.00"}
        assert client.post("/api/v1/me/play-session", limits, format="json").status_code == 201
    due = timezone.now() - timedelta(seconds=1)
    PlaySession.objects.filter(player=alice.player).update(next_reality_check_at=due)
    match_id, seats = seat_both(alice, bob, match_table.pk)
    mine = next(seat for seat in (0, 1) if seats[seat] is alice)
    for _ in range(3):  # Bob plays until it is Alice's turn: her clock stops there
        hand = view(alice, match_id).json()["hand"]
        if hand["to_act"] == mine:
            break
        theirs = view(bob, match_id).json()
        move = never_going_out(theirs["hand"])
        assert act(bob, match_id, **move, expected_seq=theirs["seq"]).status_code == 200
    game = view(alice, match_id).json()
    assert game["hand"]["to_act"] == mine and game["hand"]["turn_stage"] == "paused"
    assert Hand.objects.get(match_id=match_id).turn_stage == "paused"
    move = never_going_out(game["hand"])
    assert_problem(
        act(alice, match_id, **move, expected_seq=game["seq"]), 409, "reality-check-open"
    )

    check = alice.get("/api/v1/me/play-session").json()["session"]["reality_check"]
    with django_capture_on_commit_callbacks(execute=True):  # the table follows on commit
        answer = alice.post(
            f"/api/v1/me/reality-checks/{check['id']}", {"answer": "continue"}, format="json"
        )
    assert answer.status_code == 200, answer.content
    game = view(alice, match_id).json()
    assert game["hand"]["turn_stage"] == "turn"
    assert act(alice, match_id, **move, expected_seq=game["seq"]).status_code == 200
