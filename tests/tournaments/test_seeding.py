"""A tournament seeded by rating (R14's option, R15's ratings) over the real services on
PostgreSQL: created over the API, by an operator or by staff through four eyes (an unknown
seeding refused), the seeds by rating at the start with the ratings kept, 1 plays 8 and the
best two meet in the final, byes to the best seeds, the whole bracket replayed from what the
API publishes, and linked players still kept apart at a table."""

from __future__ import annotations

import pytest

from integrity.services.links import player_link_declare
from ratings.models import Family, Rating
from tests.factories import SYSTEM, OperatorFactory, staff_user
from tests.games.network_world import network_make
from tests.helpers import assert_problem, operator_api
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tests.tournaments.test_staff_requests import decide, propose_cup
from tournaments import engine
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.registration import entry_register

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def operator():
    return OperatorFactory()


def rated(player, rating: float, family: str = Family.HEADS_UP_FTK):
    """``player`` stands at ``rating`` in ``family`` (an established rating: RD 60)."""
    Rating.objects.create(player=player, family=family, rating=rating, rd=60.0, volatility=0.06)
    return player


def seeded(operator, *, entries: int, seats: int = 2, advance: int = 1) -> Tournament:
    return sit_and_go(operator, entries=entries, seats=seats, advance=advance, seeding="rating")


def by_player(tournament) -> dict:
    return {entry.player_id: entry for entry in Entry.objects.filter(tournament=tournament)}


def table_players(tournament, round_number: int) -> list[list]:
    entries = {entry.pk: entry.player_id for entry in Entry.objects.filter(tournament=tournament)}
    tables = BracketTable.objects.filter(tournament=tournament, round=round_number)
    return [[entries[pk] for pk in table.entries] for table in tables.order_by("number")]


def test_the_api_takes_the_seeding_and_refuses_an_unknown_one(operator, idem) -> None:
    api = operator_api(operator)
    body = {
        "name": "Friday Masters",
        "kind": "sit_and_go",
        "seats": 2,
        "currency": "EUR",
        "max_entries": 8,
        "round_settings": [{"variant": "ftk"}],
    }
    refused = api.post("/api/v1/tournaments", {**body, "seeding": "luck"}, format="json", **idem())
    problem = assert_problem(refused, 400, "validation-error")
    assert "seeding" in problem["errors"]
    assert not Tournament.objects.exists()
    created = api.post(
        "/api/v1/tournaments", {**body, "seeding": "rating"}, format="json", **idem()
    )
    assert created.status_code == 201, created.content
    assert created.json()["seeding"] == "rating"
    plain = api.post("/api/v1/tournaments", body, format="json", **idem())
    assert plain.json()["seeding"] == "draw"  # the default: R14's draw


def test_eight_seeded_heads_up_meet_by_seed_and_the_best_two_in_the_final(operator) -> None:
    # Registered in an order that has nothing to do with their ratings.
    ratings = [1610.0, 1905.5, 1490.0, 1750.25, 1500.0, 1820.0, 1402.75, 1666.0]
    players = [rated(funded_player(operator), rating) for rating in ratings]
    tournament = seeded(operator, entries=8)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    entries = by_player(tournament)
    best_first = sorted(players, key=lambda p: -entries[p.pk].seed_rating)
    assert [entries[p.pk].seed_rating for p in best_first] == sorted(ratings, reverse=True)
    assert [entries[p.pk].draw_position for p in best_first] == list(range(1, 9))  # the seeds
    seed = {p.pk: number for number, p in enumerate(best_first, 1)}
    first = [[seed[player] for player in table] for table in table_players(tournament, 1)]
    assert first == [[1, 8], [4, 5], [2, 7], [3, 6]]

    rating_of = {p.pk: entries[p.pk].seed_rating for p in players}

    def lower_rating(seats):  # the lower-rated player resigns: the favourite wins
        return min(range(len(seats)), key=lambda index: rating_of[seats[index].player_id])

    play_out(tournament, loses=lower_rating)
    final = table_players(tournament, 3)[0]
    assert sorted(seed[player] for player in final) == [1, 2]
    winner = Entry.objects.get(tournament=tournament, place_from=1)
    assert seed[winner.player_id] == 1


