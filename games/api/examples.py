"""Examples of the games endpoints' writes for the OpenAPI document (docs/api.md).

Taken from real answers of the API during one First To Knock game at 12.50 EUR (ids, seeds
and times replaced by stable values); every one is checked against its schema by
tests/platform/test_openapi_document.py, so a field added to a shape must be added here too.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse

from games.problems import (
    BotNotAllowedProblem,
    IllegalActionProblem,
    KnockOverLimitProblem,
    MatchNotInProgressProblem,
    NotSeatedProblem,
    NotYourTurnProblem,
    ScreenNameTakenProblem,
    StaleSequenceProblem,
)
from gin_platform.http.openapi import problem_example, problem_response
from gin_platform.http.problems import ValidationProblem
from wallet.api.serializers import WalletUnavailableProblemOutput
from wallet.problems import (
    AmountTooPreciseProblem,
    InsufficientFundsProblem,
    SelfExcludedProblem,
    TimedOutProblem,
    WalletUnavailableProblem,
)

NOW = "2026-11-29T20:15:02.913404Z"
MATCH = "/api/v1/matches/42"
# R13's clock options as a room gives them (docs/rules.md R13).
TURN_CLOCK = {
    "time_bank_seconds": 60,
    "time_bank_top_up_seconds": 10,
    "reconnect_grace_seconds": 30,
    "auto_play_turns": 3,
}
RULES = {
    "knock_limit": 10,
    "gin_bonus": 25,
    "big_gin_bonus": 31,
    "undercut_bonus": 25,
    "tie_rule": "undercut",
    "stock_exhaustion": "void",
}


def request(name: str, value: dict, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary, request_only=True)


def response(name: str, value: dict, status: int, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, summary=summary, response_only=True, status_codes=[str(status)]
    )


def eur(amount: str, *, displayed: bool = False) -> dict:
    """An amount; a player's answer also shows it in their display currency (R11)."""
    money: dict = {"amount": amount, "currency": "EUR"}
    if displayed:
        money["display"] = {"amount": amount, "currency": "EUR", "rate": "1", "as_of": None}
    return money


# --- Rooms -----------------------------------------------------------------------------------
ROOM = {
    "id": 7,
    "name": "FTK 12.50",
    "variant": "ftk",
    "rules": RULES,
    "target": None,
    "stake": eur("12.50"),
    "stake_per_point_choices": [],
    "cashier_min": None,
    "cashier_max": None,
    "fee_bps": 500,
    "currency": "EUR",
    "is_practice": False,
    "bot_enabled": False,
    "bot_level": None,
    "turn_seconds": 30,
    "turn_clock": TURN_CLOCK,
    "seats": 2,
    "prize_table": "winner_takes_all",
    "purpose": "cash",
    "active": True,
    "tables": 2,
    "created_at": NOW,
}
ROOM_CREATE = [
    request(
        "first to knock",
        {
            "name": "FTK 12.50",
            "variant": "ftk",
            "currency": "EUR",
            "stake": "12.50",
            "fee_bps": 500,
            "turn_seconds": 30,
            "turn_clock": {"time_bank_seconds": 60, "auto_play_turns": 3},
            "tables": 2,
            "rules": {"knock_limit": 10},
        },
        "First To Knock for 12.50 EUR a seat, 5% fee, two tables",
    ),
    request(
        "money play",
        {
            "name": "Money Play 0.10-0.50",
            "variant": "money",
            "currency": "EUR",
            "target": 100,
            "stake_per_point_choices": ["0.10", "0.25", "0.50"],
            "cashier_min": "20.00",
            "cashier_max": "200.00",
            "fee_bps": 250,
        },
        "Money Play to 100 at 0.10, 0.25 or 0.50 EUR a point, 20 to 200 EUR at the table",
    ),
    request(
        "practice with the bot",
        {
            "name": "Practice Match Play",
            "variant": "match",
            "is_practice": True,
            "bot_enabled": True,
            "bot_level": "strong",
            "stake": "100",
            "target": 100,
        },
        "Play money (XGC chips); the house bot, at its strong level, takes the second seat",
    ),
    request(
        "four players",
        {
            "name": "Four players, Match Play",
            "variant": "match",
            "currency": "EUR",
            "stake": "5.00",
            "seats": 4,
            "prize_table": "50_30_20",
            "target": 100,
            "fee_bps": 250,
        },
        "R12: four seats, 7 cards each, penalty points to 100, prizes 50/30/20 % of the pot "
        "less the fee",
    ),
    response("opened", ROOM, 201),
]
ROOM_CREATE_REFUSED = problem_response(
    "Refused: an amount, the currency or the room options (invalid-room-options)",
    problem_example(
        AmountTooPreciseProblem,
        "12.505 has more than 2 decimal places for EUR",
        instance="/api/v1/rooms",
        field="stake",
        currency="EUR",
        exponent=2,
    ),
)
ROOM_CREATE_INVALID = problem_response(
    "validation-error: a field is not valid (`errors` names it)",
    problem_example(
        ValidationProblem,
        "One or more fields are invalid",
        instance="/api/v1/rooms",
        errors={"variant": ['"gin" is not a valid choice.']},
    ),
)
ROOM_UPDATE = [
    request("rename", {"name": "FTK 12.50 (evening)"}),
    request("close", {"active": False}, "No new seats; games being played go on"),
    response("updated", ROOM | {"name": "FTK 12.50 (evening)"}, 200),
]
TABLE_CREATE = [
    response("opened", {"id": 12, "room_id": 7, "status": "open", "created_at": NOW}, 201)
]

