"""Every rating recomputed from the stored match history (docs/ratings.md "Checking"): the
rated matches in the order they ended, each one's places read again from games' stored
result, rated by the engine from the start, and compared with what the service stored:
every change's before and after, every player's current rating, and the matches rated
(none missing, none that R15 does not rate). Reads only; ``manage.py ratings_recompute
--check`` prints what it finds."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta
from uuid import UUID

from django.utils import timezone

from games.rating_selectors import match_standing
from ratings import engine, selectors
from ratings.models import RatedMatch, Rating, RatingChange, family_of

# The stored floats are the engine's own, so they agree exactly; this only forgives a
# database that keeps fewer digits than Python's float.
RELATIVE_TOLERANCE = 1e-12
# A match younger than this may be on its way to its task: not missing yet.
MISSING_AFTER = timedelta(minutes=1)
FIELDS = ("rating", "rd", "volatility")


def rating_differences() -> list[str]:
    """Every way the stored ratings differ from a recomputation, one line each; none when
    they agree."""
    return list(_differences())


def _differences() -> Iterator[str]:
    current: dict[tuple[UUID, str], engine.Rating] = {}
    played: dict[tuple[UUID, str], int] = {}
    changes: dict[int, dict[UUID, RatingChange]] = {}
    for row in RatingChange.objects.order_by("rated_match_id").iterator():
        changes.setdefault(row.rated_match_id, {})[row.player_id] = row
    for rated in RatedMatch.objects.order_by("finished_at", "match_id").iterator():
        standing = match_standing(match_id=rated.match_id)
        if standing is None:
            yield f"match {rated.match_id}: rated, but R15 does not rate it"
            continue
        family = family_of(variant=standing.variant, seat_count=standing.seat_count)
        if family != rated.family:
            yield f"match {rated.match_id}: rated as {rated.family}, its family is {family}"
        before = {
            player: current[player, family]
            for place in standing.places
            for player in place
            if (player, family) in current
        }
        results = engine.rate_period(places=standing.places, before=before)
        stored = changes.get(rated.pk, {})
        if set(stored) != set(results):
            yield (
                f"match {rated.match_id}: rated players {sorted(map(str, stored))}, "
                f"recomputed {sorted(map(str, results))}"
            )
        for player, result in results.items():
            current[player, family] = result.after
            played[player, family] = played.get((player, family), 0) + 1
            if player in stored:
                yield from _change_differences(stored[player], result)
    yield from _current_differences(current, played)
    missing = selectors.unrated_matches(until=timezone.now() - MISSING_AFTER)
    for match_id in missing.values_list("pk", flat=True):
        yield f"match {match_id}: finished and rated by R15, but not rated"


def _change_differences(change: RatingChange, result: engine.PeriodResult) -> Iterator[str]:
    for when, rating in (("before", result.before), ("after", result.after)):
        for name in FIELDS:
            value = getattr(change, f"{name}_{when}")
            if not _same(value, getattr(rating, name)):
                yield (
                    f"match {change.match_id}, player {change.player_id}: {name} {when} is "
                    f"{value!r}, recomputed {getattr(rating, name)!r}"
                )


def _current_differences(
    current: dict[tuple[UUID, str], engine.Rating], played: dict[tuple[UUID, str], int]
) -> Iterator[str]:
    seen = set()
    for row in Rating.objects.order_by("player_id", "family").iterator():
        key = (row.player_id, row.family)
        seen.add(key)
        expected = current.get(key)
        if expected is None:
            yield f"player {row.player_id} {row.family}: a rating, but no rated match"
            continue
        for name in FIELDS:
            if not _same(getattr(row, name), getattr(expected, name)):
                yield (
                    f"player {row.player_id} {row.family}: {name} is {getattr(row, name)!r}, "
                    f"recomputed {getattr(expected, name)!r}"
                )
        if row.matches != played[key]:
            yield (
                f"player {row.player_id} {row.family}: {row.matches} matches, "
                f"recomputed {played[key]}"
            )
    for player, family in sorted(set(current) - seen, key=str):
        yield f"player {player} {family}: rated matches, but no rating"


def _same(stored: float, recomputed: float) -> bool:
    return math.isclose(stored, recomputed, rel_tol=RELATIVE_TOLERANCE, abs_tol=0.0)