def test_byes_go_to_the_best_seeds(operator) -> None:
    ratings = [1500.0, 1700.0, 1400.0, 1800.0, 1450.0, 1600.0]
    players = [rated(funded_player(operator), rating) for rating in ratings]
    tournament = seeded(operator, entries=6)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    byes = BracketTable.objects.filter(tournament=tournament, round=1, status="bye")
    bye_players = {
        Entry.objects.get(pk=table.entries[0]).player_id for table in byes.order_by("number")
    }
    best_two = {p.pk for p, rating in zip(players, ratings, strict=True) if rating >= 1700}
    assert bye_players == best_two
    # Each of the two waits in a different half: they can meet only in the final.
    assert [table.number for table in byes.order_by("number")] == [1, 3]


def test_the_bracket_replays_from_the_published_seed_and_seed_ratings(operator, idem) -> None:
    # Two pairs of equal ratings and four players never rated (1500): the draw breaks ties.
    ratings = [1620.0, 1620.0, None, 1710.0, None, 1380.0, 1380.0, None, 1550.0, 1495.5, None]
    players = [funded_player(operator) for _ in ratings]
    for player, rating in zip(players, ratings, strict=True):
        if rating is not None:
            rated(player, rating)
    tournament = seeded(operator, entries=len(players))
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament, loses=lambda seats: 0)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    # What anybody may read: the tournament (its revealed seed) and the bracket, each
    # player at their table with their entry number and seed rating.
    api = operator_api(operator)
    shown = api.get(f"/api/v1/tournaments/{tournament.pk}").json()
    assert shown["seeding"] == "rating" and shown["seed"] == tournament.seed
    bracket = api.get(f"/api/v1/tournaments/{tournament.pk}/bracket").json()
    published = {
        player["entry"]: player["seed_rating"]
        for table in bracket
        if table["round"] == 1
        for player in table["players"]
    }
    assert sorted(published) == list(range(1, 12))
    assert sorted(published.values(), reverse=True)[:2] == [1710.0, 1620.0]
    assert list(published.values()).count(1500.0) == 4
    tables = {(table["round"], table["number"]): table for table in bracket}

    def result(round_number, number, players):
        return tables[(round_number, number)]["advancing"]

    replayed = engine.bracket_replay(
        seed=shown["seed"],
        entries=sorted(published),  # entry numbers: the order of registration
        seats=2,
        advance=1,
        ranking=result,
        ratings=published,
    )
    for table in replayed:
        live = tables[(table.round, table.number)]
        assert list(table.players) == [player["entry"] for player in live["players"]]
        assert (live["status"] == "bye") == (not table.played)
    assert sum(not table.played for table in replayed) == 5  # 11 in a bracket of 16


def test_linked_players_seeded_to_one_table_never_share_it(operator) -> None:
    a, b, c, d, e = (
        rated(funded_player(operator), rating)
        for rating in (1800.0, 1700.0, 1600.0, 1500.0, 1400.0)
    )
    tournament = seeded(operator, entries=5)
    for player in (d, e, a, b):
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    # Five heads-up: seeds 1-3 have byes and seeds 4 and 5, D and E, would meet; a link made
    # since both registered (registration refuses one already known).
    player_link_declare(player=e, other_player_id=d.pk, kind="household", actor=SYSTEM)
    entry_register(player=c, tournament=tournament, actor=SYSTEM)  # full: it starts
    entries = by_player(tournament)
    assert [entries[p.pk].draw_position for p in (a, b, c, d, e)] == [1, 2, 3, 4, 5]
    table = BracketTable.objects.get(tournament=tournament, round=1, number=2)
    assert table.entries == [entries[d.pk].pk]  # D alone: a bye
    assert table.status == "bye"
    out = entries[e.pk]
    assert (out.status, out.out_reason, out.round_out) == ("out", "linked", 1)
    for round_one in table_players(tournament, 1):
        assert not {d.pk, e.pk} <= set(round_one)


def test_staff_propose_a_seeded_network_tournament_and_the_approval_creates_it() -> None:
    network_make()
    ana, ben = staff_user("ana", "finance"), staff_user("ben", "finance")
    proposed = propose_cup(ana, seeding="rating")
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["options"]["seeding"] == "rating"
    refused = propose_cup(ana, seeding="luck")
    assert_problem(refused, 400, "validation-error")
    approved = decide(ben, proposed.json()["id"])
    assert approved.status_code == 200, approved.content
    created = Tournament.objects.get(pk=approved.json()["tournament_id"])
    assert created.seeding == Tournament.Seeding.RATING
