"""OpenAPI examples of the quick seat (docs/matchmaking.md "API"); each is checked against
its schema by tests/platform/test_openapi_document.py."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from matchmaking.problems import (
    QuickSeatAlreadyQueuedProblem,
    QuickSeatNoRoomProblem,
    QuickSeatNotWaitingProblem,
)

PATH = "/api/v1/lobby/quick-seat"


def _request(name: str, value: dict, summary: str) -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary, request_only=True)


def _response(name: str, value: dict, status: int, summary: str) -> OpenApiExample:
    return OpenApiExample(
        name, value=value, summary=summary, response_only=True, status_codes=[str(status)]
    )


WAITING = {
    "id": 318,
    "status": "waiting",
    "variant": "ftk",
    "currency": "EUR",
    "stake": {"amount": "5.00", "currency": "EUR", "display": None},
    "stake_per_point": None,
    "cashier_amount": None,
    "room_id": 7,
    "network": False,
    "family": "heads_up_ftk",
    "rating": 1587.34,
    "band": {"low": 1487.34, "high": 1687.34},
    "joined_at": "2026-12-06T20:15:02.913404Z",
    "expires_at": "2026-12-06T20:25:02.913404Z",
    "ended_at": None,
    "seat": None,
    "problem_type": None,
}
SEATED = WAITING | {
    "status": "seated",
    "band": None,
    "ended_at": "2026-12-06T20:15:14.102311Z",
    "seat": {"table_id": 12, "match_id": 4242, "position": 1},
}

JOIN = [
    _request(
        "first to knock",
        {"variant": "ftk", "stake": "5.00", "currency": "EUR"},
        "A heads-up First To Knock game at 5.00 EUR",
    ),
    _request(
        "money play",
        {
            "variant": "money",
            "stake_per_point": "0.05",
            "cashier_amount": "20.00",
            "currency": "EUR",
        },
        "Money Play at 0.05 EUR a point, 20.00 EUR at the table cashier",
    ),
    _response("waiting", WAITING, 201, "Queued: nothing charged until the seat"),
    _response("already waiting", WAITING, 200, "The same request again: the ticket waiting"),
]
JOIN_REFUSED = {
    409: problem_response(
        "already waiting for another game",
        problem_example(
            QuickSeatAlreadyQueuedProblem,
            "You already wait for a quick seat at another game: cancel it first.",
            instance=PATH,
            ticket_id=317,
        ),
    ),
    422: problem_response(
        "no room plays it; amounts the room does not take",
        problem_example(
            QuickSeatNoRoomProblem,
            "No room in your lobby plays this game at this stake in EUR.",
            instance=PATH,
            variant="match",
            currency="EUR",
        ),
    ),
}
SHOW = [_response("seated", SEATED, 200, "Seated: open the match's socket")]
CANCEL = [
    _response(
        "cancelled",
        WAITING | {"status": "cancelled", "band": None, "ended_at": "2026-12-06T20:15:09Z"},
        200,
        "Free: nothing was charged (again: the same answer)",
    )
]
CANCEL_REFUSED = {
    409: problem_response(
        "seated, expired or refused already",
        problem_example(
            QuickSeatNotWaitingProblem,
            "You were seated already: your game is on.",
            instance=PATH,
            ticket_status="seated",
            match_id=4242,
        ),
    )
}
