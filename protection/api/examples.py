"""OpenAPI examples of player protection's endpoints (docs/player-protection.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample


def _request(name: str, value: dict) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


def _response(name: str, value: dict, status: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status)])


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


PROFILE = {
    "jurisdiction": "es",
    "session_limits_required": True,
    "limit_reached": "end_of_hand",
    "session_ends_on_limit": True,
    "reality_check_minutes": 60,
    "time_out_days": [1, 7, 30, 42],
    "self_exclusion_min_days": 183,
}
CHECK = {
    "id": 301,
    "session_id": 88,
    "due_at": "2026-12-06T20:00:00Z",
    "shown_at": "2026-12-06T20:00:41.350000Z",
    "elapsed_seconds": 3641,
    "net_position": _eur("-12.40"),
    "answer": None,
    "answered_at": None,
    "answers": ["continue", "end_session"],
    "links": {"history": "/api/v1/me/history/summary", "limits": "/api/v1/me/play-session"},
}
SESSION = {
    "id": 88,
    "state": "open",
    "jurisdiction": "es",
    "started_at": "2026-12-06T19:00:00Z",
    "elapsed_seconds": 0,
    "duration_limit_minutes": 90,
    "duration_ends_at": "2026-12-06T20:30:00Z",
    "loss_limit": _eur("50.00"),
    "net_position": _eur("0.00"),
    "in_play": _eur("0.00"),
    "limits_set_at": "2026-12-06T19:00:00Z",
    "first_buy_in_at": None,
    "reality_check_minutes": 60,
    "next_reality_check_at": "2026-12-06T20:00:00Z",
    "reality_check": None,
    "limit_reached": None,
    "limit_reached_at": None,
    "ended_at": None,
    "end_reason": None,
}

SESSION_START = [
    _request("Ninety minutes, at most 50.00 lost", {"duration_minutes": 90, "loss_limit": "50.00"}),
    _response("The session, started", {"profile": PROFILE, "session": SESSION}, status=201),
]
SESSION_END = [
    _response("Ended: no open session", {"profile": PROFILE, "session": None}),
]
REALITY_CHECK_ANSWER = [
    _request("Play on", {"answer": "continue"}),
    _request("End the session", {"answer": "end_session"}),
    _response(
        "Answered",
        {**CHECK, "answer": "continue", "answered_at": "2026-12-06T20:01:02.004000Z"},
    ),
]
