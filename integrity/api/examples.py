"""OpenAPI examples of integrity's endpoints (docs/integrity.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

SHARK = {
    "player_id": "8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80",
    "operator_id": "5408f625-bf01-4e11-8fbb-35b4bfc1fa10",
    "external_ref": "casino-user-1001",
    "screen_name": "shark",
}
MINNOW = {"masked_id": "mp_3f9a1c0d7e2b4a6c8d0e1f2a", "screen_name": "minnow"}


def request(name: str, value: dict) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


def response(name: str, value: dict, status: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status)])


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


ALERT = {
    "id": 311,
    "signal": "chip_dumping",
    "player": SHARK,
    "other_player": MINNOW,
    "score": 4.7,
    "threshold": 3.0,
    "reasoning": {"statistic": "z", "matches": [42, 57], "note": "one-way flow"},
    "status": "in_case",
    "case_id": 17,
    "created_at": "2026-11-30T18:00:00Z",
}
CONFISCATION = {
    "id": 4,
    "case_id": 17,
    "status": "pending",
    "colluder": SHARK,
    "amount": _eur("19.00"),
    "refunds": [{"player": MINNOW, "amount": _eur("19.00")}],
    "reason": "chip dumping, hands 42/1-3 reviewed",
    "proposed_by": "ana.risk",
    "proposed_at": "2026-11-30T19:00:00Z",
    "decided_by": None,
    "decided_at": None,
    "decision_note": "",
    "result_ref": "",
}
CASE = {
    "id": 17,
    "status": "open",
    "title": "shark and minnow",
    "opened_by": "detection",
    "created_at": "2026-11-30T18:05:00Z",
    "closed_at": None,
    "resolution": "",
    "players": [SHARK, MINNOW],
    "alerts": [ALERT],
    "notes": [
        {
            "id": 2,
            "author": "ana.risk",
            "text": "look at hand 3",
            "created_at": "2026-11-30T18:20:00Z",
        }
    ],
    "actions": [
        {
            "id": 9,
            "kind": "suspend",
            "player": SHARK,
            "other_player": None,
            "reason": "under review",
            "actor": "ana.risk",
            "created_at": "2026-11-30T18:30:00Z",
        }
    ],
    "sanctions": [
        {
            "id": 5,
            "kind": "suspension",
            "player": SHARK,
            "in_force": True,
            "created_at": "2026-11-30T18:30:00Z",
            "lifted_at": None,
        }
    ],
    "confiscations": [],
    "evidence": {
        "pairs": [
            {
                "players": [SHARK, MINNOW],
                "money_flow": {
                    "games": [
                        {
                            "game_ref": "match:42",
                            "net": {
                                SHARK["player_id"]: _eur("9.50"),
                                MINNOW["masked_id"]: _eur("-10.00"),
                            },
                        }
                    ],
                    "totals": {
                        "EUR": {
                            SHARK["player_id"]: _eur("9.50"),
                            MINNOW["masked_id"]: _eur("-10.00"),
                        }
                    },
                },
                "matches": [
                    {
                        "match_id": 42,
                        "status": "settled",
                        "variant": "match",
                        "created_at": "2026-11-30T17:00:00Z",
                        "hands": [
                            {
                                "number": 1,
                                "status": "ended",
                                "replay": "/api/v1/staff/integrity/cases/17/hands/42/1",
                            }
                        ],
                    }
                ],
            }
        ]
    },
}

CASE_OPEN = [
    request("from alerts", {"title": "shark and minnow", "alert_ids": [311, 312]}),
    response("opened", CASE, 201),
]
CASE_ALERTS = [request("alerts", {"alert_ids": [313]}), response("the case", CASE)]
CASE_NOTE = [request("note", {"text": "look at hand 3"}), response("the case", CASE, 201)]
CASE_ACTION = [
    request(
        "suspend",
        {"kind": "suspend", "player_id": SHARK["player_id"], "reason": "under review"},
    ),
    request(
        "block a pairing",
        {
            "kind": "block_pairing",
            "player_id": SHARK["player_id"],
            "other_player_id": "c41e9b2a-7d3f-4a61-8e5b-0b9c2d4f6a13",
            "reason": "never together again",
        },
    ),
    response("the case", CASE, 201),
]
CASE_CLOSE = [
    request("close", {"resolution": "confiscated and banned"}),
    response("closed", CASE | {"status": "closed", "closed_at": "2026-11-30T20:00:00Z"}),
]
ALERTS_GROUPED = [response("grouped", {"grouped": 3})]
CONFISCATION_PROPOSE = [
    request(
        "propose",
        {
            "colluder_id": SHARK["player_id"],
            "currency": "EUR",
            "refunds": [{"player_id": "c41e9b2a-7d3f-4a61-8e5b-0b9c2d4f6a13", "amount": "19.00"}],
            "reason": "chip dumping, hands 42/1-3 reviewed",
        },
    ),
    response("proposed", CONFISCATION, 201),
]
CONFISCATION_APPROVED = [
    request("approve", {"note": "agreed"}),
    response(
        "executed",
        CONFISCATION
        | {
            "status": "executed",
            "decided_by": "ben.risk",
            "decided_at": "2026-11-30T19:05:00Z",
            "decision_note": "agreed",
            "result_ref": "ledger_transaction:9120",
        },
    ),
]
CONFISCATION_REJECTED = [
    request("reject", {"note": "the evidence is thin"}),
    response(
        "rejected",
        CONFISCATION
        | {
            "status": "rejected",
            "decided_by": "ben.risk",
            "decided_at": "2026-11-30T19:05:00Z",
            "decision_note": "the evidence is thin",
        },
    ),
]
REPORT = {
    "id": 31,
    "match_id": 42,
    "reported": "shark",
    "category": "chip_dumping",
    "status": "received",
    "created_at": "2026-11-30T18:39:58Z",
    "updated_at": "2026-11-30T18:39:58Z",
}
REPORT_CREATE = [
    request("by seat", {"match_id": 42, "seat": 1, "category": "chip_dumping", "text": ""}),
    request(
        "by screen name",
        {"match_id": 42, "reported": "shark", "category": "collusion", "text": "they never knock"},
    ),
    response("received", REPORT, 201),
]
ALERT_DISMISS = [
    request("dismiss", {"reason": "two friends, one game: nothing to see"}),
    response(
        "dismissed",
        ALERT | {"status": "dismissed", "case_id": None, "signal": "repeated_pairing"},
    ),
]