# --- The network -----------------------------------------------------------------------------
NETWORK_ROOM_OPT_IN = [
    response(
        "offered",
        ROOM | {"id": 3, "name": "Network FTK 12.50", "opted_in": True, "offered": True},
        200,
        "The room's tables are in the operator's players' lobby",
    )
]
SCREEN_NAME = [
    request("choose", {"screen_name": "AceOfClubs"}),
    response("chosen", {"screen_name": "AceOfClubs", "changeable": True}, 200),
]
SCREEN_NAME_REFUSED = problem_response(
    "screen-name-taken, screen-name-locked (seated at a network table)",
    problem_example(
        ScreenNameTakenProblem,
        "the screen name 'AceOfClubs' is taken",
        instance="/api/v1/me/screen-name",
        field="screen_name",
    ),
)

_WAITING = {
    "id": 5,
    "room_id": 7,
    "status": "waiting",
    "stake_per_point": None,
    "cashier_amount": None,
    "seat": None,
    "problem_type": None,
    "created_at": NOW,
    "expires_at": "2026-11-29T20:25:02.913404Z",
    "ended_at": None,
}
WAITING_LIST_JOIN = [
    request("first to knock", {}, "Seated at the room's stake once an opponent is there"),
    request(
        "money play",
        {"cashier_amount": "50.00", "stake_per_point": "0.25"},
        "Seated with 50.00 EUR at a 0.25 EUR a point table",
    ),
    response("waiting", _WAITING, 201, "Nobody to play yet: nothing charged"),
    response(
        "already waiting",
        _WAITING,
        200,
        "A retry: the entry made before",
    ),
]
WAITING_LIST_LEAVE = [
    response(
        "left",
        _WAITING | {"status": "left", "ended_at": "2026-11-29T20:17:02Z"},
        200,
        "Free: nothing was charged",
    )
]

