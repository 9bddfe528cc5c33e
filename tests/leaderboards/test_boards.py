"""R15's leaderboards over the API on PostgreSQL (docs/leaderboards.md): by rating (the
period's last rating, provisional ratings left out, ties to the earlier then the screen name)
and by net tournament winnings (money prizes minus money paid in, one currency at a time);
who is on a board (opted in, a screen name, the operator's own, the network's members at its
tables), what a row shows to a player and to an operator, the pages, the refusals, and one
statement per page whatever the board's size."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from gin_platform.tenancy.services import api_key_create, network_membership_update
from leaderboards.periods import WEEK, period_of
from ratings.models import Family
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.helpers import assert_problem, operator_api, session_client
from tests.leaderboards.world import ended_tournament, rated_at
from tests.ratings.worlds import beats
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tournaments.models import Entry
from tournaments.services.registration import entry_register

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

# A whole ISO week two weeks back: the boards below read it with ?date=its Monday.
MONDAY = period_of(WEEK, timezone.now().date() - timedelta(days=14)).start


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment of that week: ``day`` 0 is its Monday."""
    return datetime(MONDAY.year, MONDAY.month, MONDAY.day, hour, minute, tzinfo=UTC) + timedelta(
        days=day
    )


def board(client, **query) -> dict:
    params = {"period": "week", "date": MONDAY.isoformat(), **query}
    response = client.get("/api/v1/leaderboards", params)
    assert response.status_code == 200, response.content
    return response.json()


def names(page: dict) -> list[str]:
    return [row["screen_name"] for row in page["results"]]


@pytest.fixture
def operator():
    return OperatorFactory()


def test_the_rating_board_ranks_the_weeks_last_ratings(operator) -> None:
    ann, bob, cat, dan, ivy = (
        PlayerFactory(operator=operator, screen_name=name)
        for name in ("Ann", "bob", "cat", "Dan", "Ivy")
    )
    rated_at(ann, rating=1700.0, at=at(1, 10))
    rated_at(ann, rating=1750.0, at=at(2, 10))  # her last of the week: 1750, two matches
    rated_at(ann, rating=1990.0, at=at(2, 11), family=Family.HEADS_UP_FTK)  # another family
    rated_at(bob, rating=1750.0, at=at(2, 9))  # as high as Ann, and there first
    rated_at(cat, rating=1600.0, at=at(3, 12))
    rated_at(dan, rating=1600.0, at=at(3, 12))  # the same figure at the same moment: by name
    rated_at(ivy, rating=1650.0, at=at(4, 20))
    rated_at(ivy, rating=1400.0, at=at(9, 20))  # the week after: not this week's figure
    # Off this board: provisional, opted out, no screen name, another operator's, last week.
    rated_at(
        PlayerFactory(operator=operator, screen_name="Eve"), rating=1900.0, rd=150.0, at=at(1, 8)
    )
    rated_at(
        PlayerFactory(operator=operator, screen_name="Fay", leaderboard_opt_out=True),
        rating=1800.0,
        at=at(1, 8),
    )
    rated_at(PlayerFactory(operator=operator, screen_name=None), rating=1810.0, at=at(1, 8))
    rated_at(PlayerFactory(screen_name="Hal"), rating=1820.0, at=at(1, 8))
    rated_at(PlayerFactory(operator=operator, screen_name="Jon"), rating=1830.0, at=at(-1, 8))

    as_ann = board(session_client(ann), family="heads_up_match")
    assert names(as_ann) == ["bob", "Ann", "Ivy", "cat", "Dan"]
    assert [row["rank"] for row in as_ann["results"]] == [1, 2, 3, 4, 5]
    first, second = as_ann["results"][:2]
    assert first["rating"] == second["rating"] == 1750.0
    assert second["me"] and second["matches"] == 2 and not first["me"]
    assert all(row["player_id"] is None for row in as_ann["results"])
    assert first["net"] is None and first["rd"] == 60.0
    assert as_ann["period"] == {
        "kind": "week",
        "label": f"{MONDAY.isocalendar()[0]}-W{MONDAY.isocalendar()[1]:02d}",
        "starts_at": at(0, 0).isoformat().replace("+00:00", "Z"),
        "ends_at": at(7, 0).isoformat().replace("+00:00", "Z"),
    }
    assert (as_ann["scope"], as_ann["board"], as_ann["family"]) == (
        "operator",
        "rating",
        "heads_up_match",
    )

    # The operator's key: the same board, its own players' ids beside their names.
    as_operator = board(operator_api(operator))
    assert names(as_operator) == names(as_ann)
    assert as_operator["results"][1]["player_id"] == str(ann.pk)
    assert not any(row["me"] for row in as_operator["results"])
    # Another family, another board; the week after, Ivy's later figure.
    assert names(board(session_client(ann), family="heads_up_ftk")) == ["Ann"]
    later = board(session_client(ann), date=(MONDAY + timedelta(days=7)).isoformat())
    assert [(r["screen_name"], r["rating"]) for r in later["results"]] == [("Ivy", 1400.0)]


