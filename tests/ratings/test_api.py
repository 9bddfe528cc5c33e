"""The ratings API (docs/ratings.md "API"): a player's own ratings and history, their
operator's view of the same (another operator's player is 404), and the ratings of the
players at a match the caller sits at."""

from __future__ import annotations

import pytest

from ratings.models import RatingChange
from tests.factories import OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, operator_api, session_client
from tests.ratings.worlds import beats, heads_up, multi, practice_against_the_bot, resign_in_order

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_reads_their_ratings_and_their_history_page_by_page() -> None:
    operator = OperatorFactory()
    ann, bob, cat = (PlayerFactory(operator=operator) for _ in range(3))
    beats(ann, bob)
    beats(bob, ann, variant="match")
    resign_in_order(multi(operator, [ann, bob, cat]), [cat, bob])
    me = session_client(ann)

    ratings = me.get("/api/v1/me/ratings").json()
    assert [r["family"] for r in ratings] == ["heads_up_ftk", "heads_up_match", "multiplayer"]
    ftk = ratings[0]
    change = RatingChange.objects.get(player=ann, family="heads_up_ftk")
    assert ftk == {
        "family": "heads_up_ftk",
        "rating": round(change.rating_after, 2),
        "rd": round(change.rd_after, 2),
        "volatility": round(change.volatility_after, 6),
        "provisional": True,
        "matches": 1,
        "updated_at": ftk["updated_at"],
    }
    assert ratings[1]["rating"] < 1500 < ratings[0]["rating"]
    assert ratings[2]["matches"] == 1

    first = me.get("/api/v1/me/ratings/history?page_size=2").json()
    assert [row["family"] for row in first["results"]] == ["multiplayer", "heads_up_match"]
    newest = first["results"][0]
    assert (newest["place"], newest["players"], newest["wins"], newest["losses"]) == (1, 3, 2, 0)
    assert newest["before"] == {"rating": 1500.0, "rd": 350.0, "volatility": 0.06}
    assert newest["change"] == round(newest["after"]["rating"] - 1500.0, 2) > 0
    rest = me.get(first["next"]).json()
    assert [row["family"] for row in rest["results"]] == ["heads_up_ftk"] and not rest["next"]
    only = me.get("/api/v1/me/ratings/history?family=heads_up_match").json()["results"]
    assert [row["match_id"] for row in only] == [
        RatingChange.objects.get(player=ann, family="heads_up_match").match_id
    ]
    assert_problem(me.get("/api/v1/me/ratings/history?family=chess"), 400, "validation-error")


def test_an_operator_reads_its_own_players_ratings_and_never_another_operators() -> None:
    operator, other = OperatorFactory(), OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    stranger = PlayerFactory(operator=other)
    beats(ann, bob)
    api = operator_api(operator)
    mine = api.get(f"/api/v1/players/{ann.pk}/ratings").json()
    assert session_client(ann).get("/api/v1/me/ratings").json() == mine
    history = api.get(f"/api/v1/players/{ann.pk}/ratings/history").json()["results"]
    assert len(history) == 1 and history[0]["wins"] == 1
    for path in ("ratings", "ratings/history"):
        assert_problem(api.get(f"/api/v1/players/{stranger.pk}/{path}"), 404, "not-found")
        assert_problem(
            operator_api(other).get(f"/api/v1/players/{ann.pk}/{path}"), 404, "not-found"
        )


def test_the_players_at_my_table_with_their_ratings_and_nobody_elses_table() -> None:
    operator = OperatorFactory()
    ann, bob, cat = (PlayerFactory(operator=operator) for _ in range(3))
    beats(ann, cat)
    match = heads_up(operator, players=[ann, bob])
    shown = session_client(bob).get(f"/api/v1/matches/{match.pk}/ratings").json()
    assert (shown["match_id"], shown["family"], shown["rated"]) == (match.pk, "heads_up_ftk", True)
    by_name = {seat["display_name"]: seat for seat in shown["seats"]}
    assert by_name[ann.display_name]["rating"] > 1500 and by_name[ann.display_name]["provisional"]
    assert by_name[bob.display_name]["rating"] == 1500.0 and by_name[bob.display_name]["rd"] == 350
    assert set(by_name[ann.display_name]) == {
        "position",
        "display_name",
        "screen_name",
        "operator",
        "rating",
        "rd",
        "provisional",
    }
    response = session_client(cat).get(f"/api/v1/matches/{match.pk}/ratings")
    assert_problem(response, 404, "not-found")

    practice = practice_against_the_bot(operator)
    player = practice.seats.exclude(position__in=practice.house_bot_seats).get().player
    shown = session_client(player).get(f"/api/v1/matches/{practice.pk}/ratings").json()
    assert shown["rated"] is False
    bot = next(s for s in shown["seats"] if s["position"] in practice.house_bot_seats)
    assert (bot["rating"], bot["rd"], bot["provisional"]) == (None, None, None)
