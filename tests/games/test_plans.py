"""Games' repeated statements on growing tables keep plans that read the open rows only, in
the generic plan a long-lived connection settles on (tests.plans): the turn-timer sweep
reads open turns, not every hand ever dealt; seating reads a table's open game, not every
game the table hosted."""

import json

import pytest
from django.db import connection

from games.models import Hand, Match, Table
from games.selectors import table_open_match
from games.services.timers import turn_timers_expire
from tests.games.factories import RoomFactory, TableFactory
from tests.plans import copies, indexes_used, run_and_plan, sequential_scans
from tests.settlement.helpers import seat_two

# Committed rows, vacuumed: the rows earlier tests inserted and rolled back stay in the
# tables as dead rows until a VACUUM, which cannot run inside a test's transaction, and the
# plans they make are not production's (autovacuum).
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def history(operator) -> Match:
    """A running game at one of 100 tables that have hosted 3,000 games, with 3,000 hands."""
    table = TableFactory(
        room=RoomFactory(operator=operator, variant="ftk", target=None, timeouts_forfeit=True)
    )
    match = seat_two(table)
    hand = Hand.objects.get(match=match)
    copies(Table, of=table.pk, count=99, changes={})
    copies(
        Match,
        of=match.pk,
        count=3000,
        changes={
            "status": "CASE WHEN mod(i, 10) = 0 THEN 'aborted' ELSE 'settled' END",
            "result": "CASE WHEN mod(i, 10) = 0 THEN NULL ELSE '{}'::jsonb END",
            "finished_at": "row.created_at",
            # 100 tables of 30 games each: a lobby's worth of history
            "table_id": "(SELECT min(id) FROM games_table) + mod(i, 100)",
        },
    )
    copies(
        Hand,
        of=hand.pk,
        count=3000,
        changes={
            "number": "row.number + i",
            "status": "'ended'",
            "turn_deadline": "NULL",
            "ended_at": "row.created_at",
        },
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE games_hand, games_match, games_table")
    return match


def test_the_turn_timer_sweep_reads_the_open_turns_by_their_deadline(history):
    # After the heartbeat's and the outages' reads (R13): the expired turns.
    _, plan = run_and_plan(turn_timers_expire, reading='"games_hand"')
    assert "hand_open_turn_deadline" in indexes_used(plan), json.dumps(plan, indent=1)
    assert not sequential_scans(plan, "games_hand")


def test_seating_finds_a_tables_open_game_without_reading_its_past_games(history):
    table = history.table
    found, plan = run_and_plan(lambda: table_open_match(table))
    assert found == history
    assert "match_table_status" in indexes_used(plan)
    assert not sequential_scans(plan, "games_match")
