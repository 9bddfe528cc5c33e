"""What the ratings API shows, and to whom (docs/ratings.md "API").

A player's own ratings in full; the players at a match the caller sits at named as at the
table (games' ``seat_identity``: a screen name only for another operator's player at a
network table), with the rating, RD and provisional flag of the match's family.
"""

from __future__ import annotations

from typing import Any

from games.api.presenters import seat_identity
from ratings.models import RatingChange
from ratings.selectors import MatchRatings, PlayerRating, SeatRating

RATING_PLACES = 2  # rating and RD are shown to 2 decimals
VOLATILITY_PLACES = 6


def rating_dict(rating: PlayerRating) -> dict[str, Any]:
    return {
        "family": rating.family,
        "rating": round(rating.rating, RATING_PLACES),
        "rd": round(rating.rd, RATING_PLACES),
        "volatility": round(rating.volatility, VOLATILITY_PLACES),
        "provisional": rating.provisional,
        "matches": rating.matches,
        "updated_at": rating.updated_at,
    }


def _values(rating: float, rd: float, volatility: float) -> dict[str, float]:
    return {
        "rating": round(rating, RATING_PLACES),
        "rd": round(rd, RATING_PLACES),
        "volatility": round(volatility, VOLATILITY_PLACES),
    }


def change_dict(change: RatingChange) -> dict[str, Any]:
    return {
        "match_id": change.match_id,
        "family": change.family,
        "finished_at": change.finished_at,
        "place": change.place,
        "players": change.wins + change.draws + change.losses + 1,
        "wins": change.wins,
        "draws": change.draws,
        "losses": change.losses,
        "before": _values(change.rating_before, change.rd_before, change.volatility_before),
        "after": _values(change.rating_after, change.rd_after, change.volatility_after),
        "change": round(change.rating_after - change.rating_before, RATING_PLACES),
    }


def match_ratings_dict(ratings: MatchRatings, *, viewer: object) -> dict[str, Any]:
    """The match's players as ``viewer`` (the caller's operator id) sees them at the table."""
    match = ratings.match

    def named(seat: SeatRating) -> dict[str, Any]:
        return seat_identity(seat.seat.player, match_operator_id=match.operator_id, viewer=viewer)

    return {
        "match_id": match.pk,
        "family": ratings.family,
        "rated": ratings.rated,
        "seats": [
            {
                "position": seat.seat.position,
                **named(seat),
                "rating": None if seat.rating is None else round(seat.rating.rating, RATING_PLACES),
                "rd": None if seat.rating is None else round(seat.rating.rd, RATING_PLACES),
                "provisional": None if seat.rating is None else seat.rating.provisional,
            }
            for seat in ratings.seats
        ],
    }
