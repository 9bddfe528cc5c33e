"""OpenAPI examples of the tournaments API (docs/tournaments.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample


def _request(name: str, value: dict) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


def _response(name: str, value: dict, status: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status)])


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


CREATE_REQUEST = {
    "name": "Sunday Knockout",
    "kind": "scheduled",
    "seats": 2,
    "currency": "EUR",
    "buy_in": "10.00",
    "entry_fee": "1.00",
    "guaranteed": "1000.00",
    "min_entries": 16,
    "max_entries": 1024,
    "starts_at": "2026-12-13T20:00:00Z",
    "round_settings": [
        {"variant": "ftk", "target": None},
        {"variant": "match", "target": 100},
    ],
}
TOURNAMENT = {
    "id": 12,
    "name": "Sunday Knockout",
    "kind": "scheduled",
    "status": "registering",
    "network": False,
    "seats": 2,
    "advance": 1,
    "round_settings": [
        {"variant": "ftk", "target": None},
        {"variant": "match", "target": 100},
    ],
    "buy_in": _eur("10.00"),
    "entry_fee": _eur("1.00"),
    "guaranteed": _eur("1000.00"),
    "prize_pool": _eur("1000.00"),
    "overlay": _eur("0.00"),
    "entries": 0,
    "min_entries": 16,
    "max_entries": 1024,
    "no_show_seconds": 120,
    "registration_opens_at": "2026-12-06T18:00:00Z",
    "starts_at": "2026-12-13T20:00:00Z",
    "started_at": None,
    "ended_at": None,
    "rounds": 0,
    "seed_commitment": "5d41402abc4b2a76b9719d911017c592e4b0d6b1f6a0b0c7e5c2f9e4a1d3b7c9",
    "seed": None,
    "seeding": "draw",
    "cancel_reason": "",
    "satellite_for": None,
    "my_ticket": None,
    "prizes": [{"place": 1, "prize": _eur("1000.00"), "ticket": False}],
}
# A player's view: they hold a ticket worth the whole entry (buy-in 10.00 + fee 1.00).
MY_TICKET = {"value": _eur("11.00"), "covers_entry": True}
ENTRY = {
    "tournament_id": 12,
    "number": 37,
    "player_id": "8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80",
    "status": "registered",
    "payment": "cash",
    "paid": _eur("11.00"),
    "registered_at": "2026-12-06T18:40:00Z",
    "draw_position": None,
    "seed_rating": None,
    "round_out": None,
    "out_reason": "",
    "place_from": None,
    "place_to": None,
    "prize": None,
    "prize_ticket": False,
    "match_id": None,
}

SEEDED_REQUEST = {
    "name": "Friday Masters",
    "kind": "sit_and_go",
    "seats": 2,
    "currency": "EUR",
    "buy_in": "20.00",
    "entry_fee": "2.00",
    "max_entries": 16,
    "seeding": "rating",
    "round_settings": [{"variant": "match", "target": 100}],
}
CREATE = [
    _request("A scheduled knockout with a guarantee", CREATE_REQUEST),
    _request("A sit and go seeded by rating (R15): 1 plays 16, 8 plays 9, ...", SEEDED_REQUEST),
    _response("Created; registration open", TOURNAMENT, 201),
]
CANCEL = [
    _response(
        "Cancelled before any result: every entry refunded",
        {**TOURNAMENT, "status": "cancelled", "cancel_reason": "operator", "seed": "9f2c" * 16},
    )
]
_LISTED = {key: value for key, value in TOURNAMENT.items() if key != "prizes"}
LIST = [
    _response(
        "A player's lobby: a tournament they hold a ticket to", {**_LISTED, "my_ticket": MY_TICKET}
    ),
    _response("An operator's lobby (`my_ticket` is a player's only)", _LISTED),
]
DETAIL = [
    _response("A player holding a ticket worth the entry", {**TOURNAMENT, "my_ticket": MY_TICKET}),
    _response("A player holding none, or an operator", TOURNAMENT),
]
ENTRY_CREATE = [
    _request("Your player, paid from their wallet", {"player_id": ENTRY["player_id"]}),
    _response("Registered", ENTRY, 201),
]
REGISTER = [
    _request("With money (or free at a freeroll)", {}),
    _request("With my ticket", {"ticket": True}),
    _response("Registered", ENTRY, 201),
]
SEAT = [
    _response("Seated: play it at /api/v1/matches/4242", {"match_id": 4242, "round": 2, "table": 5})
]
UNREGISTER = [
    _response(
        "Withdrawn: the entry refunded in full",
        {**ENTRY, "status": "unregistered"},
    )
]

STATEMENT = {
    "tournament_id": 12,
    "player_id": ENTRY["player_id"],
    "entry_number": 37,
    "status": "out",
    "currency": "EUR",
    "lines": [
        {
            "transaction_id": 9001,
            "kind": "buy_in",
            "account": "player",
            "component": "stake",
            "amount": _eur("-11.00"),
            "reference": "tournament-entry:4411",
            "created_at": "2026-12-06T18:40:00Z",
        },
        {
            "transaction_id": 9001,
            "kind": "buy_in",
            "account": "escrow",
            "component": "stake",
            "amount": _eur("11.00"),
            "reference": "tournament-entry:4411",
            "created_at": "2026-12-06T18:40:00Z",
        },
        {
            "transaction_id": 9377,
            "kind": "tournament_prize",
            "account": "escrow",
            "component": "prize",
            "amount": _eur("-25.60"),
            "reference": "tournament-prize:12:round-9",
            "created_at": "2026-12-13T23:05:12Z",
        },
        {
            "transaction_id": 9377,
            "kind": "tournament_prize",
            "account": "player",
            "component": "payout",
            "amount": _eur("25.60"),
            "reference": "tournament-prize:12:round-9",
            "created_at": "2026-12-13T23:05:12Z",
        },
    ],
    "totals": {"paid_in": _eur("11.00"), "paid_out": _eur("25.60"), "net": _eur("14.60")},
}
STATEMENT_RESPONSE = [_response("Entered, out in the semi-final, 3rd-4th paid", STATEMENT)]

# --- Staff: four eyes --------------------------------------------------------------------------
_OPTIONS = {
    **CREATE_REQUEST,
    "name": "Network Sunday Million",
    "advance": 1,
    "prize_table": [],
    "no_show_seconds": 120,
    "registration_opens_at": None,
    "turn_seconds": 30,
    "rules": {},
    "satellite_for": None,
    "seeding": "draw",
}
STAFF_REQUEST = {
    "id": 31,
    "kind": "create",
    "status": "pending",
    "operator_id": "5b7e2f0c-1d2a-4c3b-8e9f-0a1b2c3d4e5f",
    "network": True,
    "tournament_id": None,
    "options": _OPTIONS,
    "reason": "December promotion, budget approved by marketing",
    "proposed_by": "ana",
    "proposed_at": "2026-12-01T09:12:00Z",
    "decided_by": None,
    "decided_at": None,
    "decision_note": "",
    "result_ref": "",
}
STAFF_CREATE = [
    _request(
        "A network tournament with a guarantee",
        {
            **CREATE_REQUEST,
            "name": "Network Sunday Million",
            "reason": "December promotion, budget approved by marketing",
        },
    ),
    _response("Proposed: another staff member approves it", STAFF_REQUEST, 201),
]
STAFF_CANCEL = [
    _request("Why", {"reason": "collusion ring found at its tables (case 88)"}),
    _response(
        "Proposed: another staff member approves it",
        {
            **STAFF_REQUEST,
            "id": 32,
            "kind": "cancel",
            "tournament_id": 12,
            "options": None,
            "network": False,
            "reason": "collusion ring found at its tables (case 88)",
        },
        201,
    ),
]
STAFF_APPROVED = [
    _request("With a note", {"note": "budget checked"}),
    _response(
        "Executed: the tournament exists",
        {
            **STAFF_REQUEST,
            "status": "executed",
            "tournament_id": 77,
            "decided_by": "ben",
            "decided_at": "2026-12-01T10:02:00Z",
            "decision_note": "budget checked",
            "result_ref": "tournament:77",
        },
    ),
]
STAFF_REJECTED = [
    _request("With a note", {"note": "the guarantee is over this month's budget"}),
    _response(
        "Rejected: never run",
        {
            **STAFF_REQUEST,
            "status": "rejected",
            "decided_by": "ben",
            "decided_at": "2026-12-01T10:02:00Z",
            "decision_note": "the guarantee is over this month's budget",
        },
    ),
]
