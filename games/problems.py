"""The games app's domain errors, each with a stable problem ``type`` (docs/api-errors.md).

Wallet problems (insufficient funds, self-exclusion, limits) raised while taking a seat pass
through unchanged.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class InvalidRoomOptionsProblem(Problem):
    slug = "invalid-room-options"
    status = 422
    title = _("The room options are not valid")
    description = (
        "A rule option (R6, R7, R9), target, stake, cashier bound, fee or turn time is not "
        "allowed for the room's variant; `field` names it."
    )


class RoomInactiveProblem(Problem):
    slug = "room-inactive"
    status = 409
    title = _("The room or table is closed")
    description = "The operator closed this room or table; pick another one in the lobby."


class TableFullProblem(Problem):
    slug = "table-full"
    status = 409
    title = _("The table has no free seat")
    description = "Both seats are taken (or a game is being played there)."


class LinkedPlayersProblem(Problem):
    slug = "linked-players"
    status = 409
    title = _("You cannot sit at this table")
    description = (
        "Somebody at this table may not play with you (docs/integrity.md: linked players "
        "never share a table). Which player, and why, is not said: pick another table, or join "
        "the waiting list."
    )


class TournamentTableProblem(Problem):
    slug = "tournament-table"
    status = 409
    title = _("This table belongs to a tournament")
    description = (
        "R14: a tournament seats the players of each of its matches itself. Nobody sits at "
        "its tables from the lobby, the waiting list or by inviting the house bot, nor "
        "leaves one before its match starts, and its room takes no new table or change "
        "through the rooms endpoints: a player's seat there is taken from the tournament."
    )


class NoShowDeadlinePassedProblem(Problem):
    slug = "no-show-deadline-passed"
    status = 409
    title = _("Too late to take this seat")
    description = (
        "R14 \"Absence\": a tournament's seat is kept for its player until the match's "
        "`no_show_deadline`; a player who has not taken it by then forfeits the match."
    )


class NotSeatedProblem(Problem):
    slug = "not-seated"
    status = 409
    title = _("You are not seated at this table")


class CashierAmountOutOfRangeProblem(Problem):
    slug = "cashier-amount-out-of-range"
    status = 422
    title = _("The cashier amount is outside the room's bounds")
    description = (
        "Money Play (R10): bring between the room's cashier minimum and maximum; `minimum` and "
        "`maximum` say how much."
    )


class StakePerPointNotOfferedProblem(Problem):
    slug = "stake-per-point-not-offered"
    status = 422
    title = _("The room does not offer this stake per point")
    description = "Money Play (R10): choose one of the room's `choices`."


class StakePerPointMismatchProblem(Problem):
    slug = "stake-per-point-mismatch"
    status = 409
    title = _("The table already plays at another stake per point")
    description = (
        "Money Play (R10): a table plays at one stake per point, chosen by the first player "
        "seated; `stake_per_point` says which."
    )


class MatchNotInProgressProblem(Problem):
    slug = "match-not-in-progress"
    status = 409
    title = _("The game is not being played")
    description = "It has not started yet (waiting for an opponent) or it is over."


class NotYourTurnProblem(Problem):
    slug = "not-your-turn"
    status = 409
    title = _("It is not your turn")


class RealityCheckOpenProblem(Problem):
    slug = "reality-check-open"
    status = 409
    title = _("Answer your reality check first")
    description = (
        "A reality check waits for the player's answer (POST /api/v1/me/reality-checks/{id}, "
        'docs/player-protection.md "Reality checks"): until then the seat makes no move, '
        "and its turn clock is paused for at most PROTECTION_PAUSE_SECONDS."
    )


class StaleSequenceProblem(Problem):
    slug = "stale-sequence"
    status = 409
    title = _("The game has moved on since you looked")
    description = (
        "`expected_seq` must be the `seq` of the latest game view; `current_seq` is the "
        "game's sequence now. Fetch the view (or the events after your sequence) and decide "
        "again."
    )


class IllegalActionProblem(Problem):
    slug = "illegal-action"
    status = 422
    title = _("That action is not allowed now")
    description = "The rules (R4-R6) do not allow it; `legal_actions` lists what you may do."


class KnockOverLimitProblem(Problem):
    slug = "knock-over-limit"
    status = 422
    title = _("Too much deadwood to knock")
    description = (
        "R6: the 10 cards you would show have `deadwood` above the room's knock `limit`. "
        "Nothing changed: discard instead."
    )


class MatchNotFinishedProblem(Problem):
    slug = "match-not-finished"
    status = 409
    title = _("The game has no result to settle")
    description = "Only a finished game can be marked settled."


class BotNotAllowedProblem(Problem):
    slug = "bot-not-allowed"
    status = 409
    title = _("The house bot plays at practice tables only")
    description = (
        "R11: the house bot plays for play-money chips only; it never takes a seat at "
        "a real-money table."
    )


class NetworkNotJoinedProblem(Problem):
    slug = "network-not-joined"
    status = 403
    title = _("Your operator does not offer this network room")
    description = (
        "A network room's tables seat the players of the operators that are members of the "
        "network and offer that room (docs/network.md); pick a room in your lobby."
    )


class NetworkTableOtherModeProblem(Problem):
    slug = "network-table-other-mode"
    status = 409
    title = _("This network table plays in the other mode")
    description = (
        "Live and test-mode (sandbox) players never sit at the same network table: the table "
        "already seats players of the other mode. Pick another table (or join the room's "
        "waiting list)."
    )


class ScreenNameRequiredProblem(Problem):
    slug = "screen-name-required"
    status = 409
    title = _("Choose a screen name first")
    description = (
        "At a network table the other players see only your screen name: choose one "
        "(PUT /api/v1/me/screen-name), then sit down."
    )


class ScreenNameInvalidProblem(Problem):
    slug = "screen-name-invalid"
    status = 422
    title = _("The screen name is not allowed")
    description = (
        "3 to 20 characters: letters A-Z, digits, and '_' or '-' between them; not a reserved "
        "word, not the player's external_ref or display name (docs/network.md)."
    )


class ScreenNameTakenProblem(Problem):
    slug = "screen-name-taken"
    status = 409
    title = _("The screen name is taken")
    description = "Screen names are unique across the platform whatever the case; choose another."


class ScreenNameLockedProblem(Problem):
    slug = "screen-name-locked"
    status = 409
    title = _("The screen name cannot change during a network game")
    description = (
        "While you hold a seat at a network table your opponent knows you by that name; "
        "change it once the game is over (or after leaving before the start)."
    )


class HandInProgressProblem(Problem):
    slug = "hand-in-progress"
    status = 409
    title = _("The hand is still being played")
    description = (
        "Its server seed, both hands and the stock stay secret until the hand is over "
        '(docs/games.md "The player\'s view"). Ask again once it has ended.'
    )


# --- Sockets (docs/realtime.md) ------------------------------------------------------------
class TooManySocketsProblem(Problem):
    slug = "too-many-sockets"
    status = 429
    title = _("Too many open sockets")
    description = (
        "A player holds at most REALTIME_MAX_SOCKETS_PER_PLAYER sockets at once; the socket "
        "closes with code 4429. Close another tab, or reuse one socket."
    )


class TooManyMessagesProblem(Problem):
    slug = "too-many-messages"
    status = 429
    title = _("Messages sent too fast")
    description = (
        "A socket may send at most REALTIME_MAX_MESSAGES_PER_10S messages in ten seconds; "
        "the socket closes with code 4429."
    )


class IdleSocketProblem(Problem):
    slug = "socket-idle"
    status = 408
    title = _("No message from the client for three heartbeats")
    description = (
        "Answer each `ping` with a `pong`; a socket silent for three heartbeats closes with "
        "code 4408. Reconnect with `after` set to the last `seq` you handled."
    )


class SessionEndedProblem(Problem):
    slug = "session-ended"
    status = 401
    title = _("The session behind this socket has ended")
    description = (
        "The player session that minted the socket's ticket expired or was revoked (or the "
        "player or operator was deactivated); the socket closes with code 4401."
    )


class PlaySuspendedProblem(Problem):
    slug = "play-suspended"
    status = 403
    title = _("You may not play at the moment")
    description = (
        "The player is suspended from play or banned after an integrity review "
        "(integrity.pairing ``play_refusal``); their operator's support can tell them more. "
        "Their wallet is untouched: withdrawals and payouts owed still work."
    )