def test_a_new_players_provisional_rating_is_not_ranked(operator) -> None:
    winner, loser = (PlayerFactory(operator=operator, screen_name=n) for n in ("Kim", "Lou"))
    beats(winner, loser, variant="match")  # a real rated match: both RD 290, provisional
    today = board(session_client(winner), date=timezone.now().date().isoformat())
    assert today["results"] == []


def test_the_winnings_board_nets_money_prizes_against_money_paid_in(operator) -> None:
    ann, bob, cat, dan, eve, fay = (
        PlayerFactory(operator=operator, screen_name=name)
        for name in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
    )
    ended_tournament(
        operator,
        at=at(2, 21),
        entries=[
            (ann, 1_100, 5_334),
            (bob, 1_100, 2_666),
            (cat, 1_100, 0),
            (dan, 1_100, 0, "ticket"),  # entered with a ticket: no money in
            (fay, 1_100, 0, "refunded"),  # withdrew: everything back
        ],
    )
    ended_tournament(operator, at=at(3, 21), entries=[(eve, 550, 1_100, "prize-ticket")])
    ended_tournament(operator, at=at(5, 22), entries=[(bob, 1_100, 0)], status="cancelled")
    ended_tournament(operator, at=at(4, 21), currency="USD", entries=[(ann, 1_000, 3_000)])
    ended_tournament(operator, at=at(8, 1), entries=[(cat, 1_100, 9_000)])  # the week after

    eur = board(session_client(ann), board="winnings", currency="EUR")
    rows = {row["screen_name"]: row for row in eur["results"]}
    assert names(eur) == ["Ann", "Bob", "Dan", "Eve", "Cat"]
    assert rows["Ann"]["net"] == {"amount": "42.34", "currency": "EUR"}
    assert rows["Bob"]["net"]["amount"] == "4.66" and rows["Bob"]["tournaments"] == 2
    assert rows["Bob"]["paid_in"]["amount"] == "22.00"
    assert rows["Dan"]["net"]["amount"] == "0.00" and rows["Dan"]["paid_in"]["amount"] == "0.00"
    assert rows["Eve"]["net"]["amount"] == "-5.50" and rows["Eve"]["prizes"]["amount"] == "0.00"
    assert rows["Cat"]["net"]["amount"] == "-11.00"
    assert rows["Ann"]["me"] and rows["Ann"]["rating"] is None
    assert eur["currency"] == "EUR" and eur["family"] is None
    usd = board(session_client(ann), board="winnings", currency="USD")
    assert [(r["screen_name"], r["net"]) for r in usd["results"]] == [
        ("Ann", {"amount": "20.00", "currency": "USD"})
    ]
    # No currency named: the player's wallet's (the operator's base currency here, EUR).
    assert names(board(session_client(bob), board="winnings")) == names(eur)


def test_a_tournament_played_out_counts_for_its_winner_and_loser(operator) -> None:
    first, second = (funded_player(operator, screen_name=n) for n in ("Mia", "Ned"))
    tournament = sit_and_go(operator, entries=2)
    for player in (first, second):
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament)
    winner = Entry.objects.get(tournament=tournament, place_from=1)
    page = board(
        session_client(first),
        board="winnings",
        period="day",
        date=timezone.now().date().isoformat(),
    )
    rows = {row["screen_name"]: row["net"]["amount"] for row in page["results"]}
    won = "Mia" if winner.player_id == first.pk else "Ned"
    lost = "Ned" if won == "Mia" else "Mia"
    assert rows == {won: "9.00", lost: "-11.00"}  # 20.00 in the pool, 11.00 each paid in


def test_the_network_board_holds_member_players_at_network_tables_by_screen_name(operator) -> None:
    network_make()
    room = network_room_make()
    alpha, bravo = member_make(name="Alpha"), member_make(name="Bravo")
    ada = PlayerFactory(operator=alpha, screen_name="Ada", display_name="Ada Alpha")
    ben = PlayerFactory(operator=bravo, screen_name="Ben", display_name="Ben Bravo")
    amy = PlayerFactory(operator=alpha, screen_name="Amy")  # only at Alpha's own tables
    rated_at(ada, rating=1700.0, at=at(1, 10), room=room)
    rated_at(ben, rating=1720.0, at=at(1, 11), room=room)
    rated_at(ben, rating=1760.0, at=at(2, 11))  # his last of the week, at Bravo's own table
    rated_at(amy, rating=1800.0, at=at(1, 12))
    network_owner = room.operator
    ended_tournament(network_owner, at=at(3, 20), entries=[(ada, 1_100, 2_000), (ben, 1_100, 200)])
    ended_tournament(alpha, at=at(3, 20), entries=[(amy, 1_100, 5_000)])

    as_ada = session_client(ada)
    network = board(as_ada, scope="network")
    assert [(r["screen_name"], r["rating"]) for r in network["results"]] == [
        ("Ben", 1760.0),
        ("Ada", 1700.0),
    ]
    assert names(board(as_ada)) == ["Amy", "Ada"]  # Alpha's own board: Ben is Bravo's
    winnings = board(as_ada, scope="network", board="winnings", currency="EUR")
    assert names(winnings) == ["Ada", "Ben"]
    assert names(board(as_ada, board="winnings", currency="EUR")) == ["Amy", "Ada"]

    # Alpha's key: its own player's id, Bravo's player by screen name only.
    alpha_api = operator_api(alpha)
    for kind in ("rating", "winnings"):
        shown = board(alpha_api, scope="network", board=kind, currency="EUR")
        ids = {row["screen_name"]: row["player_id"] for row in shown["results"]}
        assert ids == {"Ada": str(ada.pk), "Ben": None}
        text = json.dumps(shown) + json.dumps(board(as_ada, scope="network", board=kind))
        secrets = [str(ben.pk), ben.external_ref, ben.display_name, str(bravo.pk), bravo.name]
        assert [secret for secret in secrets if secret in text] == []
    # An operator outside the network has no network board.
    outsider = session_client(PlayerFactory(operator=operator, screen_name="Out"))
    refused = outsider.get("/api/v1/leaderboards", {"scope": "network"})
    assert_problem(refused, 403, "leaderboard-network-closed")
    assert_problem(
        operator_api(operator).get("/api/v1/leaderboards?scope=network"),
        403,
        "leaderboard-network-closed",
    )


