"""OpenAPI examples of the markers of harm's staff endpoints (docs/player-protection.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from protection.problems import HarmRuleInvalidProblem


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


DEPOSITS_EVIDENCE = {
    "last_7_days": {"from": "2026-11-24T00:00:00+00:00", "to": "2026-12-01T00:00:00+00:00"},
    "previous_7_days": {"from": "2026-11-17T00:00:00+00:00", "to": "2026-11-24T00:00:00+00:00"},
    "threshold_percent": 100,
    "currencies": [
        {
            "currency": "EUR",
            "last_7_days": _eur("450.00"),
            "previous_7_days": _eur("120.00"),
            "increase_percent": 275,
            "minimum": _eur("100.00"),
        }
    ],
}
RULE = {
    "code": "long_sessions",
    "summary": "A play session in play on the day lasted longer than hours",
    "enabled": True,
    "params": {"hours": 3},
    "defaults": {"hours": 4},
    "updated_at": "2026-11-30T09:12:00Z",
    "updated_by": "ana.risk",
}
FLAG = {
    "id": 88,
    "player": {
        "player_id": "8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80",
        "operator_id": "5408f625-bf01-4e11-8fbb-35b4bfc1fa10",
        "external_ref": "casino-user-1001",
        "screen_name": "alice77",
    },
    "rule": "deposits_rising",
    "day": "2026-11-30",
    "evidence": DEPOSITS_EVIDENCE,
    "created_at": "2026-12-01T00:15:02Z",
}

RULE_UPDATE = [
    OpenApiExample("Flag sessions over 3 hours", value={"params": {"hours": 3}}, request_only=True),
    OpenApiExample("Stop a rule", value={"enabled": False}, request_only=True),
    OpenApiExample("Changed", value=RULE, response_only=True, status_codes=["200"]),
]
RULE_UPDATE_INVALID = problem_response(
    "harm-rule-invalid: a parameter out of its bounds, of the wrong type or unknown to the rule "
    "(`field` names it); nothing changed",
    problem_example(
        HarmRuleInvalidProblem,
        "params.hours is from 1 to 72",
        instance="/api/v1/staff/protection/harm-rules/long_sessions",
        field="params.hours",
    ),
)
# A list's example is one item: drf-spectacular puts it in the list (and the page).
RULE_LIST = [OpenApiExample("A rule", value=RULE, response_only=True)]
FLAG_LIST = [OpenApiExample("A flag", value=FLAG, response_only=True)]
