"""OpenAPI examples of the operator events: one ``data`` per type (the webhooks and the
events API share them), and the events API's and subscriptions' requests and answers."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from gin_platform.http.problems import NotFoundProblem, ValidationProblem

ALICE = {"player_id": "8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80", "external_ref": "casino-user-1001"}
BOB = {"player_id": "c41e9b2a-7d3f-4a61-8e5b-0b9c2d4f6a13", "external_ref": "casino-user-1002"}


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


_SEAT = {"match_id": 42, "table_id": 7, "room_id": 3, "position": 0, "is_practice": False}

# The ``data`` of one example event of each type (gin_platform/events/catalogue.py).
DATA: dict[str, dict] = {
    "deposit.completed": {
        **ALICE,
        "transaction_id": 9001,
        "reference": "dep-2026-11-30-0001",
        "amount": _eur("50.00"),
        "balance": _eur("62.50"),
    },
    "deposit.refused": {
        **ALICE,
        "reference": "dep-2026-11-30-0002",
        "amount": _eur("500.00"),
        "problem": {
            "type": "/problems/limit-exceeded",
            "title": "The player's limit does not allow this",
            "detail": "the daily deposit limit (100.00 EUR) would be exceeded",
        },
    },
    "withdrawal.completed": {
        **ALICE,
        "transaction_id": 9002,
        "reference": "wd-2026-11-30-0001",
        "amount": _eur("20.00"),
        "balance": _eur("42.50"),
    },
    "withdrawal.refused": {
        **BOB,
        "reference": "wd-2026-11-30-0002",
        "amount": _eur("20.00"),
        "problem": {
            "type": "/problems/kyc-required",
            "title": "The player's identity is not verified",
            "detail": "withdrawals need a verified identity (kyc_status is pending)",
        },
    },
    "limit.changed": {
        **ALICE,
        "kind": "deposit",
        "period": "day",
        "old": _eur("100.00"),
        "new": _eur("200.00"),
        "effective_at": "2026-12-01T18:40:00.000Z",
        "pending": True,
    },
    "self_exclusion.started": {
        **BOB,
        "starts_at": "2026-11-30T18:40:00.000Z",
        "ends_at": "2027-06-01T18:40:00.000Z",
        "days": 183,
        "by": "operator",
    },
    "time_out.started": {
        **ALICE,
        "starts_at": "2026-11-30T18:40:00.000Z",
        "ends_at": "2026-12-07T18:40:00.000Z",
        "days": 7,
        "by": "player",
    },
    "seat.taken": {**ALICE, **_SEAT, "buy_in": _eur("12.50")},
    "seat.left": {
        **BOB,
        **_SEAT,
        "position": 1,
        "refunded": _eur("12.50"),
        "forfeited": False,
    },
    "hand.ended": {
        "match_id": 42,
        "hand": 3,
        "outcome": "knock",
        "knocker_seat": 0,
        "winner_seat": 0,
        "winner": ALICE,
        "points": 18,
        "score": [61, 25],
    },
    "game.voided": {
        "match_id": 42,
        "reason": "interrupted",
        "refunded": [
            {"seat": 0, "amount": 500, "currency": "EUR"},
            {"seat": 1, "amount": 500, "currency": "EUR"},
        ],
    },
    "settlement.failed": {
        "match_id": 42,
        "problem": {
            "type": "/problems/server-error",
            "title": "Internal server error",
            "detail": "Internal server error",
        },
    },
    "wallet.call_failed": {
        "transaction_id": "5b0e2c8a-1f4d-4b7e-9c3a-6d2e8f1a7b40",
        "kind": "credit",
        **ALICE,
        **_eur("23.75"),
        "reason": "payout",
        "purpose": "settlement:match:42:seat:0",
        "attempts": 12,
        "last_error": "timeout",
        "since": "2026-11-30T18:25:00.000000+00:00",
    },
    "integrity.case_opened": {
        "case_id": 17,
        "signals": ["chip_dumping", "player_report"],
        "players": [
            {**ALICE, "screen_name": "alice77", "own": True},
            {"masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a", "screen_name": "dealer_dan", "own": False},
        ],
        "opened_at": "2026-11-30T18:40:00.125000+00:00",
    },
    "integrity.case_action": {
        "case_id": 17,
        "action": "confiscation_executed",
        "player": {
            "masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a",
            "screen_name": "dealer_dan",
            "own": False,
        },
        "other_player": None,
        "at": "2026-11-30T19:05:00.000000+00:00",
        "confiscation_id": 4,
        "status": "executed",
        "amount": _eur("19.00"),
        "colluder": {
            "masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a",
            "screen_name": "dealer_dan",
            "own": False,
        },
        "refunds": [{**ALICE, "screen_name": "alice77", "own": True, "amount": _eur("19.00")}],
    },
    "integrity.case_closed": {
        "case_id": 17,
        "players": [
            {**ALICE, "screen_name": "alice77", "own": True},
            {"masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a", "screen_name": "dealer_dan", "own": False},
        ],
        "actions": ["ban", "confiscation_executed"],
        "closed_at": "2026-11-30T19:10:00.000000+00:00",
    },
    "integrity.report_received": {
        "report_id": 31,
        "reporter": {**ALICE, "screen_name": "alice77", "own": True},
        "reported": {
            "masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a",
            "screen_name": "dealer_dan",
            "own": False,
        },
        "match_id": 42,
        "category": "chip_dumping",
        "status": "under_review",
        "received_at": "2026-11-30T18:39:58.000000+00:00",
    },
    "session.started": {
        **ALICE,
        "session_id": 88,
        "started_at": "2026-12-06T19:00:00.000000+00:00",
        "duration_limit_minutes": 90,
        "loss_limit": _eur("50.00"),
        "reality_check_minutes": 60,
    },
    "session.reality_check": {
        **ALICE,
        "session_id": 88,
        "reality_check_id": 301,
        "due_at": "2026-12-06T20:00:00.000000+00:00",
        "shown_at": "2026-12-06T20:00:41.350000+00:00",
        "elapsed_seconds": 3641,
        "net_position": _eur("-12.40"),
    },
    "session.limit_reached": {
        **ALICE,
        "session_id": 88,
        "limit": "duration",
        "reached_at": "2026-12-06T20:30:00.000000+00:00",
        "elapsed_seconds": 5400,
        "net_position": _eur("-7.90"),
        "session_ended": True,
    },
    "session.ended": {
        **ALICE,
        "session_id": 88,
        "reason": "duration_limit",
        "started_at": "2026-12-06T19:00:00.000000+00:00",
        "ended_at": "2026-12-06T20:30:00.000000+00:00",
        "net_position": _eur("-7.90"),
    },
    "player.flagged": {
        **ALICE,
        "flag_id": 88,
        "rule": "night_play",
        "day": "2026-11-30",
        "evidence": {
            "window": {
                "from": "2026-11-24T00:00:00+00:00",
                "to": "2026-12-01T00:00:00+00:00",
            },
            "buy_ins": 14,
            "night_buy_ins": 9,
            "night_share_percent": 64.3,
            "night": "00:00-06:00 UTC",
            "threshold_percent": 50,
            "min_buy_ins": 10,
        },
        "flagged_at": "2026-12-01T00:15:02.000000+00:00",
    },
    "tournament.registered": {
        **ALICE,
        "tournament_id": 12,
        "entry_number": 37,
        "payment": "cash",
        "paid": _eur("11.00"),
    },
    "tournament.unregistered": {
        **ALICE,
        "tournament_id": 12,
        "entry_number": 37,
        "payment": "cash",
        "paid": _eur("11.00"),
    },
    "tournament.started": {
        "tournament_id": 12,
        "entries": 64,
        "rounds": 6,
        "prize_pool": _eur("1000.00"),
        "overlay": _eur("360.00"),
        "started_at": "2026-12-06T20:00:00.120000+00:00",
    },
    "tournament.match_ready": {
        **ALICE,
        "tournament_id": 12,
        "round": 2,
        "table": 5,
        "match_id": 4242,
        "seat_by": "2026-12-06T20:14:31.500000+00:00",
    },
    "tournament.eliminated": {**ALICE, "tournament_id": 12, "round": 3, "reason": "lost"},
    "tournament.prize_paid": {
        **ALICE,
        "tournament_id": 12,
        "place_from": 5,
        "place_to": 8,
        "prize": _eur("25.00"),
    },
    "tournament.finished": {
        "tournament_id": 12,
        "status": "finished",
        "reason": "",
        "seed": "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f",
        "ended_at": "2026-12-06T21:42:10.000000+00:00",
    },
    "tournament.cancelled": {
        "tournament_id": 13,
        "status": "cancelled",
        "reason": "too_few_entries",
        "seed": "1a3c5e7f9b0d2f4a6c8e0b2d4f6a8c0e2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2a",
        "ended_at": "2026-12-06T20:00:00.050000+00:00",
    },
}

EVENT_IDS = {
    name: f"0e9a7c52-3b1d-4f6e-8a20-{index:012d}" for index, name in enumerate(sorted(DATA))
}


def envelope(name: str) -> dict:
    """The example webhook body (and events API item) of type ``name``."""
    return {
        "id": EVENT_IDS[name],
        "type": name,
        "created_at": "2026-11-30T18:40:00.125Z",
        "data": DATA[name],
    }


EVENT_LIST = [
    OpenApiExample(
        "A page, more to read",
        value={
            "results": [envelope("seat.taken"), envelope("hand.ended")],
            "next_cursor": "MjAyNi0xMS0zMFQxODo0MDowMC4xMjUwMDArMDA6MDB8MGU5YTdjNTI",
            "has_more": True,
        },
        response_only=True,
    ),
    OpenApiExample(
        "Caught up",
        value={
            "results": [],
            "next_cursor": "MjAyNi0xMS0zMFQxODo0MDowMC4xMjUwMDArMDA6MDB8MGU5YTdjNTI",
            "has_more": False,
        },
        response_only=True,
    ),
]
EVENT_LIST_INVALID = problem_response(
    "An unknown `type`, a `limit` out of range or a cursor this API did not give out",
    problem_example(
        ValidationProblem,
        "unknown event type: game.started",
        errors={"type": ["unknown event type 'game.started'"]},
    ),
)
EVENT_DETAIL = [
    OpenApiExample("A deposit", value=envelope("deposit.completed"), response_only=True)
]
EVENT_NOT_FOUND = problem_response(
    "No such event of this operator (or older than the retention)",
    problem_example(
        NotFoundProblem,
        "event 0e9a7c52-3b1d-4f6e-8a20-000000000099 not found",
        instance="/api/v1/operators/me/events/0e9a7c52-3b1d-4f6e-8a20-000000000099",
    ),
)
SUBSCRIPTION = [
    OpenApiExample(
        "Money events only",
        value={"event_types": ["deposit.completed", "game.settled", "withdrawal.completed"]},
    ),
    OpenApiExample("Everything (the default)", value={"event_types": ["*"]}),
]
SUBSCRIPTION_INVALID = problem_response(
    'An event type not in the catalogue, or "*" with other types',
    problem_example(
        ValidationProblem,
        "unknown event type: game.started",
        errors={"event_types": ["unknown event type 'game.started'"]},
    ),
)
