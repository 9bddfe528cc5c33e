"""Exactly once, in order (docs/ratings.md "Exactly once, in order"): a match whose message
was lost is rated by the beat's sweep or, before it, by the next match's own task; a late
or replayed message rates nothing; racing workers on PostgreSQL rate a match once; and the
stored ratings always equal their recomputation from the match history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from games.models import Match
from ratings import receivers
from ratings.models import RatedMatch, Rating, RatingChange
from ratings.recompute import rating_differences
from ratings.services import finished_match_rate, ratings_sweep
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.races import race
from tests.ratings.worlds import beats, multi, resign_in_order

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def lost(monkeypatch) -> list[int]:
    """The receiver's messages, dropped: as if the broker had lost every one."""
    dropped: list[int] = []
    monkeypatch.setattr(
        receivers, "enqueue_on_commit", lambda task, match_id: dropped.append(match_id)
    )
    return dropped


def age(match: Match, seconds: int) -> None:
    Match.objects.filter(pk=match.pk).update(
        finished_at=Match.objects.get(pk=match.pk).finished_at - timedelta(seconds=seconds)
    )


def test_a_lost_message_is_rated_by_the_sweep_once(lost) -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    match = beats(ann, bob)
    assert lost == [match.pk] and not RatedMatch.objects.exists()
    assert ratings_sweep(actor=SYSTEM) == []  # younger than the grace: its task's
    age(match, 10)
    assert ratings_sweep(actor=SYSTEM) == [match.pk]
    assert finished_match_rate(match_id=match.pk, actor=SYSTEM) == []  # the late message
    assert ratings_sweep(actor=SYSTEM) == []
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_later_matchs_task_rates_the_earlier_lost_one_first(lost, monkeypatch) -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    first = beats(ann, bob)
    second = beats(bob, ann)
    assert lost == [first.pk, second.pk]
    assert finished_match_rate(match_id=second.pk, actor=SYSTEM) == [first.pk, second.pk]
    assert list(RatedMatch.objects.order_by("pk").values_list("match_id", flat=True)) == [
        first.pk,
        second.pk,
    ]
    assert finished_match_rate(match_id=first.pk, actor=SYSTEM) == []
    assert rating_differences() == []


@pytest.mark.postgres
def test_racing_workers_rate_a_real_money_match_once(lost) -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    match = beats(ann, bob)
    age(match, 10)

    def work(i: int) -> list[int]:
        if i % 3 == 2:
            return ratings_sweep(actor=SYSTEM)
        return finished_match_rate(match_id=match.pk, actor=SYSTEM)

    results = race(6, work)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(map(len, results)) == [0, 0, 0, 0, 0, 1]  # one worker rated it
    assert RatedMatch.objects.filter(match=match).count() == 1
    assert RatingChange.objects.filter(match=match).count() == 2
    assert Rating.objects.get(player=ann).matches == Rating.objects.get(player=bob).matches == 1
    assert rating_differences() == []


def test_recomputing_a_batch_of_rated_matches_finds_no_difference(capsys) -> None:
    operator = OperatorFactory()
    players = [PlayerFactory(operator=operator) for _ in range(4)]
    ann, bob, cat, dan = players
    for winner, loser, variant in [
        (ann, bob, "ftk"),
        (bob, cat, "ftk"),
        (cat, ann, "match"),
        (dan, ann, "money"),
        (ann, dan, "ftk"),
    ]:
        beats(winner, loser, variant=variant)
    resign_in_order(multi(operator, [ann, bob, cat]), [bob, ann])
    resign_in_order(multi(operator, players, variant="match"), [dan, cat, ann])
    assert RatedMatch.objects.count() == 7

    assert rating_differences() == []
    call_command("ratings_recompute", "--check")
    assert "agree" in capsys.readouterr().out


def test_the_check_reports_a_changed_rating_and_a_match_left_unrated(lost) -> None:
    operator = OperatorFactory()
    ann, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    rated = beats(ann, bob)
    finished_match_rate(match_id=rated.pk, actor=SYSTEM)
    Rating.objects.filter(player=ann).update(rating=1600.0)
    RatingChange.objects.filter(player=bob).update(rd_after=10.0)
    unrated = beats(bob, ann)
    age(unrated, 120)

    found = rating_differences()
    assert any(f"player {ann.pk} heads_up_ftk: rating is 1600.0" in line for line in found)
    assert any(f"match {rated.pk}, player {bob.pk}: rd after is 10.0" in line for line in found)
    assert f"match {unrated.pk}: finished and rated by R15, but not rated" in found
    with pytest.raises(CommandError, match="difference"):
        call_command("ratings_recompute", "--check")
