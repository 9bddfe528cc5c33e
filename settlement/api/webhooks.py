"""The webhooks settlement sends, as the OpenAPI document describes them (OpenAPI 3.1
``webhooks``, listed in SPECTACULAR_SETTINGS ``WEBHOOKS``; docs/webhooks.md).

Each event is POSTed to the operator's ``webhook_url`` as ``{"id", "type", "created_at",
"data"}`` (gin_platform.events.webhooks.webhook_body), signed in ``X-Gin-Signature``; the
OpenAPI postprocessing hook (gin_platform.http.openapi) adds the headers. Any 2xx answer is a
delivery; anything else is retried with backoff. tests/platform/test_openapi_document.py
fails when the code sends an event type that is not documented here.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, OpenApiWebhook, extend_schema

from settlement.api.serializers import GameFinishedWebhook, GameSettledWebhook

# The examples carry no request_only: drf-spectacular builds a webhook's body as the
# receiving end's request, which it files under "response" (plumbing.process_webhooks).
ANSWERS = {
    200: OpenApiResponse(
        description="Any 2xx: delivered. Anything else, a redirect or no answer within 10 s "
        "is retried after 30 s, doubling up to 6 h, 10 attempts in all."
    )
}
PLAYERS = ("8d0f6f5e-2b1c-4e7a-9a34-2f1d5c6b7a80", "c41e9b2a-7d3f-4a61-8e5b-0b9c2d4f6a13")

GAME_FINISHED_EXAMPLE = {
    "id": "3f6c1c7e-9a52-4c8e-a1d4-6a0e5b7c2d91",
    "type": "game.finished",
    "created_at": "2026-11-29T22:40:01.204Z",
    "data": {
        "match_id": 42,
        "result": {
            "format": 1,
            "match_id": 42,
            "game_ref": "match:42",
            "variant": "ftk",
            "reason": "first_to_knock",
            "winner_seat": 0,
            "reached_target": 0,
            "hand_points": [18, 0],
            "hands_won": [1, 0],
            "hands_played": 1,
            "target": None,
            "money_play": None,
            "forfeit": None,
            "currency": "EUR",
            "is_practice": False,
            "fee_bps": 500,
            "stake": 1250,
            "stake_per_point": None,
            "seats": [
                {
                    "position": position,
                    "seat_id": 83 + position,
                    "player_id": player,
                    "amount": 1250,
                    "currency": "EUR",
                }
                for position, player in enumerate(PLAYERS)
            ],
            "finished_at": "2026-11-29T22:40:00.912000+00:00",
        },
    },
}


def _eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


def _line(seat: int, component: str, amount: str) -> dict:
    return {"seat": seat, "player_id": PLAYERS[seat], "component": component, **_eur(amount)}


GAME_SETTLED_EXAMPLE = {
    "id": "b7a2e0d4-51c8-4f3e-9d26-8c4a1f0e7b35",
    "type": "game.settled",
    "created_at": "2026-11-29T22:40:01.530Z",
    "data": {
        "match_id": 42,
        "statement": {
            "format": 1,
            "match_id": 42,
            "game_ref": "match:42",
            "variant": "ftk",
            "currency": "EUR",
            "is_practice": False,
            "reason": "first_to_knock",
            "winner_seat": 0,
            "forfeit": None,
            "hand_points": [18, 0],
            "hands_won": [1, 0],
            "hands_played": 1,
            "target": None,
            "stake": _eur("12.50"),
            "stake_per_point": None,
            "fee_bps": 500,
            "fee": _eur("1.25"),
            "escrow": _eur("25.00"),
            "lines": [
                _line(0, "stake", "12.50"),
                _line(0, "pot", "12.50"),
                _line(0, "fee_deduction", "-1.25"),
                _line(1, "stake", "12.50"),
                _line(1, "pot", "-12.50"),
            ],
            "players": [
                {
                    "seat": 0,
                    "player_id": PLAYERS[0],
                    "screen_name": "alice",
                    "external_ref": "casino-user-1001",
                    "escrowed": _eur("12.50"),
                    "payout": _eur("23.75"),
                    "net": _eur("11.25"),
                    "credited": _eur("23.75"),
                    "fx": None,
                },
                {
                    "seat": 1,
                    "player_id": PLAYERS[1],
                    "screen_name": "bob",
                    "external_ref": "casino-user-1002",
                    "escrowed": _eur("12.50"),
                    "payout": _eur("0.00"),
                    "net": _eur("-12.50"),
                    "credited": None,
                    "fx": None,
                },
            ],
            "ledger_reference": "settlement:match:42",
            "ledger_transaction_id": 9107,
        },
    },
}

GAME_FINISHED = OpenApiWebhook(
    name="game.finished",
    decorator=extend_schema(
        summary="A game has its result",
        description="Sent when a match ends (R10: first to knock, target reached or a "
        "forfeit), before it is paid: `data.result` is the result as games records it "
        '(docs/games.md "Match result"; amounts in minor units). `game.settled` follows '
        "once the money has moved.",
        request=GameFinishedWebhook,
        responses=ANSWERS,
        examples=[
            OpenApiExample(
                "First To Knock, won by seat 0",
                value=GAME_FINISHED_EXAMPLE,
            )
        ],
    ),
)

GAME_SETTLED = OpenApiWebhook(
    name="game.settled",
    decorator=extend_schema(
        summary="A game's money has been posted",
        description="Sent once settlement has posted the game to the ledger, exactly once "
        "per game: `data.statement` is its statement (docs/settlement.md), every amount a "
        "decimal string with its currency, the same as `GET /api/v1/settlements/{match_id}`.",
        request=GameSettledWebhook,
        responses=ANSWERS,
        examples=[
            OpenApiExample(
                "First To Knock: 12.50 EUR each, 5% fee",
                value=GAME_SETTLED_EXAMPLE,
            )
        ],
    ),
)