def test_a_board_reads_in_one_statement_whatever_its_size(operator) -> None:
    me = PlayerFactory(operator=operator, screen_name="Me0")
    client = session_client(me)

    def statements(**query) -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            board(client, page_size=50, **query)
        sql = [query["sql"] for query in queries.captured_queries]
        reads = [q for q in sql if "ratings_ratingchange" in q or "tournaments_entry" in q]
        return len(sql), len(reads)

    def grow(count: int, start: int) -> None:
        for number in range(start, start + count):
            player = PlayerFactory(operator=operator, screen_name=f"P{number}")
            rated_at(player, rating=1500.0 + number, at=at(1, 10))
            rated_at(player, rating=1510.0 + number, at=at(2, 10))
            ended_tournament(operator, at=at(2, 20), entries=[(player, 100, number)])

    grow(3, 1)
    statements()  # the session's first request reads its credentials (remembered after)
    small = statements(), statements(board="winnings")
    grow(30, 100)
    large = statements(), statements(board="winnings")
    assert small == large
    assert large == ((1, 1), (1, 1))  # the whole request: the board's page, one statement


def test_pages_walk_the_board_by_rank(operator) -> None:
    players = [PlayerFactory(operator=operator, screen_name=f"Q{n}") for n in range(5)]
    for number, player in enumerate(players):
        rated_at(player, rating=1600.0 - number, at=at(1, 10))
    client = session_client(players[0])
    page = board(client, page_size=2)
    seen = names(page)
    assert page["previous"] is None
    while page["next"]:
        response = client.get(page["next"])
        assert response.status_code == 200, response.content
        page = response.json()
        seen += names(page)
    assert seen == [f"Q{n}" for n in range(5)]
    back = client.get(page["previous"]).json()
    assert [row["rank"] for row in back["results"]] == [3, 4]
    for forged in ("cD1hYmM=", "cD0xMjM0NTY3ODkwMTIz", "cD0tMQ=="):  # p=abc, p=1234567890123, p=-1
        assert_problem(client.get(f"/api/v1/leaderboards?cursor={forged}"), 404, "not-found")


@pytest.mark.parametrize(
    ("query", "status", "slug"),
    [
        ("scope=world", 400, "validation-error"),
        ("board=luck", 400, "validation-error"),
        ("period=year", 400, "validation-error"),
        ("date=2026-13-01", 400, "validation-error"),
        ("date=1999-12-31", 400, "validation-error"),
        ("date=9999-12-31", 400, "validation-error"),
        ("family=poker", 400, "validation-error"),
        ("board=winnings&currency=ZZZ", 422, "unknown-currency"),
        ("page_size=1000&period=day", 200, None),
    ],
)
def test_bad_parameters_are_problems(operator, query, status, slug) -> None:
    client = session_client(PlayerFactory(operator=operator, screen_name="Ray"))
    response = client.get(f"/api/v1/leaderboards?{query}")
    if slug is None:
        assert response.status_code == status, response.content
    else:
        assert_problem(response, status, slug)


def test_live_and_sandbox_players_never_share_a_network_board() -> None:
    network_make()
    room = network_room_make()
    alpha = member_make(name="Alpha")
    sandbox = api_key_create(operator=alpha, actor=SYSTEM, mode="test").api_key.operator
    network_membership_update(operator=sandbox, member=True, all_rooms=True, actor=SYSTEM)
    live = PlayerFactory(operator=alpha, screen_name="Live")
    test = PlayerFactory(operator=sandbox, screen_name="Test")
    rated_at(live, rating=1700.0, at=at(1, 10), room=room)
    rated_at(test, rating=1900.0, at=at(1, 10), room=room)
    assert names(board(session_client(live), scope="network")) == ["Live"]
    assert names(board(session_client(test), scope="network")) == ["Test"]
