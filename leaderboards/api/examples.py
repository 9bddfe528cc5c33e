"""OpenAPI examples of the leaderboards API (docs/leaderboards.md "API")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from gin_platform.tenancy.services import UnknownCurrencyProblem
from leaderboards.problems import LeaderboardNetworkClosedProblem


def _response(name: str, value: object) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["200"])


def _request(name: str, value: object) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


WEEK = {
    "kind": "week",
    "label": "2026-W50",
    "starts_at": "2026-12-07T00:00:00Z",
    "ends_at": "2026-12-14T00:00:00Z",
}
NO_RATING = {"rating": None, "rd": None, "matches": None}
NO_WINNINGS = {"net": None, "prizes": None, "paid_in": None, "tournaments": None}
NEXT = "https://api.example.org/api/v1/leaderboards?cursor=cD0y&scope=network"
RATING_BOARD = {
    "scope": "network",
    "board": "rating",
    "period": WEEK,
    "family": "heads_up_match",
    "currency": None,
    "next": NEXT,
    "previous": None,
    "results": [
        {
            "rank": 1,
            "screen_name": "BravoBear",
            "me": False,
            "player_id": None,
            "reached_at": "2026-12-09T21:14:03Z",
            "rating": 1842.17,
            "rd": 61.4,
            "matches": 23,
            **NO_WINNINGS,
        },
        {
            "rank": 2,
            "screen_name": "AnnTheAce",
            "me": True,
            "player_id": None,
            "reached_at": "2026-12-10T18:40:00Z",
            "rating": 1790.05,
            "rd": 74.92,
            "matches": 9,
            **NO_WINNINGS,
        },
    ],
}
WINNINGS_BOARD = {
    "scope": "operator",
    "board": "winnings",
    "period": {
        "kind": "month",
        "label": "2026-12",
        "starts_at": "2026-12-01T00:00:00Z",
        "ends_at": "2027-01-01T00:00:00Z",
    },
    "family": None,
    "currency": "EUR",
    "next": None,
    "previous": None,
    "results": [
        {
            "rank": 1,
            "screen_name": "AnnTheAce",
            "me": False,
            "player_id": "8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80",
            "reached_at": "2026-12-13T23:05:12Z",
            "net": _eur("58.40"),
            "prizes": _eur("80.40"),
            "paid_in": _eur("22.00"),
            "tournaments": 2,
            **NO_RATING,
        }
    ],
}
BOARDS = [
    _response(
        "The network's week by rating, as a player sees it (their own row: me)", RATING_BOARD
    ),
    _response("Your players' month by net winnings (your own players: player_id)", WINNINGS_BOARD),
]
OPT_OUT_SHOWN = [
    _response(
        "On the boards, as AnnTheAce", {"leaderboard_opt_out": False, "screen_name": "AnnTheAce"}
    )
]
OPT_OUT = [
    _request("Stay off every board", {"leaderboard_opt_out": True}),
    _response("Off every board", {"leaderboard_opt_out": True, "screen_name": "AnnTheAce"}),
]
NETWORK_CLOSED = problem_response(
    "scope=network for an operator outside the network (problem+json)",
    problem_example(
        LeaderboardNetworkClosedProblem,
        "Your operator is not a member of the network.",
    ),
)
UNKNOWN_CURRENCY = problem_response(
    "An unknown currency (problem+json)",
    problem_example(UnknownCurrencyProblem, "'ZZZ' is not a currency in circulation (ISO 4217)"),
)
