"""Row locks of ratings (one lock helper module per app).

One lock: the rating cursor's one row. Every rating of a match takes it first, so matches
are rated one at a time in the order they ended (R15: each match is its own rating period,
and a period starts from the ratings the previous ones left). Nothing else in the platform
takes it, and a rating takes no other app's lock, so the order cannot invert.
"""

from __future__ import annotations

from ratings.models import RatingCursor


def lock_rating_cursor() -> RatingCursor:
    """The cursor, locked; made on first use (a flushed test database has none)."""
    RatingCursor.objects.get_or_create(pk=RatingCursor.ONE)
    return RatingCursor.objects.select_for_update().get(pk=RatingCursor.ONE)
