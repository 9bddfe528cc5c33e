"""R15's ratings, written (docs/ratings.md "Exactly once, in order").

Each finished rated match is one rating period, rated once: one durable transaction under
the rating cursor's lock rates the oldest match not rated yet, writes its ``RatedMatch``
(unique per match), one ``RatingChange`` per player (unique per match and player) and the
players' new ``Rating`` rows, with its audit row. Taking the oldest first keeps the periods
in the order the matches ended, so a match whose message was lost is rated before any later
one that reaches a worker, and the ratings always equal a recomputation from the history
(``ratings.recompute``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games.rating_selectors import match_standing
from gin_platform.audit import audit_record
from gin_platform.tenancy.principals import Actor
from ratings import engine, selectors
from ratings.locks import lock_rating_cursor
from ratings.models import RatedMatch, Rating, RatingChange, family_of

# A match's own task rates first whatever ended up to this long before it and is still
# unrated (a lost message); older strays are the sweep's.
CATCH_UP = timedelta(minutes=10)
# The sweep: a match younger than this is its own task's (on its way); it looks back this
# far before the newest match rated.
SWEEP_GRACE = timedelta(seconds=5)
SWEEP_LOOKBACK = timedelta(days=1)


class UnratableMatchError(RuntimeError):
    """A match the rated-match query offered has no standing: a programming error, raised
    rather than skipped so that no period is ever rated out of order."""


@transaction.atomic
def next_match_rate(*, since: datetime | None, until: datetime | None, actor: Actor) -> int | None:
    """Rate the oldest match that ended in [``since``, ``until``] and is not rated yet: one
    rating period. Returns its id, or None when every such match is rated."""
    cursor = lock_rating_cursor()
    match_id = (
        selectors.unrated_matches(since=since, until=until).values_list("pk", flat=True).first()
    )
    if match_id is None:
        return None
    standing = match_standing(match_id=match_id)
    if standing is None:
        raise UnratableMatchError(f"match {match_id} is offered for rating but has no standing")
    family = family_of(variant=standing.variant, seat_count=standing.seat_count)
    players = [player for place in standing.places for player in place]
    rows = {
        row.player_id: row for row in Rating.objects.filter(family=family, player_id__in=players)
    }
    before = {
        player: engine.Rating(row.rating, row.rd, row.volatility) for player, row in rows.items()
    }
    results = engine.rate_period(places=standing.places, before=before)
    rated = RatedMatch.objects.create(
        match_id=match_id,
        family=family,
        finished_at=standing.finished_at,
        players=len(results),
    )
    RatingChange.objects.bulk_create(
        RatingChange(
            rated_match=rated,
            match_id=match_id,
            player_id=player,
            family=family,
            finished_at=standing.finished_at,
            place=result.place,
            wins=result.wins,
            draws=result.draws,
            losses=result.losses,
            rating_before=result.before.rating,
            rd_before=result.before.rd,
            volatility_before=result.before.volatility,
            rating_after=result.after.rating,
            rd_after=result.after.rd,
            volatility_after=result.after.volatility,
        )
        for player, result in results.items()
    )
    now = timezone.now()
    for player, result in results.items():
        row = rows.get(player) or Rating(player_id=player, family=family)
        row.rating, row.rd, row.volatility = (
            result.after.rating,
            result.after.rd,
            result.after.volatility,
        )
        row.matches += 1
        row.updated_at = now
        row.save()
    if cursor.rated_through is None or standing.finished_at > cursor.rated_through:
        cursor.rated_through = standing.finished_at
        cursor.save(update_fields=["rated_through"])
    audit_record(
        actor=actor,
        action="ratings.match_rated",
        obj=rated,
        operator=standing.operator,
        data={
            "match_id": match_id,
            "family": family,
            "players": {
                str(player): [round(result.before.rating, 2), round(result.after.rating, 2)]
                for player, result in results.items()
            },
        },
    )
    return match_id


def matches_rate(*, since: datetime | None, until: datetime | None, actor: Actor) -> list[int]:
    """Rate, oldest first and one transaction each, every match that ended in [``since``,
    ``until``] and is not rated yet. Returns their ids in the order rated."""
    rated = []
    while (match_id := next_match_rate(since=since, until=until, actor=actor)) is not None:
        rated.append(match_id)
    return rated


def finished_match_rate(*, match_id: int, actor: Actor) -> list[int]:
    """A match ended (its task, queued by the receiver of ``match_finished``): rate it, and
    before it any rated match that ended shortly before and is still unrated. Nothing when
    it is not a rated match or is rated already (a replayed message)."""
    finished_at = selectors.unrated_match_end(match_id=match_id)
    if finished_at is None:
        return []
    return matches_rate(since=finished_at - CATCH_UP, until=finished_at, actor=actor)


def ratings_sweep(*, actor: Actor) -> list[int]:
    """Beat: rate every match that ended at least ``SWEEP_GRACE`` ago and no task rated (a
    lost message, a worker killed mid-task), looking back a day before the newest match
    rated (everything, before the first)."""
    newest = selectors.rated_through()
    since = None if newest is None else newest - SWEEP_LOOKBACK
    return matches_rate(since=since, until=timezone.now() - SWEEP_GRACE, actor=actor)
