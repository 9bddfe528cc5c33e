"""OpenAPI examples of the linked-accounts endpoints (docs/integrity.md), checked
against their schemas by the platform's OpenAPI tests."""

from __future__ import annotations

from gin_platform.api.examples import NOW, PLAYER_ID, request, response
from gin_platform.http.openapi import problem_example, problem_response
from integrity.problems import LinkInvalidProblem, LinkNotEndableProblem

OTHER_PLAYER_ID = "0b7e1c55-3f1a-4d4e-9a57-2f6f3c1d8e42"
_LINK = {
    "id": 12,
    "player_id": PLAYER_ID,
    "other_player_id": OTHER_PLAYER_ID,
    "kind": "household",
    "made_by": "operator",
    "seen_at": None,
    "created_at": NOW,
    "ended_at": None,
}
LINK_CREATE = [
    request("household", {"player_id": OTHER_PLAYER_ID, "kind": "household"}),
    request(
        "known associates",
        {"player_id": OTHER_PLAYER_ID, "kind": "associate"},
        "Known to play together: never seated together",
    ),
    response("declared", _LINK, 201, "Never seated together from now on"),
    response("already declared", _LINK, 200, "A retry, or a link already in force"),
]
LINK_CREATE_INVALID = problem_response(
    "link-invalid (`field` names the field)",
    problem_example(
        LinkInvalidProblem,
        "player_id: no player of yours has this id",
        instance=f"/api/v1/players/{PLAYER_ID}/links",
        field="player_id",
    ),
)
LINK_END = [response("ended", _LINK | {"ended_at": "2026-11-29T17:02:40.551208Z"}, 200)]
LINK_END_REFUSED = problem_response(
    "link-not-endable: only a link you declared",
    problem_example(
        LinkNotEndableProblem,
        "link 13 was not declared by you",
        instance=f"/api/v1/players/{PLAYER_ID}/links/13",
    ),
)
_MARK = {
    "player_id": PLAYER_ID,
    "kind": "payment_instrument",
    "first_seen_at": NOW,
    "last_seen_at": NOW,
}
IDENTIFIER_RECORD = [
    request(
        "payment instrument",
        {"kind": "payment_instrument", "value": "psp-fp-9c1d27e0b4"},
        "Your payment provider's fingerprint of the card, never its number",
    ),
    request("device", {"kind": "device", "value": "app-install-7f3c2a"}),
    response("recorded", _MARK, 201, "First seen with this identifier"),
    response("seen again", _MARK | {"last_seen_at": "2026-11-30T09:12:44.002913Z"}, 200),
]
IDENTIFIER_INVALID = problem_response(
    "link-invalid (`field` names the field)",
    problem_example(
        LinkInvalidProblem,
        "value: empty, or an address that is not a public IP address",
        instance=f"/api/v1/players/{PLAYER_ID}/identifiers",
        field="value",
    ),
)