# --- Seats -----------------------------------------------------------------------------------
SEAT = {
    "id": 83,
    "room_id": 7,
    "table_id": 12,
    "match_id": 42,
    "match_status": "waiting",
    "position": 0,
    "state": "seated",
    "amount": eur("12.50", displayed=True),
    "stake_per_point": None,
    "created_at": NOW,
    "left_at": None,
}
SIT = [
    request("first to knock", {}, "The room's stake moves into the game's escrow"),
    request(
        "money play",
        {"cashier_amount": "50.00", "stake_per_point": "0.25"},
        "Bring 50.00 EUR to the table, play at 0.25 EUR a point",
    ),
    response("seated", SEAT, 201, "Waiting for an opponent"),
    response(
        "already seated",
        SEAT | {"match_status": "running", "state": "playing"},
        200,
        "A retry: the seat taken before",
    ),
]
SIT_REFUSED = problem_response(
    "insufficient-funds, table-full, room-inactive, ...; nothing moved",
    problem_example(
        InsufficientFundsProblem,
        "the player wallet holds 5.00 EUR, 12.50 is needed",
        instance="/api/v1/tables/12/sit",
        available=eur("5.00"),
        needed=eur("12.50"),
    ),
)
ON_BREAK = problem_response(
    "timed-out, self-excluded: a break the player took, until `until` (practice tables too); "
    "nothing moved",
    problem_example(
        TimedOutProblem,
        "the player is taking a time-out until 2026-12-06T20:15:02.913404+00:00",
        instance="/api/v1/tables/12/sit",
        until="2026-12-06T20:15:02.913404+00:00",
    ),
    problem_example(
        SelfExcludedProblem,
        "the player is self-excluded until 2027-05-31T20:15:02.913404+00:00",
        instance="/api/v1/tables/12/sit",
        until="2027-05-31T20:15:02.913404+00:00",
    ),
)
_DEBIT = "8f1c2e4a-6b7d-4c3e-9a10-5d2f7e8b9c01"
_ROLLBACK = "2b9d4f61-3c8e-4a57-b1d2-7e6f5a4c3b20"
SIT_WALLET_UNAVAILABLE = OpenApiResponse(
    WalletUnavailableProblemOutput,
    description="Seamless mode: the operator's wallet did not answer the buy-in's debit; no "
    "seat. `rollback_pending` says whether the debit's rollback is acknowledged yet "
    '(docs/wallet.md "Seamless wallet").',
    examples=[
        problem_example(
            WalletUnavailableProblem,
            "the operator's wallet did not answer the buy-in's debit; it was rolled back and "
            "nothing is charged",
            name="rolled back",
            instance="/api/v1/tables/12/sit",
            transaction_id=_DEBIT,
            amount=eur("12.50"),
            rollback_pending=False,
            rollback_transaction_id=_ROLLBACK,
            rollback_next_attempt_at=None,
        ),
        problem_example(
            WalletUnavailableProblem,
            "the operator's wallet did not answer the buy-in's debit; its rollback is not "
            "acknowledged yet, so the operator's wallet may hold 12.50 EUR of the player's "
            "until it is: the platform keeps sending it",
            name="rollback pending",
            instance="/api/v1/tables/12/sit",
            transaction_id=_DEBIT,
            amount=eur("12.50"),
            rollback_pending=True,
            rollback_transaction_id=_ROLLBACK,
            rollback_next_attempt_at="2026-11-29T20:15:23.104000+00:00",
        ),
    ],
)
LEAVE = [
    response(
        "left before the start",
        SEAT | {"match_status": "aborted", "state": "left", "left_at": "2026-11-29T20:15:40Z"},
        200,
        "The stake went back to the wallet",
    ),
    response(
        "left a running game",
        SEAT | {"match_status": "finished", "state": "finished", "left_at": "2026-11-29T20:21:09Z"},
        200,
        "A forfeit (R10): the opponent wins",
    ),
]
LEAVE_REFUSED = problem_response(
    "not-seated",
    problem_example(
        NotSeatedProblem, "you have no seat at table 12", instance="/api/v1/tables/12/leave"
    ),
)
_BOT_SEAT = SEAT | {
    "id": 91,
    "table_id": 15,
    "match_id": 44,
    "match_status": "running",
    "position": 1,
    "state": "playing",
    "amount": {"amount": "100", "currency": "XGC", "display": None},
}
BOT = [
    request("the room's level", {}, "The house bot plays at the room's bot_level"),
    request("strong", {"bot_level": "strong"}, "The house bot at its strong level"),
    response("the bot sits down", _BOT_SEAT, 201, "The match starts; the bot plays chips"),
    response("already there", _BOT_SEAT, 200),
]
BOT_REFUSED = problem_response(
    "bot-not-allowed: real-money tables",
    problem_example(
        BotNotAllowedProblem, "table 12 plays for real money", instance="/api/v1/tables/12/bot"
    ),
)

