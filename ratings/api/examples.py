"""OpenAPI examples of the ratings API (docs/ratings.md "API")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample


def _response(name: str, value: object) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["200"])


RATING = {
    "family": "heads_up_ftk",
    "rating": 1464.05,
    "rd": 151.52,
    "volatility": 0.059996,
    "provisional": True,
    "matches": 3,
    "updated_at": "2026-12-06T18:40:00Z",
}
UNRATED = {"rating": 1500.0, "rd": 350.0, "volatility": 0.06, "matches": 0, "updated_at": None}
CHANGE = {
    "match_id": 4242,
    "family": "multiplayer",
    "finished_at": "2026-12-06T18:40:00Z",
    "place": 2,
    "players": 4,
    "wins": 1,
    "draws": 1,
    "losses": 1,
    "before": {"rating": 1500.0, "rd": 350.0, "volatility": 0.06},
    "after": {"rating": 1500.0, "rd": 227.74, "volatility": 0.059998},
    "change": 0.0,
}

# A list's example is one of its items: drf-spectacular shows it as the list (or the page).
RATINGS = [
    _response("A family played", RATING),
    _response("A family not played yet", {"family": "multiplayer", "provisional": True, **UNRATED}),
]
HISTORY = [_response("Second of four, sharing the place with one other", CHANGE)]
MATCH = [
    _response(
        "A network table: the opponent by screen name",
        {
            "match_id": 4242,
            "family": "heads_up_ftk",
            "rated": True,
            "seats": [
                {
                    "position": 0,
                    "display_name": "Ann",
                    "screen_name": "AnnTheAce",
                    "operator": None,
                    "rating": 1464.05,
                    "rd": 151.52,
                    "provisional": True,
                },
                {
                    "position": 1,
                    "display_name": None,
                    "screen_name": "BravoBear",
                    "operator": None,
                    "rating": 1702.4,
                    "rd": 64.1,
                    "provisional": False,
                },
            ],
        },
    )
]
