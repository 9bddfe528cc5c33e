"""Tournaments' domain errors, each with a stable problem ``type`` (docs/api-errors.md,
docs/tournaments.md)."""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import NotFoundProblem, Problem


class TournamentOptionsInvalidProblem(Problem):
    slug = "tournament-options-invalid"
    status = 422
    title = _("The tournament's options are not valid")
    description = (
        "A tournament's options break R14: `field` names the option and `detail` says why "
        "(seats 2 to 4 and `advance` dividing them, entries from 2, a prize table adding up "
        "to 10,000 basis points, a scheduled start after registration opens...). Nothing "
        "was created."
    )


def tournament_not_found() -> NotFoundProblem:
    """Another operator's tournament is as absent as one that never existed (404)."""
    return NotFoundProblem(gettext("No such tournament."))


class RegistrationClosedProblem(Problem):
    slug = "tournament-registration-closed"
    status = 409
    title = _("Registration is closed")
    description = (
        "The tournament takes no registration now: it has not opened registration yet, or it "
        "has started, finished or been cancelled (`tournament_status`)."
    )


class TournamentFullProblem(Problem):
    slug = "tournament-full"
    status = 409
    title = _("The tournament is full")
    description = "Every entry of the tournament (`max_entries`) is taken."


class NotRegisteredProblem(Problem):
    slug = "tournament-not-registered"
    status = 409
    title = _("You are not registered")
    description = "The player holds no entry of this tournament that could be withdrawn."


class LinkedPlayerRegisteredProblem(Problem):
    slug = "tournament-linked-player"
    status = 409
    title = _("A linked account is registered")
    description = (
        "Linked accounts never meet at a table (R10), and in a knockout any two players may "
        "meet: a player linked to one already registered cannot register too "
        '(docs/tournaments.md "Integrity").'
    )


class TicketRequiredProblem(Problem):
    slug = "tournament-ticket-missing"
    status = 409
    title = _("No ticket for this tournament")
    description = (
        "The player asked to enter with a ticket but holds none for this tournament, or one "
        "worth less than its entry (buy-in and fee; the tournament's `my_ticket` says "
        "`covers_entry`)."
    )


class TournamentSeatProblem(Problem):
    slug = "tournament-no-seat"
    status = 409
    title = _("No seat for you now")
    description = (
        "The player has no table of this tournament waiting for them: they are out, their "
        "match is being played or has not been seated yet."
    )


class TournamentEndedProblem(Problem):
    slug = "tournament-ended"
    status = 409
    title = _("The tournament has ended")
    description = (
        "The tournament has finished or been cancelled already (`tournament_status`): there "
        "is nothing left to cancel."
    )