# --- The game --------------------------------------------------------------------------------
_SUMMARY = {
    "id": 42,
    "status": "running",
    "variant": "ftk",
    "target": None,
    "table_id": 12,
    "room_id": 7,
    "currency": "EUR",
    "is_practice": False,
    "is_tournament": False,
    "stake": eur("12.50", displayed=True),
    "stake_per_point": None,
    "fee_bps": 500,
    "turn_seconds": 30,
    "rules": RULES,
    "turn_clock": TURN_CLOCK,
    "clocks": [
        {
            "seat": seat,
            "time_bank_seconds": 60.0,
            "time_bank_used_seconds": 0.0,
            "protected_turns": 0,
            "auto_played_turns": 0,
        }
        for seat in (0, 1)
    ],
    "players": [
        {
            "position": 0,
            "display_name": "alice",
            "screen_name": "AceOfClubs",
            "operator": None,
            "bot_level": None,
        },
        {
            "position": 1,
            "display_name": "bob",
            "screen_name": None,
            "operator": None,
            "bot_level": None,
        },
    ],
    "seats": 2,
    "prize_table": "winner_takes_all",
    "hand_points": [0, 0],
    "hands_won": [0, 0],
    "winner_seat": None,
    "forfeit": None,
    "forfeits": [],
    "result": None,
    "started_at": "2026-11-29T20:15:47.975645Z",
    "finished_at": None,
    "your_seat": 1,
}
_COMMITMENT = "b8f19f78b529496bd46c198ca691a0d8b0f073735786dcaca971dc225ba92ff2"
_BOBS_CARDS = ["3S", "5S", "JS", "KS", "4H", "3D", "5D", "6D", "9D", "JD", "4C"]
GAME_VIEW: dict[str, Any] = {
    "seq": 2,
    "match": _SUMMARY,
    "hand": {
        "number": 1,
        "status": "in_progress",
        "seed_commitment": _COMMITMENT,
        "turn_deadline": "2026-11-29T20:16:17.975891Z",
        "turn_stage": "turn",
        "your_turn": True,
        "phase": "discard",
        "to_act": 1,
        "dealer": 0,
        "state_seq": 1,
        "seat": 1,
        "hand": _BOBS_CARDS,
        "deadwood": 59,
        "melds": [],
        "deadwood_cards": [card for card in _BOBS_CARDS if card != "JD"],
        "best_discard": "JD",
        "opponent_card_count": 10,
        "discard_pile": [],
        "stock_count": 31,
        "card_counts": [10, 11],
        "upcard_passes": 0,
        "taken_from_discard": "5D",
        "reshuffles": 0,
        "rules": RULES,
        "legal_actions": [
            {"kind": "discard", "card": card} for card in _BOBS_CARDS if card != "5D"
        ],
        "outcome": None,
    },
    "previous_hand": None,
}
ACTION = [
    request(
        "take the upcard",
        {"kind": "take_upcard", "card": None, "expected_seq": 1},
        "R4: the non-dealer takes the first upcard",
    ),
    request("draw from the stock", {"kind": "draw_stock", "expected_seq": 5}),
    request("discard", {"kind": "discard", "card": "JD", "expected_seq": 2}),
    request(
        "knock",
        {"kind": "knock", "card": "9D", "expected_seq": 17},
        "Put the 9D down and show the rest (R6)",
    ),
    response(
        "upcard taken",
        GAME_VIEW,
        200,
        "Bob took the 5D and must now discard; send seq as the next expected_seq",
    ),
]
ACTION_CONFLICT = problem_response(
    "not-your-turn, stale-sequence, match-not-in-progress",
    problem_example(
        NotYourTurnProblem, "it is seat 0's turn", instance=f"{MATCH}/actions", to_act=0
    ),
    problem_example(
        StaleSequenceProblem,
        "expected_seq 0 is not the game's sequence 1",
        instance=f"{MATCH}/actions",
        expected_seq=0,
        current_seq=1,
    ),
)
ACTION_REFUSED = problem_response(
    "illegal-action (lists legal_actions), knock-over-limit (names the deadwood)",
    problem_example(
        IllegalActionProblem,
        "knock is not allowed in phase upcard_offer",
        instance=f"{MATCH}/actions",
        legal_actions=[{"kind": "take_upcard", "card": None}, {"kind": "pass", "card": None}],
    ),
    problem_example(
        KnockOverLimitProblem,
        "cannot knock with 14 deadwood: the knock limit is 10 (R6); discard instead",
        instance=f"{MATCH}/actions",
        deadwood=14,
        limit=10,
    ),
)
_ALICES_CARDS = ["2S", "4S", "TS", "QS", "4D", "7D", "8D", "TD", "3C", "TC"]
_FORFEIT = {"seat": 0, "reason": "resigned"}
RESIGNED_VIEW = {
    "seq": 4,
    "match": _SUMMARY
    | {
        "status": "finished",
        "winner_seat": 1,
        "forfeit": _FORFEIT,
        "result": {
            "reason": "forfeit",
            "winner_seat": 1,
            "reached_target": 1,
            "hand_points": [0, 0],
            "hands_won": [0, 0],
            "hands_played": 1,
            "target": None,
            "money_play": None,
            "forfeit": _FORFEIT,
        },
        "finished_at": "2026-11-29T20:16:08.055486Z",
        "your_seat": 0,
    },
    "hand": GAME_VIEW["hand"]
    | {
        "status": "abandoned",
        "turn_deadline": None,
        "your_turn": False,
        "to_act": None,
        "seat": 0,
        "hand": _ALICES_CARDS,
        "deadwood": 38,
        "melds": [{"kind": "set", "cards": ["TS", "TD", "TC"]}],
        "deadwood_cards": [card for card in _ALICES_CARDS if card[0] != "T"],
        "best_discard": None,
        "opponent_card_count": 11,
        "legal_actions": [],
        "hands": [_ALICES_CARDS, _BOBS_CARDS],
        "seed": "62ab38a9a78014ab742855301199c5b03ec4e77238064fccd89dca8c6bd6a961",
    },
    "previous_hand": None,
}
RESIGN = [
    request("only if nothing moved", {"expected_seq": 2}, "Refused if the game moved on"),
    request("whatever happened", {}),
    response("resigned", RESIGNED_VIEW, 200, "Alice gave up: Bob wins, the seed is revealed"),
]
RESIGN_REFUSED = problem_response(
    "match-not-in-progress, stale-sequence",
    problem_example(MatchNotInProgressProblem, "the game is finished", instance=f"{MATCH}/resign"),
)
