"""Matchmaking's domain errors, each with a stable problem ``type`` (docs/api-errors.md,
docs/matchmaking.md). A quick seat is refused for who may sit at all with the seat's own
problems (``self-excluded``, ``timed-out``, ``play-suspended``, ``screen-name-required``,
``session-limits-required``, ``cashier-amount-out-of-range``, ...)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class QuickSeatNoRoomProblem(Problem):
    slug = "quick-seat-no-room"
    status = 422
    title = _("No room plays this game")
    description = (
        "No heads-up real-money room in the player's lobby plays this variant at this stake "
        "(First To Knock, Match Play) or stake per point (Money Play) in this currency: "
        "`variant` and `currency` say what was asked."
    )


class QuickSeatAlreadyQueuedProblem(Problem):
    slug = "quick-seat-already-queued"
    status = 409
    title = _("You are already waiting for a quick seat")
    description = (
        "A player waits for one quick seat at a time: the one waiting (`ticket_id`) is for "
        "another variant, stake or room. Cancel it first (DELETE /api/v1/lobby/quick-seat)."
    )


class QuickSeatNotWaitingProblem(Problem):
    slug = "quick-seat-not-waiting"
    status = 409
    title = _("Your quick seat is no longer waiting")
    description = (
        "The player's latest quick seat cannot be cancelled: it was seated, expired or "
        "refused already (`ticket_status`; seated: `match_id` names the game)."
    )
