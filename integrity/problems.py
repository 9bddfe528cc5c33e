"""Integrity's domain errors, each with a stable problem ``type`` (docs/api-errors.md).
The four-eyes problems of a confiscation are the platform's (``four-eyes-required``,
``approval-not-pending``, ``proposer-not-entitled``), the posting's the wallet's; the seat
refused to linked players is games' (``linked-players``): games raises it."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class CaseClosedProblem(Problem):
    slug = "case-closed"
    status = 409
    title = _("The case is closed")
    description = (
        "A closed case takes no more alerts, notes or actions; open a new case for new "
        'evidence (docs/integrity.md "Cases").'
    )


class CaseActionInvalidProblem(Problem):
    slug = "case-action-invalid"
    status = 422
    title = _("The case action is not valid")
    description = (
        "The action does not fit the case: its player (or the pair, for a blocked pairing) "
        "must be among the case's players, a suspension to lift must be in force, an alert "
        "belongs to one case only; `field` names what is wrong."
    )


class ReportInvalidProblem(Problem):
    slug = "report-invalid"
    status = 422
    title = _("The report is not valid")
    description = (
        "A player reports an opponent of a match they played, once per match and opponent, "
        "never themselves; `field` names what is wrong."
    )


class LinkInvalidProblem(Problem):
    slug = "link-invalid"
    status = 422
    title = _("The link or identifier is not valid")
    description = (
        "A declared link joins two different players of your own (`player_id` one of yours) and "
        "is of kind household or associate; an identifier is of kind device, address or "
        "payment_instrument with a value that identifies (a public IP address for an address). "
        "`field` names the field. Another operator's player is answered like an unknown one."
    )


class LinkNotEndableProblem(Problem):
    slug = "link-not-endable"
    status = 409
    title = _("Only a link you declared can be ended")
    description = (
        "Links you declared (household, associate) end when you delete them; links the platform "
        "found from shared devices, addresses or payment instruments, or that the risk team "
        "set, stay in force (docs/integrity.md)."
    )
