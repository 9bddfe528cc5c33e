"""Examples of the platform endpoints' writes for the OpenAPI document (docs/api.md).

Taken from real answers of the API (ids, tokens and times replaced by stable values); every
one is checked against its schema by tests/platform/test_openapi_document.py. Secrets and
tokens are shaped like the real ones but say EXAMPLE: none was ever valid.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from gin_platform.http.problems import (
    LaunchTokenInvalidProblem,
    LiveModeForbiddenProblem,
    NotFoundProblem,
    ValidationProblem,
)
from gin_platform.tenancy.services import (
    ApiKeyGraceProblem,
    LastApiKeyProblem,
    LaunchOptionsInvalidProblem,
    OriginExistsProblem,
    OriginInvalidProblem,
    PlayerExistsProblem,
    SessionTtlProblem,
    WebhookUrlInvalidProblem,
)

OPERATOR_ID = "5408f625-bf01-4e11-8fbb-35b4bfc1fa10"
PLAYER_ID = "86d94968-00df-4cd7-8c65-245f055edd98"
NOW = "2026-11-29T16:50:14.707821Z"


def request(name: str, value: dict, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary, request_only=True)


def response(
    name: str, value: dict, status: int, summary: str = "", description: str = ""
) -> OpenApiExample:
    return OpenApiExample(
        name,
        value=value,
        summary=summary,
        description=description,
        response_only=True,
        status_codes=[str(status)],
    )


def invalid(field: str, message: str, instance: str) -> OpenApiExample:
    return problem_example(
        ValidationProblem,
        "One or more fields are invalid",
        instance=instance,
        errors={field: [message]},
    )


# --- Operator --------------------------------------------------------------------------------
OPERATOR = {
    "id": OPERATOR_ID,
    "name": "Casino Royale Online",
    "slug": "casino-royale",
    "mode": "live",
    "status": "active",
    "base_currency": "EUR",
    "webhook_url": "https://casino.example.com/hooks/gin",
    "require_signed_requests": False,
    "created_at": "2026-10-01T09:00:00Z",
}
OPERATOR_UPDATE = [
    request(
        "set the webhook URL",
        {"webhook_url": "https://casino.example.com/hooks/gin", "require_signed_requests": False},
    ),
    request("require signed requests", {"require_signed_requests": True}),
    response("updated", OPERATOR, 200),
]
OPERATOR_UPDATE_REFUSED = problem_response(
    "webhook-url-invalid: not https://, a private address, credentials in the URL, ...",
    problem_example(
        WebhookUrlInvalidProblem,
        "webhook_url: http://10.0.0.7/hooks resolves to a private address",
        instance="/api/v1/operators/me",
        field="webhook_url",
    ),
)

WEBHOOK_SECRET = [
    response(
        "rotated",
        {"secret": "whsec_EXAMPLE-YsXKPwSketSc5MmBEV0kIMyK", "created_at": NOW},
        201,
        "The new secret signs every webhook from now on",
    )
]
SIGNING_SECRET_CREATE = [
    response(
        "created",
        {"id": 3, "secret": "whsec_EXAMPLE-rQKOIC3JoyCWXYa5789b27a", "created_at": NOW},
        201,
    )
]
SIGNING_SECRET_REVOKE = [
    response(
        "revoked",
        {"id": 2, "created_at": "2026-10-01T09:05:00Z", "revoked_at": NOW},
        200,
    )
]

# --- API keys --------------------------------------------------------------------------------
_KEY = {
    "id": 7,
    "prefix": "4a18d36c5b1f",
    "mode": "live",
    "name": "backoffice",
    "status": "active",
    "current": False,
    "created_at": NOW,
    "last_used_at": None,
    "revoked_at": None,
}
_NEW_KEY = "gop_4a18d36c5b1f_EXAMPLE-zyvmlWQTxd3fa_Lm2cSKcY"
_TEST_KEY = "gop_test_9c0e51d2a7b3_EXAMPLE-qX2vMd8wKp4Rt_Yh6nJsLzB"
API_KEY_CREATE = [
    request("named key", {"name": "backoffice"}),
    request("sandbox key", {"name": "ci", "mode": "test"}, "A gop_test_ key of the sandbox"),
    response("created", _KEY | {"key": _NEW_KEY}, 201, "The key is in this response only"),
    response(
        "sandbox key created",
        _KEY | {"id": 9, "prefix": "9c0e51d2a7b3", "mode": "test", "name": "ci", "key": _TEST_KEY},
        201,
        "Acts in the sandbox only: its own players, money, games, webhooks and reports",
    ),
]
API_KEY_CREATE_LIVE_FROM_TEST = problem_response(
    "live-mode-forbidden: a test key cannot create live keys",
    problem_example(
        LiveModeForbiddenProblem,
        "A test-mode key cannot act in live mode",
        instance="/api/v1/api-keys",
        field="mode",
    ),
)
API_KEY_REVOKE = [
    response(
        "revoked",
        _KEY | {"status": "revoked", "revoked_at": "2026-11-29T17:02:41.112034Z"},
        200,
    )
]
API_KEY_REVOKE_REFUSED = problem_response(
    "last-api-key: create or rotate a key before revoking the last one",
    problem_example(
        LastApiKeyProblem,
        "Key 4a18d36c5b1f is the operator's last active API key; create or rotate a key "
        "before revoking it",
        instance="/api/v1/api-keys/7/revoke",
    ),
)
API_KEY_ROTATE = [
    request(
        "with an hour of grace",
        {"grace_seconds": 3600, "name": "backoffice-2026-12"},
        "The old key keeps working for an hour",
    ),
    request("at once", {}, "The old key stops at once"),
    response(
        "rotated",
        _KEY
        | {
            "id": 8,
            "prefix": "a5198e5d657d",
            "name": "backoffice-2026-12",
            "key": "gop_a5198e5d657d_EXAMPLE-lIAcI3Xxog_dQn5qTKzpT",
            "replaces": _KEY | {"status": "revoking", "revoked_at": "2026-11-29T17:50:14.728332Z"},
        },
        201,
    ),
]
API_KEY_ROTATE_REFUSED = problem_response(
    "api-key-grace-out-of-range: grace_seconds from 0 to 604800",
    problem_example(
        ApiKeyGraceProblem,
        "grace_seconds must be between 0 and 604800",
        instance="/api/v1/api-keys/7/rotate",
        field="grace_seconds",
    ),
)

# --- Origins ---------------------------------------------------------------------------------
ORIGIN_CREATE = [
    request("site", {"origin": "https://casino.example.com"}),
    response(
        "registered",
        {"id": 4, "origin": "https://casino.example.com", "created_at": NOW},
        201,
    ),
]
ORIGIN_CREATE_EXISTS = problem_response(
    "origin-exists: already registered (`id` names it)",
    problem_example(
        OriginExistsProblem,
        "https://casino.example.com is already registered",
        instance="/api/v1/operators/me/origins",
        id=4,
    ),
)
ORIGIN_CREATE_INVALID = problem_response(
    "origin-invalid: scheme://host[:port] only",
    problem_example(
        OriginInvalidProblem,
        "origin: an origin has no path, query or fragment",
        instance="/api/v1/operators/me/origins",
        field="origin",
    ),
)

# --- Players ---------------------------------------------------------------------------------
PLAYER = {
    "id": PLAYER_ID,
    "external_ref": "casino-user-1001",
    "display_name": "alice",
    "wallet_currency": "EUR",
    "display_currency": "USD",
    "locale": "en-GB",
    "status": "active",
    "kyc_status": "verified",
    "screen_name": "AceOfClubs",
    "created_at": NOW,
}
PLAYER_CREATE = [
    request(
        "verified player",
        {
            "external_ref": "casino-user-1001",
            "wallet_currency": "EUR",
            "display_currency": "USD",
            "locale": "en-GB",
            "display_name": "alice",
            "kyc_status": "verified",
        },
        "A EUR wallet, amounts also shown in USD",
    ),
    request("minimal", {"external_ref": "casino-user-1002"}, "The operator's base currency"),
    response("created", PLAYER, 201),
]
PLAYER_CREATE_EXISTS = problem_response(
    "player-exists: this external_ref is taken",
    problem_example(
        PlayerExistsProblem,
        "external_ref 'casino-user-1001' is already used by a player of this operator",
        instance="/api/v1/players",
    ),
)
PLAYER_UPDATE = [
    request("rename", {"display_name": "alice_g", "locale": "de-DE"}),
    request("suspend", {"status": "suspended"}),
    response("updated", PLAYER | {"display_name": "alice_g", "locale": "de-DE"}, 200),
]
PLAYER_UPDATE_INVALID = problem_response(
    "validation-error: a field is not valid (`errors` names it)",
    invalid("status", '"frozen" is not a valid choice.', f"/api/v1/players/{PLAYER_ID}"),
)

_SESSION = {
    "id": 31,
    "player_id": PLAYER_ID,
    "created_at": NOW,
    "expires_at": "2026-11-29T17:20:14.707821Z",
    "revoked_at": None,
}
SESSION_CREATE = [
    request("half an hour", {"ttl_seconds": 1800}),
    request("default lifetime", {}, "PLAYER_SESSION_TTL (an hour by default)"),
    request(
        "with the player's device and address",
        {"ttl_seconds": 1800, "device_id": "app-install-7f3c2a", "client_address": "81.2.69.160"},
        "What may link the player to others (docs/integrity.md): kept as keyed hashes",
    ),
    response(
        "minted",
        _SESSION | {"token": "gps_EXAMPLE-E8Vf2tXYQ540uFGfZOhpXxJ52Ks"},
        201,
        "Hand the token to the player's client; it is shown once",
    ),
]
SESSION_CREATE_REFUSED = problem_response(
    "session-ttl-out-of-range",
    problem_example(
        SessionTtlProblem,
        "ttl_seconds must be between 60 and 86400",
        instance=f"/api/v1/players/{PLAYER_ID}/sessions",
    ),
)
SESSION_REVOKE = [
    response("revoked", _SESSION | {"revoked_at": "2026-11-29T16:58:02.004561Z"}, 200)
]

# --- Game launch, socket tickets ---------------------------------------------------------------
_LAUNCH_TOKEN = "glt_EXAMPLE-Lr1nZhdYGoLxK2h_c_iK0KtwtSV9"
_LOBBY = {"mode": "lobby", "match": None, "return_url": "https://casino.example.com/lobby"}
LAUNCH = [
    request(
        "lobby",
        {"mode": "lobby", "return_url": "https://casino.example.com/lobby", "lang": "es-ES"},
        "The player's lobby, in Spanish; the exit button goes back to the casino",
    ),
    request("watch a match", {"mode": "watch", "match": 42}),
    request(
        "lobby, with the player's device and address",
        {"mode": "lobby", "device_id": "app-install-7f3c2a", "client_address": "2a02:c7f::1"},
        "What may link the player to others (docs/integrity.md): kept as keyed hashes",
    ),
    response(
        "launch URL",
        {
            "url": f"https://games.example.com/play/?lang=es#launch={_LAUNCH_TOKEN}",
            "launch_token": _LAUNCH_TOKEN,
            "launch_token_expires_at": "2026-11-29T16:52:14.707821Z",
            "player_id": PLAYER_ID,
            "options": _LOBBY,
            "lang": "es",
        },
        201,
    ),
]
LAUNCH_REFUSED = problem_response(
    "launch-options-invalid (`field` names the option)",
    problem_example(
        LaunchOptionsInvalidProblem,
        "match: the match to watch is required",
        instance=f"/api/v1/players/{PLAYER_ID}/launch",
        field="match",
    ),
)
LAUNCH_SESSION = [
    request("launch token", {"launch_token": _LAUNCH_TOKEN}),
    response(
        "session",
        {
            "token": "gps_EXAMPLE-iPxLB4aHm4sSuRO2rMDi2Mw3YHgJ",
            "expires_at": "2026-11-29T17:50:14.998169Z",
            "player": {
                "id": PLAYER_ID,
                "screen_name": "alice",
                "display_currency": "USD",
                "wallet_currency": "EUR",
                "locale": "en-GB",
            },
            "options": _LOBBY,
            "lang": "es",
        },
        201,
    ),
]
LAUNCH_SESSION_REFUSED = problem_response(
    "launch-token-invalid: unknown, used or expired",
    problem_example(
        LaunchTokenInvalidProblem,
        "This game link is not valid, was used or expired: open the game again.",
        instance="/api/v1/launch/session",
    ),
)
SOCKET_TICKET = [
    response(
        "ticket",
        {
            "ticket": "gst_EXAMPLE-UGzDQZ2hikKBY2FwIjw4zOee_ZKo",
            "expires_at": "2026-11-29T16:50:45.007029Z",
            "ttl_seconds": 30,
        },
        201,
        "Open wss://.../ws/v1/matches/42?ticket=gst_... within 30 s",
    )
]

# --- Webhook deliveries ------------------------------------------------------------------------
REDELIVER = [
    response(
        "queued again",
        {
            "id": "3f6c1c7e-9a52-4c8e-a1d4-6a0e5b7c2d91",
            "event_type": "game.settled",
            "url": "https://casino.example.com/hooks/gin",
            "status": "pending",
            "attempt_count": 10,
            "next_attempt_at": "2026-11-29T16:50:14.707821Z",
            "created_at": "2026-11-28T21:12:03.550120Z",
            "delivered_at": None,
            "last_error": "HTTP 503",
            "payload": {"match_id": 42, "statement": {"match_id": 42, "currency": "EUR"}},
            "attempts": [
                {
                    "number": 10,
                    "started_at": "2026-11-29T03:12:09.104211Z",
                    "duration_ms": 214,
                    "response_status": 503,
                    "error": "HTTP 503",
                }
            ],
        },
        202,
        "One more attempt is on its way",
        "`payload` is the event's `data` (shortened here); the document's `webhooks` show "
        "each event in full.",
    )
]
REDELIVER_NOT_FOUND = problem_response(
    "Not found, or another operator's",
    problem_example(
        NotFoundProblem,
        "No webhook delivery 2b1f8c7e-0d4a-4f57-9a0e-3c6e1d9b5a21 for this operator",
        instance="/api/v1/webhooks/deliveries/2b1f8c7e-0d4a-4f57-9a0e-3c6e1d9b5a21/redeliver",
    ),
)


# --- The network -----------------------------------------------------------------------------
NETWORK_MEMBERSHIP = {
    "member": True,
    "all_rooms": False,
    "joined_at": NOW,
    "left_at": None,
    "fee_share_bps": 2000,
    "reveal_operators": False,
}
NETWORK_MEMBERSHIP_UPDATE = [
    request(
        "join, choosing rooms one by one",
        {"member": True, "all_rooms": False},
        "Then opt into rooms with PUT /operators/me/network/rooms/{id}",
    ),
    request("join, offering every room", {"member": True, "all_rooms": True}),
    request("leave", {"member": False}, "Seated players play on; nobody sits down again"),
    response("joined", NETWORK_MEMBERSHIP, 200),
]
