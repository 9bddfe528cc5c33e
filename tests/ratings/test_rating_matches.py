"""R15 (docs/rules.md): which matches are rated and how, played through games' services
with the real after-commit path (games' ``match_finished`` -> the receiver -> the task,
eager in tests -> the service): one rating per variant family, each match its own period,
a three- or four-player match one game between each pair by rank."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import engine as games_engine
from games.models import Match, Seat
from games.services.interruptions import match_void
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_no_shows_sweep, tournament_seat_claim
from gin_platform.models import AuditEvent
from ratings import engine
from ratings.models import Family, RatedMatch, Rating, RatingChange
from ratings.selectors import player_ratings, rating_of
from ratings.services import ratings_sweep
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.ratings.worlds import (
    beats,
    finish_heads_up_with,
    finish_multi_with_ranking,
    heads_up,
    multi,
    practice_against_the_bot,
    resign_in_order,
    seat_of,
)
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tournaments.models import BracketTable
from tournaments.services.registration import entry_register

pytestmark = pytest.mark.django_db(transaction=True)


def glicko(row) -> engine.Rating:
    return engine.Rating(row.rating, row.rd, row.volatility)


def test_a_real_money_heads_up_match_is_rated_once_in_its_family() -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    match = beats(ann, bob)
    assert match.status == Match.Status.SETTLED  # settled on commit too, eagerly

    rated = RatedMatch.objects.get()
    assert (rated.match_id, rated.family, rated.players) == (match.pk, "heads_up_ftk", 2)
    assert rated.finished_at == match.finished_at
    won, lost = (RatingChange.objects.get(player=p) for p in (ann, bob))
    assert (won.place, won.wins, won.losses) == (1, 1, 0)
    assert (lost.place, lost.wins, lost.losses) == (2, 0, 1)
    assert won.rating_before == lost.rating_before == 1500.0
    expected = engine.rate_period(places=[[ann.pk], [bob.pk]], before={})
    assert glicko(Rating.objects.get(player=ann)) == expected[ann.pk].after
    assert glicko(Rating.objects.get(player=bob)) == expected[bob.pk].after
    assert Rating.objects.get(player=ann).rating > 1500 > Rating.objects.get(player=bob).rating
    assert AuditEvent.objects.filter(action="ratings.match_rated", operator=operator).count() == 1
    # The other families are untouched: still the start, provisional.
    mine = {rating.family: rating for rating in player_ratings(player=ann)}
    assert list(mine) == ["heads_up_ftk", "heads_up_match", "multiplayer"]
    assert mine["heads_up_match"].rating == 1500.0 and mine["heads_up_match"].matches == 0
    assert mine["heads_up_ftk"].matches == 1 and mine["heads_up_ftk"].provisional

    assert ratings_sweep(actor=SYSTEM) == []  # nothing left to rate
    assert RatingChange.objects.count() == 2


def test_each_match_is_its_own_period_from_where_the_last_one_left() -> None:
    operator = OperatorFactory()
    ann, bob, cat = (PlayerFactory(operator=operator) for _ in range(3))
    beats(ann, bob)
    after_first = glicko(Rating.objects.get(player=ann))
    beats(cat, ann)
    change = RatingChange.objects.filter(player=ann).order_by("finished_at").last()
    assert engine.Rating(change.rating_before, change.rd_before, change.volatility_before) == (
        after_first
    )
    assert glicko(Rating.objects.get(player=ann)) == engine.rate(
        after_first, [engine.Game(engine.START, engine.LOSS)]
    )
    assert Rating.objects.get(player=ann).matches == 2


def test_match_play_and_money_play_share_a_family_and_first_to_knock_has_its_own() -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    beats(ann, bob, variant="match")
    beats(bob, ann, variant="money")
    beats(ann, bob, variant="ftk")
    families = dict(Rating.objects.filter(player=ann).values_list("family", "matches"))
    assert families == {"heads_up_match": 2, "heads_up_ftk": 1}


def test_equal_money_play_scores_are_a_draw_and_a_leaver_still_ahead_loses() -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    # R10: 100 + 2 x 25 + 100 = 250 against 50 + 8 x 25 = 250: no money moves.
    scores = games_engine.money_play_final_scores(
        hand_points=(100, 50), hands_won=(2, 8), target=100, reached_target=0
    )
    assert scores.winner is None
    match = heads_up(operator, variant="money", players=[ann, bob])
    finish_heads_up_with(
        match,
        winner_seat=None,
        reached_target=0,
        hand_points=[100, 50],
        hands_won=[2, 8],
        money_play=scores.to_dict(),
    )
    drawn = RatingChange.objects.filter(match=match)
    assert {(c.place, c.draws) for c in drawn} == {(1, 1)}
    assert {c.rating_after for c in drawn} == {1500.0}

    # R10: the leaver (ann) would still be ahead, so no money moves; the forfeit is a loss.
    match = heads_up(operator, variant="money", players=[ann, bob])
    leaver = seat_of(match, ann).position
    ahead = ((90, 0), (1, 0)) if leaver == 0 else ((0, 90), (0, 1))  # 90 + 25 > 100
    forfeit = games_engine.forfeit_result(
        "money", leaver, hand_points=ahead[0], hands_won=ahead[1], target=100
    )
    assert forfeit.winner is None
    finish_heads_up_with(
        match,
        reason="forfeit",
        winner_seat=None,
        reached_target=1 - leaver,
        hand_points=list(ahead[0]),
        hands_won=list(ahead[1]),
        money_play=forfeit.money_play.to_dict(),
        forfeit={"seat": leaver, "reason": "left"},
    )
    assert RatingChange.objects.get(match=match, player=ann).losses == 1
    assert RatingChange.objects.get(match=match, player=bob).wins == 1


def test_three_players_are_rated_pairwise_by_the_order_they_left() -> None:
    operator = OperatorFactory()
    ann, bob, cat = (PlayerFactory(operator=operator) for _ in range(3))
    match = resign_in_order(multi(operator, [ann, bob, cat], variant="match"), [ann, bob])
    assert match.status == Match.Status.SETTLED
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    # R12: the last one in wins; the latest to leave is second, the first to leave third.
    assert [(changes[p.pk].place, changes[p.pk].wins) for p in (cat, bob, ann)] == [
        (1, 2),
        (2, 1),
        (3, 0),
    ]
    assert RatedMatch.objects.get(match=match).family == Family.MULTIPLAYER
    expected = engine.rate_period(places=[[cat.pk], [bob.pk], [ann.pk]], before={})
    for player in (ann, bob, cat):
        assert glicko(Rating.objects.get(player=player)) == expected[player.pk].after


def test_four_players_sharing_a_place_draw_with_each_other() -> None:
    operator = OperatorFactory()
    players = [PlayerFactory(operator=operator) for _ in range(4)]
    match = multi(operator, players, variant="ftk")
    by_seat = {seat_of(match, p).position: p.pk for p in players}
    # R12: seats 1 and 2 tie (equal penalty totals and hands won) behind seat 3; seat 0 last.
    finish_multi_with_ranking(match, ((3,), (1, 2), (0,)))
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    got = {
        seat: (changes[p].place, changes[p].wins, changes[p].draws, changes[p].losses)
        for seat, p in by_seat.items()
    }
    assert got == {3: (1, 3, 0, 0), 1: (2, 1, 1, 1), 2: (2, 1, 1, 1), 0: (4, 0, 0, 3)}
    assert changes[by_seat[1]].rating_after == changes[by_seat[2]].rating_after == 1500.0


def test_practice_house_bot_and_voided_matches_are_not_rated() -> None:
    operator = OperatorFactory()
    practice = practice_against_the_bot(operator)
    assert practice.status == Match.Status.SETTLED and practice.is_practice
    assert practice.house_bot_seats
    voided = heads_up(operator)
    assert match_void(match_id=voided.pk, actor=SYSTEM) is True
    assert ratings_sweep(actor=SYSTEM) == []
    assert not RatedMatch.objects.exists() and not Rating.objects.exists()


def test_tournament_matches_are_rated_and_an_absent_player_is_not() -> None:
    """R14: a sit and go of four; table 1 is played, at table 2 one player never takes their
    seat (a walkover: rated, with nobody to rate), and the final is played."""
    operator = OperatorFactory(base_currency="EUR")
    players = [funded_player(operator) for _ in range(4)]
    tournament = sit_and_go(operator, entries=4)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    first, second = BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")
    seats = list(Seat.objects.filter(match=first.match).order_by("position"))
    for seat in seats:
        tournament_seat_claim(player=seat.player, match=first.match, actor=SYSTEM)
    match_resign(seat=Seat.objects.get(pk=seats[0].pk), actor=SYSTEM)
    came, absent = Seat.objects.filter(match=second.match).order_by("position")
    tournament_seat_claim(player=came.player, match=second.match, actor=SYSTEM)
    later = Match.objects.get(pk=second.match_id).no_show_deadline + timedelta(seconds=1)
    assert tournament_no_shows_sweep(now=later) == 1
    play_out(tournament)

    rated = {r.match_id: r for r in RatedMatch.objects.all()}
    final = BracketTable.objects.get(tournament=tournament, round=2)
    assert {m: r.players for m, r in rated.items()} == {
        first.match_id: 2,
        second.match_id: 0,
        final.match_id: 2,
    }
    assert {r.family for r in rated.values()} == {"heads_up_ftk"}
    assert not Rating.objects.filter(player=absent.player).exists()
    assert not RatingChange.objects.filter(match=second.match).exists()
    winner = Rating.objects.get(player=came.player)
    assert winner.matches == 1  # the final only: the walkover gave no game
    assert rating_of(player_id=came.player_id, family="heads_up_ftk").rating == winner.rating
